"""query_coverage (ADR 0079): the share of the query a full-text row holds,
on a real FTS5 trigram index (the tiny embedder only fills the vectors)."""

from __future__ import annotations

import pytest

from groove import operations
from groove.engines.lexical import fts
from groove.query import parse_query
from helpers import make_runtime


def _write(vault, rel, text):
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture
def rt(tmp_path, tiny_embedder):
    v = tmp_path / "vault"
    for i in range(20):
        _write(v, f"Filler {i}.md", f"# Filler {i}\n\nA page about the note editor and its settings, number {i}.\n")
    _write(v, "Both.md", "# Both\n\nThe phoenix theme changes how the note editor looks.\n")
    _write(v, "Common.md", "# Common\n\nEvery note editor setting in one list.\n")
    _write(v, "Rare.md", "# Rare\n\nA phoenix rises.\n")
    _write(v, "保管庫.md", "# 保管庫\n\n保管庫の保存場所はどこでも選べます。\n")
    rt = make_runtime(v, tiny_embedder, tmp_path)
    operations.reindex(rt)
    return rt


def _ids(rt, *paths):
    rows = rt.index.conn.execute(
        "SELECT d.path, c.id FROM chunks c JOIN documents d ON d.id = c.doc_id").fetchall()
    return [dict(rows)[p] for p in paths]


def test_a_row_holding_every_query_term_covers_the_whole_query(rt):
    both, = _ids(rt, "Both.md")
    assert fts.query_coverage(rt.index.conn, parse_query("phoenix editor"), [both]) == {both: pytest.approx(1.0)}


def test_a_rare_term_outweighs_a_common_one(rt):
    both, common, rare = _ids(rt, "Both.md", "Common.md", "Rare.md")
    cov = fts.query_coverage(rt.index.conn, parse_query("phoenix editor"), [both, common, rare])
    assert cov[both] == pytest.approx(1.0)
    assert cov[rare] > 0.5 > cov[common] > 0.0
    assert cov[rare] + cov[common] == pytest.approx(1.0)


def test_terms_no_row_holds_do_not_shrink_the_rows_that_match(rt):
    """The compiler's particle-tail phrase (を選ぶには) matches nothing: it must
    not count against a row that holds every content word."""
    vault_note, = _ids(rt, "保管庫.md")
    parsed = parse_query("保管庫の保存場所を選ぶには")
    assert "を選ぶには" in parsed.positives
    assert fts.query_coverage(rt.index.conn, parsed, [vault_note]) == {vault_note: pytest.approx(1.0)}


def test_case_is_folded_as_the_trigram_tokenizer_folds_it(rt):
    both, = _ids(rt, "Both.md")
    assert fts.query_coverage(rt.index.conn, parse_query("PHOENIX Editor"), [both]) == {both: pytest.approx(1.0)}


@pytest.mark.parametrize("query", ['"phoenix rises"', "phoenix", "保存"])
def test_one_term_covers_its_rows_whole_without_counting_it(rt, query):
    """Its weight divides by itself: rows holding it cover 1.0, exactly, and
    its document frequency is never counted (a scan of its rows)."""
    conn = rt.index.conn
    ids = _ids(rt, "Both.md", "Rare.md", "Common.md", "保管庫.md")
    counted: list[str] = []
    conn.exec_trace = lambda cursor, sql, bindings: counted.append(sql) or True
    try:
        cov = fts.query_coverage(conn, parse_query(query), ids, {}, {})
    finally:
        conn.exec_trace = None
    assert set(cov.values()) <= {0.0, 1.0} and 1.0 in cov.values()
    assert not any("count(" in sql for sql in counted), counted
