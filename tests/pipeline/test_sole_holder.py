"""A rare exact term wins (issue 36, ADR 0142): the one note that holds a
pasted identifier and the whole query ranks first, whatever the vector legs
like. llama.cpp runs the tiny random BERT here, so the vector and note legs
vote at random: only the lexical rule can put the right note first."""

from __future__ import annotations

import dataclasses

import pytest

from groove import operations
from groove.config import SearchConfig
from groove.pipeline import SearchParams
from helpers import make_runtime
from helpers import write_note as _write


@pytest.fixture
def rt(tmp_path, tiny_embedder):
    v = tmp_path / "vault"
    for i in range(30):
        _write(v, f"Pages/Page {i}.md", f"# Page {i}\n\nEach page of the manual explains one page setting.\n")
    _write(v, "Embed files.md", "# Embed files\n\nOpen a PDF at a page by adding `#page=N` to the link.\n")
    _write(v, "CSV.md", "# CSV\n\nEach column is a variable called `{{column_name}}` in the template.\n")
    _write(v, "Twins/A.md", "# A\n\nThe shared token zqxj_shared appears here.\n")
    _write(v, "Twins/B.md", "# B\n\nThe shared token zqxj_shared appears here too.\n")
    _write(v, "ja/ノート.md", "# ノート\n\n脚注の書き方を説明します。\n")
    _write(v, "ko/보관.md", "# 보관\n\n첨부 파일은 보관함에 저장됩니다.\n")
    _write(v, "ko/편집.md", "# 편집\n\n노트를 편집하고 파일을 저장합니다.\n")
    r = make_runtime(v, tiny_embedder, tmp_path)
    operations.reindex(r)
    yield r
    r.close()


def _search(rt, q, **fusion):
    base = SearchConfig()
    cfg = dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **fusion))
    rt2 = dataclasses.replace(rt, config=dataclasses.replace(rt.config, search=cfg))
    return operations.search(rt2, SearchParams(q, limit=10, explain=True))


@pytest.mark.parametrize("q, path", [
    ("#page=N", "Embed files.md"),
    ("{{column_name}}", "CSV.md"),
    ("column_name variable", "CSV.md"),
    ("보관함", "ko/보관.md"),  # a Korean stem one note holds, through the bigram table too
])
def test_the_only_note_holding_a_pasted_identifier_ranks_first(rt, q, path):
    resp = _search(rt, q)
    assert resp.results[0].path == path
    assert "sole_holder" in resp.results[0].explain["legs"]


def test_a_term_two_notes_hold_names_no_sole_holder(rt):
    resp = _search(rt, "zqxj_shared")
    assert all("sole_holder" not in str(h.explain) for h in resp.results)
    assert {h.path for h in resp.results[:2]} == {"Twins/A.md", "Twins/B.md"}


def test_a_row_that_misses_part_of_the_query_is_not_promoted(rt):
    # "#page=N" is held by one note, but no row holds "column_name" with it.
    resp = _search(rt, "#page=N column_name")
    assert all("sole_holder" not in str(h.explain) for h in resp.results)


def test_the_rule_can_be_switched_off(rt):
    resp = _search(rt, "#page=N", sole_holder_first=False)
    assert all("sole_holder" not in str(h.explain) for h in resp.results)
