"""Caller mistakes are typed (InvalidArgument naming the parameter) and each
surface maps them once: the CLI to a usage error, the pipeline raises them
before any work; a vault that cannot be scanned is a warning in
index_status, not a magic -1. The socket's mapping is in
tests/daemon/test_caller_mistakes.py, MCP's in tests/mcp/test_mcp_stdio.py."""

from __future__ import annotations

import shutil

import pytest
from click.testing import CliRunner

from groove import operations
from groove.cli import cli
from groove.config import SearchConfig
from groove.errors import BadQuery, InvalidArgument
from groove.pipeline import SearchParams, resolve_params, run_search
from helpers import make_runtime


@pytest.mark.parametrize("params,param", [
    (SearchParams("x", limit=0), "limit"),
    (SearchParams("x", mmr_lambda=2.0), "mmr_lambda"),
    (SearchParams("x", min_confidence_ratio=-1.0), "min_confidence_ratio"),
    (SearchParams("x", legs="both"), "legs"),
])
def test_a_bad_search_parameter_is_an_invalid_argument_naming_it(params, param):
    with pytest.raises(InvalidArgument) as e:
        resolve_params(params, SearchConfig())
    assert e.value.param == param and f"'{param}'" in str(e.value)


def test_rerank_without_a_configured_reranker_is_the_callers_mistake(small_vault, tiny_embedder, tmp_path):
    rt = make_runtime(small_vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    with pytest.raises(InvalidArgument, match="no reranker is configured") as e:
        run_search(rt, SearchParams("sync", rerank=True))
    assert e.value.param == "rerank"
    with pytest.raises(InvalidArgument) as e:
        run_search(rt, SearchParams("sync", date_from="2024-13-45"))
    assert e.value.param == "date_from"
    with pytest.raises(BadQuery) as e:
        run_search(rt, SearchParams("-sync"))
    assert e.value.param == "query"
    rt.close()


def test_the_cli_reports_a_bad_argument_as_a_usage_error(small_vault, tiny_embedder, tmp_path):
    rt = make_runtime(small_vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    rt.close()
    out = CliRunner().invoke(cli, ["search", "sync", "--vault", str(small_vault),
                                   "--index", str(tmp_path / "index.sqlite"), "--limit", "0"])
    assert out.exit_code == 2
    assert "Error: --limit must be at least 1" in out.output  # the flag as typed, not the protocol's name
    assert "Traceback" not in out.output


def test_index_status_reports_a_vault_it_cannot_scan_as_a_warning(small_vault, tiny_embedder, tmp_path):
    rt = make_runtime(small_vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    assert operations.index_status(rt)["stale_files"] == 0
    assert operations.index_status(rt)["warnings"] == []
    shutil.rmtree(small_vault)  # the folder went away under a running server
    st = operations.index_status(rt)
    assert st["stale_files"] is None
    assert len(st["warnings"]) == 1 and "could not scan the vault" in st["warnings"][0]
    assert st["documents"] > 0  # the rest of the report still comes from the index
    rt.close()
