"""The exact top-k path of the lexical leg (``bm25_topk``) returns what FTS5's
plain ``ORDER BY bm25`` returns — the same rows, the same order, the same
floats — or declines; checked on a real FTS5 trigram table of skewed text."""

from __future__ import annotations

import random

import apsw
import pytest

from groove.engines.lexical import bm25_topk, fts
from groove.query import parse_query

W = (2.0, 1.0, 1.0)
COMMON = ["the", "and", "for", "note", "with", "sync"]
RARE = ["canvas", "graph", "vault", "plugin", "hotkey", "embed", "folder", "backlink", "template", "daily",
        "同期", "設定", "キャンバス"]


def corpus(n: int, seed: int = 3) -> list[tuple[int, str, str, str]]:
    rng = random.Random(seed)
    filler = ["".join(rng.choice("bcdfghklmnprstvwz") + rng.choice("aeiou") for _ in range(3)) for _ in range(400)]
    rows = []
    for rid in range(1, n + 1):
        words = []
        for _ in range(rng.randint(3, 40)):
            r = rng.random()
            pool = COMMON if r < 0.1 else RARE if r < 0.125 else filler
            w = rng.choice(pool)
            words.append(w.upper() if rng.random() < 0.05 else w.capitalize() if rng.random() < 0.1 else w)
        heading = " ".join(rng.choice(RARE + filler) for _ in range(rng.randint(0, 3)))
        rows.append((rid, heading, f"Notes > {rng.choice(filler)}", " ".join(words)))
    rows += [(n + 1 + i, rows[i][1], rows[i][2], rows[i][3]) for i in range(40)]  # exact duplicates: ties
    return rows


@pytest.fixture(scope="module")
def conn() -> apsw.Connection:
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    with c:
        c.executemany("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?,?,?,?)", corpus(3000))
    return c


def plain(c: apsw.Connection, q, limit: int, restrict: str | None = None) -> list[tuple[int, float]]:
    expr = q.match_expr
    return [(int(r), -float(s)) for r, s in c.execute(fts.fts_sql(restrict), (*W, expr, limit)).fetchall()]


def topk(c: apsw.Connection, q, limit: int, restrict: str | None = None):
    match = fts.RankedMatch(q.positives, q.positives, q.negatives, W)
    return bm25_topk.ranked_top(c, "fts_chunks", match, limit, fts.Allowed(restrict), lambda p: fts.phrase_df(c, p))


QUERIES = ["canvas and the sync", "the graph for note", "Vault with the sync and for", "hotkey for the note",
           "embed and folder with note", "backlink template the and", "同期 の設定 and the", "daily for -canvas",
           "plugin and the -hotkey", "THE Folder and NOTE sync"]


@pytest.fixture()
def small_gate(monkeypatch):
    monkeypatch.setattr(bm25_topk, "SKIP_MIN_ROWS", 500)  # the table is far smaller than a big vault
    monkeypatch.setattr(bm25_topk, "BATCH", 8)
    monkeypatch.setattr(bm25_topk, "MAX_BOUND_SHARE", 10.0)  # try every query: exactness is what is tested


@pytest.mark.parametrize("limit", [5, 20])
def test_the_top_k_path_returns_exactly_what_fts5_ranks(conn, small_gate, limit):
    answered = 0
    for text in QUERIES:
        q = parse_query(text)
        got = topk(conn, q, limit)
        if got is None:
            continue
        answered += 1
        assert got == plain(conn, q, limit), text  # ids, order and the floats themselves
    assert answered >= len(QUERIES) // 2  # the path really ran


def test_the_top_k_path_obeys_a_restriction(conn, small_gate):
    restrict = "SELECT rowid FROM fts_chunks WHERE rowid % 3 = 0"
    q = parse_query("hotkey for the note")
    got = topk(conn, q, 10, restrict)
    assert got is not None and got == plain(conn, q, 10, restrict)
    assert all(rid % 3 == 0 for rid, _ in got)


def test_a_row_whose_case_folding_python_may_not_share_sends_the_query_to_fts5(small_gate):
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    rows = corpus(3000)
    rows[0] = (1, "Canvas", "Notes", "canvas canvas ÉCOLE canvas the and sync " * 20)  # ranks first, É has case
    with c:
        c.executemany("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?,?,?,?)", rows)
    q = parse_query("canvas and the sync")
    assert topk(c, q, 10) is None
    assert plain(c, q, 10)[0][0] == 1


def test_a_list_too_deep_to_prove_goes_straight_to_fts5(conn, small_gate, monkeypatch):
    q = parse_query("hotkey for the note")
    assert topk(conn, q, 10) is not None
    monkeypatch.setattr(bm25_topk, "MAX_DEPTH", 39)
    assert topk(conn, q, 10) is None  # decided before any query runs: 10 > 39 // 4


def test_a_small_index_always_takes_the_plain_query(conn):
    assert bm25_topk.SKIP_MIN_ROWS > 3040
    assert topk(conn, parse_query("canvas and the sync"), 20) is None


def test_the_leg_gives_the_same_hits_with_and_without_the_top_k_path(conn, small_gate, monkeypatch):
    for text in QUERIES:
        q = parse_query(text)
        with_path = fts.fts_search(fts.LexicalSearch(conn, q, W), 30)
        monkeypatch.setattr(bm25_topk, "SKIP_MIN_ROWS", 10**9)
        without = fts.fts_search(fts.LexicalSearch(conn, q, W), 30)
        monkeypatch.setattr(bm25_topk, "SKIP_MIN_ROWS", 500)
        assert with_path == without, text


def test_fts5_statistics_are_read_from_its_own_records(conn):
    stats = bm25_topk.table_stats(conn, "fts_chunks")
    assert stats is not None and stats.rows == fts.fts_row_count(conn) == 3040
    sizes = [sum(bm25_topk._varints(sz)) for (sz,) in conn.execute("SELECT sz FROM fts_chunks_docsize")]
    assert stats.avgdl == pytest.approx(sum(sizes) / len(sizes))
