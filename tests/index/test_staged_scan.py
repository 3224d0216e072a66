"""The staged scan of a big table (ADR 0133, 0222): one pass over every row
reads only the lead, a third of the matrix; the rows it keeps get the rest
of their head, then their tail. It finds what the head scan of ADR 0133
finds. What it saves shows only with the matrix as cold in the caches as a
search finds it, after a query embedding: ``bench/staged_scan.py`` measures
that, against the head scan, side by side."""

from __future__ import annotations

import numpy as np
import pytest

from groove.engines.vectors import cache as vectors
from groove.storage import migrations
from groove.storage.db import Index
from helpers import like_e5


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """60k rows of e5-small's width: past HEAD_MIN_ROWS (the tests lower
    LEAD_MIN_ROWS), and far past a CPU's cache, as a big vault's matrix is."""
    rng = np.random.default_rng(7)
    x = like_e5(60_040, 384, rng)
    idx = Index(tmp_path_factory.mktemp("staged") / "index.sqlite")
    with idx.atomic() as c:
        migrations.create_vec_tables(c, 384)
        c.executemany("INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)",
                      [(i + 1, v.tobytes()) for i, v in enumerate(x[:60_000])])
    yield idx, x[:60_000], x[60_000:]
    idx.close()


def _cache(idx: Index, lead: int, lead_min_rows: int = 1000) -> vectors.VectorCache:
    """A copy loaded with ``lead`` axes in its first pass (the head's width:
    no lead), past LEAD_MIN_ROWS by default."""
    was = vectors.MIN_ROWS, vectors.LEAD_DIMS, vectors.LEAD_MIN_ROWS
    vectors.MIN_ROWS, vectors.LEAD_DIMS, vectors.LEAD_MIN_ROWS = 1000, lead, lead_min_rows
    try:
        vc = vectors.VectorCache()
        vc.warm(idx.conn)
        return vc
    finally:
        vectors.MIN_ROWS, vectors.LEAD_DIMS, vectors.LEAD_MIN_ROWS = was


def test_the_first_pass_reads_a_contiguous_third_of_the_matrix(big):
    idx, rows, _ = big
    m = _cache(idx, vectors.LEAD_DIMS)._tables["vec_chunks"]
    assert [p.shape[1] for p in m.parts] == [128, 64, 192]
    assert all(p.flags.c_contiguous for p in m.parts)
    assert sum(p.nbytes for p in m.parts) == rows.nbytes  # no second copy
    assert m.parts[0].nbytes * 3 == rows.nbytes


def test_the_staged_scan_finds_what_the_head_scan_finds(big):
    """The first 20 of every query, as the exact scan and ADR 0133's head
    scan give them (but for float ties at the 20th); at k = 200 nearly all
    of the exact k."""
    idx, rows, queries = big
    staged, head = _cache(idx, vectors.LEAD_DIMS), _cache(idx, vectors.HEAD_DIMS)
    assert len(head._tables["vec_chunks"].parts) == 2 and len(staged._tables["vec_chunks"].parts) == 3
    recall = []
    for q in queries:
        scores = rows @ q
        exact = (np.argsort(-scores, kind="stable")[:200] + 1).tolist()
        first = {r for r in exact[:20] if scores[r - 1] > scores[exact[20] - 1] + 1e-6}
        got = [r for r, _ in staged.nearest(idx.conn, "vec_chunks", q.tobytes(), 200, None)]
        before = [r for r, _ in head.nearest(idx.conn, "vec_chunks", q.tobytes(), 200, None)]
        assert len(first) >= 18 and first <= set(got[:20]) and first <= set(before[:20])
        recall.append(len(set(got) & set(exact)) / 200)
    assert np.mean(recall) >= 0.98


def test_a_masked_row_never_comes_back_from_a_later_part(big):
    """Rows outside the filter are at -inf from the first pass on: no later
    part's score can lift them back, even when few rows are allowed."""
    idx, rows, queries = big
    staged = _cache(idx, vectors.LEAD_DIMS)
    allowed = set(range(1, 60_001, 997))
    for q in queries[:5]:
        hits = staged.nearest(idx.conn, "vec_chunks", q.tobytes(), 200, None,
                              excluded=set(range(1, 60_001)) - allowed)
        assert {r for r, _ in hits} == allowed  # all 61, nothing else


def test_a_table_under_lead_min_rows_keeps_the_head_scan(big):
    """Under LEAD_MIN_ROWS the lead's gathers would cost what its narrower
    pass saves (ADR 0222): such a table is scanned on its head, as in ADR 0133."""
    idx, rows, _ = big
    m = _cache(idx, vectors.LEAD_DIMS, lead_min_rows=len(rows) + 1)._tables["vec_chunks"]
    assert [p.shape[1] for p in m.parts] == [192, 192]
    assert vectors.HEAD_MIN_ROWS < vectors.LEAD_MIN_ROWS
