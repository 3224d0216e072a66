"""Section evidence for notes on the normal vector path (issue 49, ADR 0265):
a note's vector score is ``(1 - w) * summary + w * best section``, its
summary vector's cosine blended with the best cosine among its own chunks.

``index/space.py`` computes the same score for every note of the vault from
an exact in-memory copy of both tables. Here only the notes that can reach
the note leg's top are scored: the nearest notes by summary (the note leg's
own KNN) and the notes of the nearest chunks (the chunk leg's KNN), both
already computed by the search. A note outside both has a summary below the
note leg's last and every section below the chunk leg's last, so it scores
at most ``(1 - w) * s_k + w * c_n``; the candidates' top rarely reaches down
there (docs/eval.md compares both on every set).

A candidate's best section is read from its own chunks' vectors only (the
in-memory copy when loaded, else sqlite-vec by rowid). A note with a chunk
among the nearest chunks needs no read when those are the exact top of the
whole table (no exclusion, no chunk-level filter): its other chunks are
further from the query than that one.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engines.vectors import knn
from ..storage import chunks
from ..storage.db import Index


def doc_ids(idx: Index, chunk_ids: list[int]) -> dict[int, int]:
    """chunk id -> note id: from a big vault's vector copy (ADR 0133), else SQLite."""
    known = idx.vectors.notes_of(idx.conn, chunk_ids)
    if known is None:
        return chunks.doc_ids(idx, chunk_ids)
    missing = [c for c in chunk_ids if c not in known]
    if missing:  # a chunk without a vector: not expected, but SQLite knows
        known.update(chunks.doc_ids(idx, missing))
    return known


@dataclass
class SectionScores:
    notes: list[tuple[int, float]]  # (note id, blended score), best first
    doc_of: dict[int, int]  # the hits' chunk id -> note id, as looked up


def with_sections(idx: Index, qvec: np.ndarray, near: list[tuple[int, float]], hits: list[tuple[int, float]],
                  weight: float, k: int, hits_exact: bool) -> SectionScores:
    """The candidate notes with their blended scores, best first (ties by
    note id, as ``space.py`` orders them): every note of ``hits``, and the
    notes of ``near`` that can reach the first ``k``. ``near``: the nearest
    notes by summary, with cosines; ``hits``: the nearest chunks, with
    cosines; ``hits_exact``: ``hits`` are the top of every chunk of their
    notes (no exclusion, no chunk-level filter)."""
    of = doc_ids(idx, [cid for cid, _ in hits])
    best: dict[int, float] = {}
    for cid, sim in hits:
        d = of.get(cid)
        if d is not None and sim > best.get(d, -np.inf):
            best[d] = sim
    summary = dict(near)
    docs = list(dict.fromkeys([d for d, _ in near] + list(best)))
    missing = [d for d in docs if d not in summary]
    if missing:
        summary.update(knn.cosines(idx.conn, idx.vectors, "vec_notes", qvec, sorted(missing)))

    def blend(d: int) -> float:
        return (1 - weight) * summary[d] + weight * best[d] if d in best else summary[d]

    read = [d for d in docs if d in summary and not (hits_exact and d in best)]
    if hits_exact and read and hits:
        # A note without a chunk among the hits has every section below the
        # last hit: it is read only if that bound could still reach the k-th.
        known = sorted((blend(d) for d in best if d in summary), reverse=True)
        if len(known) >= k:
            floor, last = known[k - 1], min(sim for _, sim in hits)
            dropped = {d for d in read if (1 - weight) * summary[d] + weight * last < floor}
            docs = [d for d in docs if d not in dropped]
            read = [d for d in read if d not in dropped]
    if read:
        note_of = dict(chunks.chunks_of_notes(idx, read))
        for cid, sim in knn.cosines(idx.conn, idx.vectors, "vec_chunks", qvec, sorted(note_of)).items():
            d = note_of[cid]
            if sim > best.get(d, -np.inf):
                best[d] = sim
    scored = [(d, blend(d)) for d in docs if d in summary]
    return SectionScores(sorted(scored, key=lambda ds: (-ds[1], ds[0])), of)
