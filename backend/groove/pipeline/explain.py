"""Why a hit ranked where it did: the ``explain`` object a search gives each
hit when asked (ADR 0123). Filled where each stage already has the numbers —
stage 1's ranked legs and RRF, the reranker's score, MMR's pick order, the
parent retriever's expansion — so an explained search returns the same hits
in the same order as one that is not, and costs nothing when off."""

from __future__ import annotations

from dataclasses import dataclass

from ..types import Candidate
from ..wire.search import SearchHit


@dataclass
class LegList:
    name: str  # "vector", "full_text", "title", "note", "sole_holder", "named_note"
    ids: list[int]  # chunk ids, best first
    weight: float
    votes: dict[int, float] | None  # the full-text leg's coverage scale per chunk


def explain_stage1(candidates: list[Candidate], legs: list[LegList], rrf_k: float,
                   cosines: dict[int, float]) -> None:
    """Each candidate's legs: rank, RRF contribution (weight · vote / (k + rank))."""
    ranks = [{cid: i for i, cid in enumerate(leg.ids, 1)} for leg in legs]
    for pos, c in enumerate(candidates, 1):
        found: dict[str, dict[str, float | int]] = {}
        for leg, rank_of in zip(legs, ranks):
            rank = rank_of.get(c.chunk_id)
            if rank is None:
                continue
            vote = 1.0 if leg.votes is None else leg.votes.get(c.chunk_id, 0.0)
            entry: dict[str, float | int] = {"rank": rank, "rrf": round(leg.weight * vote / (rrf_k + rank), 6)}
            if leg.votes is not None:
                entry["coverage"] = round(vote, 4)
            if leg.name == "vector" and c.chunk_id in cosines:
                entry["cosine"] = round(cosines[c.chunk_id], 4)
            found[leg.name] = entry
        c.explain = {"legs": found, "fused_score": round(c.score, 6), "stage1_rank": pos}


def explain_rerank(pool: list[Candidate]) -> None:
    """After the reranker: its score and the new position of each candidate."""
    for pos, c in enumerate(pool, 1):
        if c.explain is not None:
            c.explain["rerank"] = {"score": round(c.score, 6), "rank": pos}


def explain_mmr(before: list[Candidate], after: list[Candidate]) -> None:
    """MMR's pick order against the order it was given."""
    was = {c.chunk_id: i for i, c in enumerate(before, 1)}
    for pos, c in enumerate(after, 1):
        if c.explain is not None:
            c.explain["mmr"] = {"rank_before": was.get(c.chunk_id), "rank_after": pos}


def explain_hits(hits: list[SearchHit]) -> None:
    """The final rank, and whether the parent retriever widened the passage."""
    for h in hits:
        if h.explain is not None:
            h.explain["final_rank"] = h.rank
            h.explain["expanded"] = bool(h.expanded_from)
