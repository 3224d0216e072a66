"""The search params as the CLI sends them to a daemon."""

from __future__ import annotations

import pytest

from groove.pipeline import SearchParams


@pytest.mark.parametrize("options", [
    {},
    {"limit": 5, "rerank": False, "mmr": None, "path_globs": ("Sync/**",), "tags_any": (), "date_from": None},
    {"mmr_lambda": 0.3, "parent_retriever": True, "tags_all": ("a", "b"), "date_to": "2024-01-01"},
])
def test_the_cli_sends_the_daemon_what_search_params_would(options):
    from groove.cli.search import protocol_params

    sent = protocol_params("sync -mobile", options)
    assert sent == SearchParams.from_json({"query": "sync -mobile", **options}).to_json()
