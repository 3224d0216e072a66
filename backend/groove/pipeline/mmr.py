"""Stage 3 (optional): MMR diversity selection over the candidate pool.

Greedy: pick the candidate maximising
``λ·rel − (1−λ)·max_cos_sim(c, picked) − same_doc_penalty·[doc(c) picked]``.
``rel`` is the stage-2 score min-max normalised over the pool, so λ means the
same for RRF scores (≈0.01) and reranker scores (≈±10). Similarities use the
stored chunk embeddings (sqlite-vec), vectorised with numpy: no per-pair
Python loop.
"""

from __future__ import annotations

import numpy as np

from ..storage.db import Index
from ..types import Candidate


def mmr_select(
    rel: np.ndarray, emb: np.ndarray, doc_ids: list[int], lam: float, same_doc_penalty: float, limit: int
) -> list[int]:
    """Indices into the pool, in pick order (at most ``limit``). Pure.

    ``rel``: the stage-2 scores; ``emb``: one embedding row per candidate (a
    zero row, e.g. a chunk without a vector, is similar to nothing). Ties go
    to the earlier candidate, so with ``lam = 1`` the pool order comes back.
    Cost: ``limit`` vectorised passes over the pool, one matrix-vector product each.
    """
    n = len(rel)
    if n == 0 or limit <= 0:
        return []
    rel = np.asarray(rel, dtype=np.float64)
    lo, hi = float(rel.min()), float(rel.max())
    # All scores equal: every candidate is equally relevant, only diversity decides.
    norm = (rel - lo) / (hi - lo) if hi > lo else np.ones(n)
    # Normalise in float64 (tiny norms underflow in float32), then take the
    # products in float32: float64 BLAS was ~35x slower here for a 250-pool,
    # and the similarities only feed a greedy argmax.
    e64 = np.asarray(emb, dtype=np.float64).reshape(n, -1)
    lens = np.linalg.norm(e64, axis=1, keepdims=True)
    e = (e64 / np.where(lens == 0, 1.0, lens)).astype(np.float32)
    docs = np.asarray(doc_ids)
    gain = lam * norm
    max_sim = np.zeros(n)  # nothing picked yet: no redundancy term
    doc_picked = np.zeros(n, dtype=bool)
    available = np.ones(n, dtype=bool)
    picked: list[int] = []
    for step in range(min(limit, n)):
        score = gain - (1.0 - lam) * max_sim - same_doc_penalty * doc_picked
        score[~available] = -np.inf
        i = int(np.argmax(score))  # argmax returns the first maximum: stage-2 order breaks ties
        picked.append(i)
        available[i] = False
        sim_i = e @ e[i]  # one row per pick: limit matrix-vector products, not an n×n matrix
        max_sim = sim_i.astype(np.float64) if step == 0 else np.maximum(max_sim, sim_i)
        doc_picked |= docs == docs[i]
    return picked


def load_embeddings(idx: Index, chunk_ids: list[int]) -> np.ndarray:
    """The stored vectors of ``chunk_ids`` from sqlite-vec, one row each, in
    that order; a chunk without a vector gets a zero row. A big vault's
    in-memory copy answers instead when current (rotated: the same dot
    products, ``VectorCache.vectors_of``)."""
    if not chunk_ids or not idx.has_vec_table():
        return np.zeros((len(chunk_ids), 1), dtype=np.float32)
    held = idx.vectors.vectors_of(idx.conn, "vec_chunks", chunk_ids)  # a big vault's in-memory copy
    if held is not None:
        return held
    marks = ",".join(str(int(i)) for i in chunk_ids)
    rows = dict(idx.conn.execute(f"SELECT rowid, embedding FROM vec_chunks WHERE rowid IN ({marks})"))
    if not rows:
        return np.zeros((len(chunk_ids), 1), dtype=np.float32)
    dim = len(next(iter(rows.values()))) // 4
    zero = bytes(4 * dim)
    # One buffer, one frombuffer: cheaper than stacking n small arrays.
    blob = b"".join(rows.get(c, zero) for c in chunk_ids)
    return np.frombuffer(blob, dtype=np.float32).reshape(len(chunk_ids), dim)


def apply_mmr(idx: Index, pool: list[Candidate], lam: float, same_doc_penalty: float, limit: int) -> list[Candidate]:
    """The ``limit`` candidates MMR picks from ``pool``, in pick order; scores unchanged."""
    if not pool:
        return pool
    emb = load_embeddings(idx, [c.chunk_id for c in pool])
    order = mmr_select(np.array([c.score for c in pool]), emb, [c.doc_id for c in pool], lam, same_doc_penalty, limit)
    return [pool[i] for i in order]
