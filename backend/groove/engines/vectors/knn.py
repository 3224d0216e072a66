"""The vector engine's entry points: the rows of a vec0 table nearest a query
vector, and the similarity of given rows to it, as cosines. A big table held
in memory (``cache.VectorCache``, ADR 0121) answers with sqlite-vec's own
distances; otherwise sqlite-vec's exact KNN does. Vectors are unit length,
so L2 order is cosine order."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import apsw
import numpy as np

from ..allowed import Allowed
from . import stored
from .cache import VectorCache


def cosine(d: float) -> float:
    """Vectors are unit length, so cos = 1 - d²/2 for their L2 distance d."""
    return 1.0 - d * d / 2.0


def as_blob(qvec: np.ndarray) -> bytes:
    """A query vector as sqlite-vec reads it (float32, contiguous)."""
    return np.ascontiguousarray(qvec, dtype=np.float32).tobytes()


def nearest(conn: apsw.Connection, copy: VectorCache, table: str, blob: bytes, k: int,
            allowed: Allowed, excluded: AbstractSet[int] | None = None) -> list[tuple[int, float]]:
    """Top-k (rowid, cosine) of a vec0 ``table`` by its exact KNN; under a
    filter the KNN is pre-filtered with ``rowid IN`` (ADR 0082): a flat
    cost, where scanning the allowed rows with ``vec_distance_l2`` grew with
    them (19 ms for a filter allowing 2,246 of 2,250 chunks, against 3 ms).
    In memory, ``excluded`` chunk ids (vec_chunks only) are masked, where
    sqlite-vec needs them as a ``NOT IN`` filter (listing 100k allowed ids
    cost 50 ms), and a filter is read from ``allowed.docs`` (the notes
    ``allowed.sql`` allows) when given."""
    allowed_sql = allowed.sql
    cached = copy.nearest(conn, table, blob, k, allowed_sql, excluded, allowed.docs)
    if cached is not None:
        return [(rid, cosine(d)) for rid, d in cached]
    if excluded:
        marks = ",".join(str(int(i)) for i in excluded)
        allowed_sql = f"SELECT id FROM chunks WHERE id NOT IN ({marks})" + (
            f" AND id IN ({allowed_sql})" if allowed_sql is not None else "")
    where = "embedding MATCH ? AND k = ?"
    if allowed_sql is not None:
        where += f" AND rowid IN ({allowed_sql})"
    rows = conn.execute(f"SELECT rowid, distance FROM {table} WHERE {where} ORDER BY distance", (blob, k))
    return [(r[0], cosine(r[1])) for r in rows]


def similarities(conn: apsw.Connection, copy: VectorCache, table: str, blob: bytes,
                 ids: list[int]) -> dict[int, float]:
    """cos(query, row) for the rows of ``table`` with these rowids."""
    cached = copy.distances(conn, table, blob, ids)
    if cached is not None:
        return {rid: cosine(d) for rid, d in cached}
    rows = conn.execute(f"SELECT rowid, vec_distance_l2(embedding, ?) FROM {table} "
                        f"WHERE rowid IN ({','.join(map(str, ids))})", (blob,))
    return {r[0]: cosine(r[1]) for r in rows}


def cosines(conn: apsw.Connection, copy: VectorCache, table: str, qvec: np.ndarray,
            ids: list[int]) -> dict[int, float]:
    """cos(query, row) for the rows of ``table`` with these rowids, as dot
    products of the stored vectors (``stored.rows``) when no copy is held:
    cheaper than ``similarities``' per-row ``vec_distance_l2``, within
    float32 rounding of it."""
    cached = copy.distances(conn, table, as_blob(qvec), ids)
    if cached is not None:
        return {rid: cosine(d) for rid, d in cached}
    found, vecs = stored.rows(conn, table, ids, stored.KEPT_CACHE_KIB if copy.kept else stored.ONE_SHOT_CACHE_KIB)
    if not found:
        return {}
    return dict(zip(found, (vecs @ np.asarray(qvec, dtype=np.float32)).tolist()))
