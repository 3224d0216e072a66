"""Retrieval metrics over a ranked list of documents. Pure functions.

The pipeline returns chunks; a golden entry names documents. Chunks are
collapsed to documents in rank order, first occurrence wins, *before*
scoring — otherwise three chunks of one right note would count as three hits.

Relevance: ``expected`` paths are fully relevant (gain 1.0), ``partial`` ones
half (0.5). Only nDCG uses grades; recall, hit and MRR look at ``expected``
only. Expected paths the vault does not have stay in the denominators: the
golden file says they answer the query, so a run that cannot reach them is
scored as missing them (the runner warns and counts them as unreachable).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

RECALL_AT = (1, 5, 10)
HIT_AT = (1, 3, 5)
NDCG_AT = (5, 10)
PARTIAL_GAIN = 0.5

NOTE = "hits are chunks, collapsed to notes (first occurrence wins) before scoring"


def metric_names(k: int) -> list[str]:
    """The metrics reported for retrieval depth ``k`` (cut-offs above k are dropped)."""
    names = [f"recall@{c}" for c in RECALL_AT if c <= k]
    names += [f"hit@{c}" for c in HIT_AT if c <= k]
    names.append("mrr")
    names += [f"ndcg@{c}" for c in NDCG_AT if c <= k]
    return names


def collapse_to_documents(paths: Iterable[str]) -> list[str]:
    """Chunk paths in rank order → distinct documents in rank order."""
    seen: set[str] = set()
    out: list[str] = []
    for p in paths:
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def recall_at(docs: Sequence[str], expected: Sequence[str], k: int) -> float:
    if not expected:
        return 0.0
    top = set(docs[:k])
    return sum(1 for e in set(expected) if e in top) / len(set(expected))


def hit_at(docs: Sequence[str], expected: Sequence[str], k: int) -> float:
    exp = set(expected)
    return 1.0 if any(d in exp for d in docs[:k]) else 0.0


def reciprocal_rank(docs: Sequence[str], expected: Sequence[str]) -> float:
    exp = set(expected)
    for i, d in enumerate(docs, start=1):
        if d in exp:
            return 1.0 / i
    return 0.0


def _dcg(gains: Sequence[float]) -> float:
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))


def ndcg_at(docs: Sequence[str], expected: Sequence[str], partial: Sequence[str], k: int) -> float:
    """Graded nDCG@k: expected 1.0, partial 0.5; the ideal list is all expected, then all partial."""
    exp = set(expected)
    par = set(partial) - exp
    gain = {**{p: PARTIAL_GAIN for p in par}, **{e: 1.0 for e in exp}}
    ideal = _dcg(([1.0] * len(exp) + [PARTIAL_GAIN] * len(par))[:k])
    if ideal == 0:
        return 0.0
    return _dcg([gain.get(d, 0.0) for d in docs[:k]]) / ideal


def expected_ranks(docs: Sequence[str], expected: Sequence[str]) -> dict[str, int | None]:
    """1-based document rank of each expected path, None when not retrieved."""
    pos = {d: i for i, d in enumerate(docs, start=1)}
    return {e: pos.get(e) for e in expected}


def score_query(docs: Sequence[str], expected: Sequence[str], partial: Sequence[str], k: int) -> dict[str, float]:
    """Every metric for one query; ``docs`` already collapsed, cut to depth ``k``."""
    docs = list(docs)[:k]
    out: dict[str, float] = {}
    for c in RECALL_AT:
        if c <= k:
            out[f"recall@{c}"] = recall_at(docs, expected, c)
    for c in HIT_AT:
        if c <= k:
            out[f"hit@{c}"] = hit_at(docs, expected, c)
    out["mrr"] = reciprocal_rank(docs, expected)
    for c in NDCG_AT:
        if c <= k:
            out[f"ndcg@{c}"] = ndcg_at(docs, expected, partial, c)
    return out


@dataclass(frozen=True)
class Aggregate:
    n: int
    means: dict[str, float]


def mean_metrics(rows: Sequence[Mapping[str, float]]) -> Aggregate:
    if not rows:
        return Aggregate(0, {})
    names = list(rows[0].keys())
    return Aggregate(len(rows), {m: sum(r[m] for r in rows) / len(rows) for m in names})


def group_means(rows: Sequence[tuple[str, Mapping[str, float]]]) -> dict[str, Aggregate]:
    """Mean metrics per group label, labels in first-seen order."""
    groups: dict[str, list[Mapping[str, float]]] = {}
    for label, m in rows:
        groups.setdefault(label, []).append(m)
    return {label: mean_metrics(ms) for label, ms in groups.items()}
