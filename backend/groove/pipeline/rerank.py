"""Stage 2 (optional): cross-encoder reranking of the candidate pool.

The reranker sees the chunk with its contextual prefix (the same text the
embedder saw); when it runs, ``score`` becomes its raw score.
"""

from __future__ import annotations

from ..index.store import embed_text
from ..models.base import Reranker
from ..types import Candidate


def rerank_candidates(pool: list[Candidate], query: str, reranker: Reranker) -> tuple[list[Candidate], list[str]]:
    if not pool:
        return pool, []
    before = getattr(reranker, "truncated", 0)
    scores = reranker.score_pairs(query, [embed_text(c.context, c.content) for c in pool])
    for c, s in zip(pool, scores):
        c.score = float(s)
    warnings = []
    cut = getattr(reranker, "truncated", 0) - before
    if cut > 0:
        warnings.append(f"reranker: {cut} passage(s) longer than the model context were truncated")
    # Stable: equal scores keep the stage-1 order.
    return sorted(pool, key=lambda c: -c.score), warnings
