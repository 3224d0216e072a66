"""The in-memory vector copy (ADR 0121) answers exactly what sqlite-vec's KNN
answers, and is dropped the moment the index changes, whoever wrote it."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from groove import service
from groove.index import vectors
from groove.index.db import Index
from helpers import make_runtime

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "vault-small"
QUERIES = ["coffee beans", "東京の天気", "bread recipe flour", "sync my notes", "cats"]


@pytest.fixture
def indexed(tmp_path, tiny_embedder, monkeypatch):
    monkeypatch.setattr(vectors, "MIN_ROWS", 0)  # the fixture vault is far below the real threshold
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    service.reindex(rt)
    return rt, vault, tiny_embedder


def _sqlite_vec(idx: Index, table: str, blob: bytes, k: int, allowed: str | None = None) -> list[tuple[int, float]]:
    where = "embedding MATCH ? AND k = ?" + (f" AND rowid IN ({allowed})" if allowed else "")
    return [(r[0], r[1]) for r in idx.conn.execute(
        f"SELECT rowid, distance FROM {table} WHERE {where} ORDER BY distance", (blob, k))]


def _blob(emb, q: str) -> bytes:
    return np.ascontiguousarray(emb.embed_query(q), dtype=np.float32).tobytes()


def test_the_matrix_gives_sqlite_vecs_hits_and_distances(indexed):
    rt, _, emb = indexed
    idx = rt.index
    n = idx.conn.execute("SELECT count(*) FROM vec_chunks").fetchone()[0]
    assert n > 10
    for q in QUERIES:
        blob = _blob(emb, q)
        for k in (1, 5, n):
            assert idx.vectors.nearest(idx.conn, "vec_chunks", blob, k, None) == _sqlite_vec(idx, "vec_chunks", blob, k)
        allowed = "SELECT id FROM chunks WHERE id % 2 = 0"
        assert idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, allowed) == \
            _sqlite_vec(idx, "vec_chunks", blob, 3, allowed)
        assert idx.vectors.nearest(idx.conn, "vec_notes", blob, 4, None) == _sqlite_vec(idx, "vec_notes", blob, 4)


def test_excluded_rows_are_masked_in_memory_as_sqlite_vec_filters_them(indexed):
    """A note-wide exclusion (``-word``) reaches the copy as ids to mask, not
    as a list of every allowed id to read back (50 ms at 100k chunks)."""
    rt, _, emb = indexed
    idx = rt.index
    ids = [r[0] for r in idx.conn.execute("SELECT id FROM chunks ORDER BY id")]
    excluded = set(ids[::3])
    not_in = f"SELECT id FROM chunks WHERE id NOT IN ({','.join(map(str, excluded))})"
    for q in QUERIES:
        blob = _blob(emb, q)
        for k in (1, 5, len(ids)):
            got = idx.vectors.nearest(idx.conn, "vec_chunks", blob, k, None, excluded)
            assert got == _sqlite_vec(idx, "vec_chunks", blob, k, not_in)
            assert not excluded & {rid for rid, _ in got}
        both = "SELECT id FROM chunks WHERE id % 2 = 0"
        assert idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, both, excluded) == \
            _sqlite_vec(idx, "vec_chunks", blob, 3, f"{not_in} AND id IN ({both})")


def test_distances_of_named_rows_are_sqlite_vecs_own(indexed):
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
        assert dict(got) == want and len(got) == len(ids)
        assert idx.vectors.distances(idx.conn, "vec_notes", blob, []) == []


def test_a_small_table_is_left_to_sqlite_vec(indexed, monkeypatch):
    rt, _, emb = indexed
    monkeypatch.setattr(vectors, "MIN_ROWS", 10**9)
    fresh = vectors.VectorCache()
    assert fresh.nearest(rt.index.conn, "vec_chunks", _blob(emb, "coffee"), 5, None) is None


def test_the_note_table_is_copied_when_the_vault_has_enough_chunks_not_notes(indexed, monkeypatch):
    rt, _, emb = indexed
    idx = rt.index
    chunks = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
    notes = idx.conn.execute("SELECT count(*) FROM vec_notes").fetchone()[0]
    assert notes < chunks
    blob = _blob(emb, "coffee")
    monkeypatch.setattr(vectors, "MIN_ROWS", chunks)  # a big vault, with far fewer notes than that
    got = vectors.VectorCache().nearest(idx.conn, "vec_notes", blob, 3, None)
    assert got is not None and got == _sqlite_vec(idx, "vec_notes", blob, 3)
    monkeypatch.setattr(vectors, "MIN_ROWS", chunks + 1)
    assert vectors.VectorCache().nearest(idx.conn, "vec_notes", blob, 3, None) is None


def test_a_write_by_this_connection_or_another_drops_the_copy(indexed):
    rt, vault, emb = indexed
    idx = rt.index
    blob = _blob(emb, "zebra stripes savanna")
    before = idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None)

    (vault / "Zebra.md").write_text("# Zebra\n\nzebra stripes on the savanna\n", encoding="utf-8")
    service.reindex(rt)  # this process, this thread's connection
    after = idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None)
    assert after == _sqlite_vec(idx, "vec_chunks", blob, 3) and after != before

    other = Index(idx.path)  # another connection, as another process would write
    try:
        with other.atomic() as c:
            ids = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id = "
                                           "(SELECT id FROM documents WHERE path = 'Zebra.md')")]
            c.executemany("DELETE FROM vec_chunks WHERE rowid = ?", [(i,) for i in ids])
            c.execute(f"DELETE FROM chunks WHERE id IN ({','.join(map(str, ids))})")
    finally:
        other.close()
    gone = idx.vectors.nearest(idx.conn, "vec_chunks", blob, 3, None)
    assert gone == _sqlite_vec(idx, "vec_chunks", blob, 3)
    assert not set(r for r, _ in gone) & set(ids)
