"""The in-memory vector copy (ADR 0121) answers what sqlite-vec's KNN
answers (the same rows in the same order, distances equal within float
rounding), its head scan (ADR 0133) misses only rows near the k-th score,
and the copy is dropped the moment the index changes, whoever wrote it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from groove import operations
from groove.engines.chunk_set import ChunkSet
from groove.engines.vectors import cache as vectors
from groove.storage.db import Index
from helpers import like_e5, make_runtime

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "vault-small"
QUERIES = ["coffee beans", "東京の天気", "bread recipe flour", "sync my notes", "cats"]


@pytest.fixture
def indexed(tmp_path, tiny_embedder, monkeypatch):
    monkeypatch.setattr(vectors, "MIN_ROWS", 0)  # the fixture vault is far below the real threshold
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    rt.index.vectors.warm(rt.index.conn)
    return rt, vault, tiny_embedder


def _sqlite_vec(idx: Index, table: str, blob: bytes, k: int, allowed: str | None = None) -> list[tuple[int, float]]:
    where = "embedding MATCH ? AND k = ?" + (f" AND rowid IN ({allowed})" if allowed else "")
    return [(r[0], r[1]) for r in idx.conn.execute(
        f"SELECT rowid, distance FROM {table} WHERE {where} ORDER BY distance", (blob, k))]


def same(got: list[tuple[int, float]] | None, want: list[tuple[int, float]]) -> bool:
    """The same rows in the same order, distances equal but for float rounding."""
    return got is not None and [r for r, _ in got] == [r for r, _ in want] and \
        all(abs(a - b) < 1e-6 for (_, a), (_, b) in zip(got, want))


def _blob(emb, q: str) -> bytes:
    return np.ascontiguousarray(emb.embed_query(q), dtype=np.float32).tobytes()


def test_the_matrix_gives_sqlite_vecs_hits_and_distances(indexed):
    rt, _, emb = indexed
    idx = rt.index
    assert idx.conn.execute("SELECT count(*) FROM vec_chunks").fetchone()[0] > 10
    for q in QUERIES:
        blob = _blob(emb, q)
        _chunk_knns_are_sqlite_vecs(idx, blob)
        assert same(idx.vectors.nearest(idx.conn, "vec_notes", blob, 4, None), _sqlite_vec(idx, "vec_notes", blob, 4))


def _chunk_knns_are_sqlite_vecs(idx: Index, blob: bytes) -> None:
    """The copy's chunk KNN at depths 1, 5 and all, and filtered, against sqlite-vec's."""
    n = idx.conn.execute("SELECT count(*) FROM vec_chunks").fetchone()[0]
    for k in (1, 5, n):
        assert same(idx.vectors.nearest(idx.conn, "vec_chunks", blob, k, None), _sqlite_vec(idx, "vec_chunks", blob, k))
    allowed = "SELECT id FROM chunks WHERE id % 2 = 0"
    assert same(idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, allowed),
                _sqlite_vec(idx, "vec_chunks", blob, 3, allowed))


@pytest.mark.parametrize("held_as", [set, lambda ids: ChunkSet(np.fromiter(ids, dtype=np.int64))],
                         ids=["set", "ChunkSet"])
def test_excluded_rows_are_masked_in_memory_as_sqlite_vec_filters_them(indexed, held_as):
    """A note-wide exclusion (``-word``) reaches the copy as ids to mask, not
    as a list of every allowed id to read back (50 ms at 100k chunks); the
    word index hands it over as a ChunkSet."""
    rt, _, emb = indexed
    idx = rt.index
    ids = [r[0] for r in idx.conn.execute("SELECT id FROM chunks ORDER BY id")]
    excluded = held_as(ids[::3])
    not_in = f"SELECT id FROM chunks WHERE id NOT IN ({','.join(map(str, excluded))})"
    for q in QUERIES:
        blob = _blob(emb, q)
        for k in (1, 5, len(ids)):
            got = idx.vectors.nearest(idx.conn, "vec_chunks", blob, k, None, excluded)
            assert same(got, _sqlite_vec(idx, "vec_chunks", blob, k, not_in))
            assert not set(excluded) & {rid for rid, _ in got}
        both = "SELECT id FROM chunks WHERE id % 2 = 0"
        assert same(idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, both, excluded),
                    _sqlite_vec(idx, "vec_chunks", blob, 3, f"{not_in} AND id IN ({both})"))


def test_distances_of_named_rows_are_sqlite_vecs(indexed):
    """The note-aware leg looks up the notes outside the nearest ones by id;
    the copy gives sqlite-vec's distances for them, unknown ids left out."""
    rt, _, emb = indexed
    idx = rt.index
    ids = [r[0] for r in idx.conn.execute("SELECT rowid FROM vec_notes ORDER BY rowid DESC")]
    for q in QUERIES:
        blob = _blob(emb, q)
        want = dict(idx.conn.execute(
            f"SELECT rowid, vec_distance_l2(embedding, ?) FROM vec_notes WHERE rowid IN ({','.join(map(str, ids))})",
            (blob,)))
        got = idx.vectors.distances(idx.conn, "vec_notes", blob, ids[::2] + [10**9, -5] + ids[1::2])
        assert len(got) == len(ids) and all(abs(d - want[r]) < 1e-6 for r, d in got)
        assert idx.vectors.distances(idx.conn, "vec_notes", blob, []) == []


def test_a_small_table_is_left_to_sqlite_vec(indexed, monkeypatch):
    rt, _, emb = indexed
    monkeypatch.setattr(vectors, "MIN_ROWS", 10**9)
    fresh = vectors.VectorCache()
    fresh.warm(rt.index.conn)
    assert fresh.nearest(rt.index.conn, "vec_chunks", _blob(emb, "coffee"), 5, None) is None


def test_the_note_table_is_copied_when_the_vault_has_enough_chunks_not_notes(indexed, monkeypatch):
    rt, _, emb = indexed
    idx = rt.index
    chunks = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    notes = idx.conn.execute("SELECT count(*) FROM vec_notes").fetchone()[0]
    assert notes < chunks
    blob = _blob(emb, "coffee")
    monkeypatch.setattr(vectors, "MIN_ROWS", chunks)  # a big vault, with far fewer notes than that
    cache = vectors.VectorCache()
    cache.warm(idx.conn)
    assert same(cache.nearest(idx.conn, "vec_notes", blob, 3, None), _sqlite_vec(idx, "vec_notes", blob, 3))
    monkeypatch.setattr(vectors, "MIN_ROWS", chunks + 1)
    cache.warm(idx.conn)
    assert cache.nearest(idx.conn, "vec_notes", blob, 3, None) is None


def _loaded(idx: Index, timeout: float = 20.0) -> None:
    """Wait for the background load a stale copy started."""
    import time

    end = time.monotonic() + timeout
    while idx.vectors._matrix(idx.conn, "vec_chunks") is None:
        assert time.monotonic() < end, "the vector copy never loaded"
        time.sleep(0.02)


def test_a_write_by_this_connection_or_another_drops_the_copy_and_a_kept_copy_reloads(indexed, monkeypatch):
    """A stale copy is never read: sqlite-vec answers (None here) until the
    copy, reloaded on a thread of its own, matches the rows again."""
    rt, vault, emb = indexed
    idx = rt.index
    monkeypatch.setattr(vectors, "MIN_ROWS", 0)
    idx.keep_vectors()
    blob = _blob(emb, "zebra stripes savanna")
    before = idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None)
    assert before is not None

    (vault / "Zebra.md").write_text("# Zebra\n\nzebra stripes on the savanna\n", encoding="utf-8")
    operations.reindex(rt)  # this process, this thread's connection
    assert idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None) is None
    _loaded(idx)
    after = idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None)
    assert same(after, _sqlite_vec(idx, "vec_chunks", blob, 3)) and after != before

    other = Index(idx.path)  # another connection, as another process would write
    try:
        with other.atomic() as c:
            ids = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id = "
                                           "(SELECT id FROM documents WHERE path = 'Zebra.md')")]
            c.executemany("DELETE FROM vec_chunks WHERE rowid = ?", [(i,) for i in ids])
            c.execute(f"DELETE FROM chunks WHERE id IN ({','.join(map(str, ids))})")
    finally:
        other.close()
    assert idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None) is None
    monkeypatch.setattr(idx.vectors, "_next_load_at", 0.0)  # no spacing wait in a test
    _loaded(idx)
    gone = idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None)
    assert same(gone, _sqlite_vec(idx, "vec_chunks", blob, 3))
    assert not set(r for r, _ in gone) & set(ids)


def test_index_status_says_whether_the_vector_copy_serves(indexed, monkeypatch):
    rt, _, _ = indexed
    monkeypatch.setattr(vectors, "MIN_ROWS", 0)
    fresh = Index(rt.index.path)
    saved, rt.index = rt.index, fresh
    try:
        st = operations.index_status(rt)["vector_copy"]
        assert st["state"] == "off" and st["rows"] is None  # a one-shot process keeps none
        fresh.keep_vectors()
        assert operations.index_status(rt)["vector_copy"]["state"] in ("loading", "ready")
        _loaded(fresh)
        st = operations.index_status(rt)["vector_copy"]
        chunks = fresh.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        assert st["state"] == "ready" and st["rows"] == chunks and st["megabytes"] >= 0 and st["load_seconds"] >= 0
        assert st["head_scan"] is False  # far under HEAD_MIN_ROWS
        with fresh.atomic() as c:  # any row change makes it stale
            c.execute("UPDATE documents SET title = title || ' ' WHERE id = (SELECT min(id) FROM documents)")
        assert operations.index_status(rt)["vector_copy"]["state"] in ("stale", "loading")
        monkeypatch.setattr(vectors, "MIN_ROWS", 10**9)
        monkeypatch.setattr(fresh.vectors, "_next_load_at", 0.0)
        fresh.vectors.load_if_stale(fresh.conn)
        deadline = time.monotonic() + 20
        while operations.index_status(rt)["vector_copy"]["state"] != "small" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert operations.index_status(rt)["vector_copy"]["state"] == "small"
    finally:
        rt.index = saved
        fresh.close()


def test_a_one_shot_process_never_loads_a_copy(indexed, monkeypatch):
    """Without ``keep_vectors`` (a one-shot CLI run) a search never pays for
    the load: sqlite-vec answers. ``[index] vector_copy = false`` does the
    same for a long-lived process (the MCP server's setting:
    test_word_postings.py)."""
    rt, _, emb = indexed
    monkeypatch.setattr(vectors, "MIN_ROWS", 0)
    fresh = Index(rt.index.path)
    try:
        blob = _blob(emb, "coffee")
        for _ in range(3):
            assert fresh.vectors.nearest(fresh.conn, "vec_chunks", blob, 3, None) is None
        assert not fresh.vectors._loading and not fresh.vectors._tables
        fresh.keep_vectors(False)
        assert fresh.vectors.nearest(fresh.conn, "vec_chunks", blob, 3, None) is None
        assert not fresh.vectors._loading
    finally:
        fresh.close()


def test_the_head_scan_is_exact_when_its_candidates_cover_the_table(indexed, monkeypatch):
    """In principal axes (ADR 0133) the copy holds the same bytes, split into
    head and tail; when the re-scored candidates reach every row, the hits are
    sqlite-vec's, filtered or not, and so are named rows' distances."""
    rt, _, emb = indexed
    idx = rt.index
    monkeypatch.setattr(vectors, "HEAD_MIN_ROWS", 0)
    monkeypatch.setattr(vectors, "LEAD_MIN_ROWS", 0)
    monkeypatch.setattr(vectors, "HEAD_DIMS", 8)  # of the test model's 32
    monkeypatch.setattr(vectors, "LEAD_DIMS", 4)
    idx.vectors.warm(idx.conn)
    n = idx.conn.execute("SELECT count(*) FROM vec_chunks").fetchone()[0]
    m = idx.vectors._matrix(idx.conn, "vec_chunks")
    assert m is not None and [p.shape for p in m.parts] == [(n, 4), (n, 4), (n, 24)]
    assert m.basis is not None and np.allclose(m.basis.T @ m.basis, np.eye(32), atol=1e-5)
    ids = [r[0] for r in idx.conn.execute("SELECT id FROM chunks ORDER BY id")]
    for q in QUERIES:
        blob = _blob(emb, q)
        _chunk_knns_are_sqlite_vecs(idx, blob)
        want = dict(idx.conn.execute("SELECT rowid, vec_distance_l2(embedding, ?) FROM vec_chunks", (blob,)))
        got = idx.vectors.distances(idx.conn, "vec_chunks", blob, ids[::-1])
        assert len(got) == len(ids) and all(abs(d - want[r]) < 1e-6 for r, d in got)


def test_the_copy_knows_each_chunks_note(indexed):
    """The note-aware leg's chunk -> note lookups come from the copy."""
    rt, _, _ = indexed
    idx = rt.index
    want = dict(idx.conn.execute("SELECT id, doc_id FROM chunks"))
    ids = sorted(want)[::-1] + [10**9]
    assert idx.vectors.notes_of(idx.conn, ids) == want


def test_the_head_scan_misses_only_rows_near_the_kth_score(tmp_path, monkeypatch):
    """A table past HEAD_MIN_ROWS is scanned on its leading axes only, then
    re-scored in full. On vectors shaped like e5's, the nearest rows always
    come back in order; what it may miss is the rare row near the k-th score."""
    from groove.storage import migrations

    n, dim, k = 30_000, 96, 200
    monkeypatch.setattr(vectors, "MIN_ROWS", 1000)
    monkeypatch.setattr(vectors, "HEAD_MIN_ROWS", 1000)
    monkeypatch.setattr(vectors, "LEAD_MIN_ROWS", 1000)
    monkeypatch.setattr(vectors, "HEAD_DIMS", 48)  # half, as 192 of e5-small's 384
    monkeypatch.setattr(vectors, "LEAD_DIMS", 24)  # a quarter, as 96
    rng = np.random.default_rng(4)
    x = like_e5(n + 30, dim, rng)
    rows, queries = x[:n], x[n:]
    idx = Index(tmp_path / "index.sqlite")
    try:
        with idx.atomic() as c:
            migrations.create_vec_tables(c, dim)
            c.executemany("INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)",
                          [(i + 1, v.tobytes()) for i, v in enumerate(rows)])
        idx.vectors.warm(idx.conn)
        # No second copy kept:
        m = idx.vectors._matrix(idx.conn, "vec_chunks")
        assert m is not None and len(m.parts) == 3 and sum(p.nbytes for p in m.parts) == rows.nbytes
        found = []
        for q in queries:
            scores = rows @ q
            exact = np.argsort(-scores, kind="stable")[:k] + 1
            hits = idx.vectors.nearest(idx.conn, "vec_chunks", q.tobytes(), k, None)
            got = [rid for rid, _ in hits]
            # The 20 nearest, in order but for float rounding between near-equal distances.
            assert set(got[:20]) == set(exact[:20].tolist())
            cosines = [1.0 - d * d / 2.0 for _, d in hits[:20]]  # as the pipeline reads them
            assert np.allclose(cosines, scores[exact[:20] - 1], atol=1e-6)
            found.append(len(set(got) & set(exact.tolist())) / k)
        assert np.mean(found) >= 0.98
    finally:
        idx.close()


_IDLE_AFTER_SCAN = """
import time
from groove.engines.vectors import cache as vectors  # groove imported before numpy, as in groove
import numpy as np
m = np.random.default_rng(0).standard_normal((60_000, vectors.HEAD_DIMS), dtype=np.float32)
q = m[0].copy()
for _ in range(3):
    m @ q
time.sleep(0.01)
cpu = time.process_time()
time.sleep(0.3)
print(time.process_time() - cpu)
"""


def _cpu_while_idle(env: dict[str, str]) -> float:
    """CPU seconds a fresh process burns in the 0.3 s after a few head-sized scans."""
    # This process imported groove, which set the variable: the child decides afresh.
    base = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_THREAD_TIMEOUT", "GOTO_THREAD_TIMEOUT")}
    out = subprocess.run([sys.executable, "-c", _IDLE_AFTER_SCAN], env={**base, **env}, capture_output=True,
                         text=True, timeout=120, check=True)
    return float(out.stdout.strip())


def test_a_scan_leaves_no_blas_thread_spinning_after_it():
    """OpenBLAS's default keeps its threads spinning ~0.1 s after each call:
    a core taken from the next search's embedding (ADR 0135). groove's
    processes let them sleep within a few ms."""
    spinning = _cpu_while_idle({"OPENBLAS_THREAD_TIMEOUT": "28"})  # OpenBLAS's own default
    if spinning < 0.03:
        pytest.skip(f"numpy's BLAS does not spin here ({spinning * 1000:.0f} ms of CPU while idle): "
                    "one core, or not OpenBLAS")
    assert _cpu_while_idle({}) < spinning / 4
