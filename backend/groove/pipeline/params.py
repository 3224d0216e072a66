"""Search parameters as the pipeline runs them.

``SearchParams`` (``wire/search.py``) is their one definition on the wire;
adding a parameter is a field there (its bound, and its docstring as its
description), the stage that reads it, and its test. Fields left
``None`` fall back to ``groove.toml``; ``resolve_params`` turns them into a
``Resolved`` with every value concrete, validated and clamped — in one
place, so no surface can skip a check.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from ..config import FusionConfig, SearchConfig, mmr_lambda_warning
from ..errors import InvalidArgument
from ..wire.bounds import MAX_FILTER_ITEMS, MAX_LIMIT, MAX_PATTERN_CHARS, MAX_QUERY_CHARS
from ..wire.search import SearchParams
from .where import Condition, parse_where


@dataclass(frozen=True)
class Resolved:
    query: str
    limit: int
    rerank: bool
    reranker: str  # "" when none configured
    reranker_explicit: bool
    mmr: bool
    mmr_lambda: float
    mmr_same_doc_penalty: float
    parent_retriever: bool
    whole_doc_threshold_tokens: int
    max_expanded_tokens: int
    min_confidence_ratio: float
    candidates: int
    fusion: FusionConfig  # stage 1's knobs, as groove.toml set them
    short_cjk: bool
    exclusion_scope: str
    legs: str
    path_globs: tuple[str, ...] = ()
    tags_any: tuple[str, ...] = ()
    tags_all: tuple[str, ...] = ()
    date_from: str | None = None
    date_to: str | None = None
    where: tuple[Condition, ...] = ()
    warnings: tuple[str, ...] = field(default=())
    # low_confidence (pipeline/confidence.py): the calibrated rule unless the
    # request names a min_confidence_ratio, which asks for the margin rule.
    confidence_rule: str = "calibrated"
    identifier_phrases: bool = True  # ADR 0142 (issue 36)
    hangul_split: bool = True  # ADR 0224 (issue 37)
    low_confidence_threshold: float = 0.75
    answer_spans: bool = True  # pipeline/answers.py marks each hit's answering sentence(s)

    @property
    def pool_size(self) -> int:
        """Candidates handed to stages 2-3 (docs/design.md §1.3): the parent retriever
        never changes it."""
        if self.mmr:
            return max(self.limit * 5, 50)
        if self.rerank:
            return self.limit * 5
        return self.limit


def _check_unit(name: str, v: float) -> float:
    if not 0.0 <= v <= 1.0:
        raise InvalidArgument(f"'{name}' must be between 0 and 1, got {v!r}", param=name)
    return v


def check_bounds(p: SearchParams) -> None:
    """The bound table (bounds.py), checked before any work: a surface that
    calls the core directly (the CLI, a standalone MCP server) is bounded as
    the daemon's schema bounds its callers."""
    if not isinstance(p.query, str):
        raise InvalidArgument(f"'query' must be a string, got {type(p.query).__name__}", param="query")
    if len(p.query) > MAX_QUERY_CHARS:
        raise InvalidArgument(f"'query' is {len(p.query):,} characters; at most {MAX_QUERY_CHARS:,} are accepted "
                              "(search for its key sentences instead)", param="query")
    for name in ("path_globs", "tags_any", "tags_all", "where"):
        items = getattr(p, name)
        if len(items) > MAX_FILTER_ITEMS:
            raise InvalidArgument(f"'{name}' has {len(items):,} items; at most {MAX_FILTER_ITEMS} are accepted",
                                  param=name)
        for it in items:
            if not isinstance(it, str) or len(it) > MAX_PATTERN_CHARS:
                raise InvalidArgument(f"each of '{name}' must be a string of at most {MAX_PATTERN_CHARS:,} "
                                      "characters", param=name)


def resolve_params(p: SearchParams, cfg: SearchConfig, *, max_limit: int | None = MAX_LIMIT) -> Resolved:
    """``p`` over groove.toml, checked and clamped. ``max_limit`` is the one
    hit limit of every surface (bounds.MAX_LIMIT); only eval lifts it (None),
    and the KNN depth is capped where it is asked (pipeline/fusion.py)."""
    check_bounds(p)
    warnings: list[str] = []
    limit = cfg.limit if p.limit is None else int(p.limit)
    if limit < 1:
        raise InvalidArgument(f"'limit' must be at least 1, got {limit}", param="limit")
    if max_limit is not None and limit > max_limit:
        warnings.append(f"limit {limit} is above the maximum {max_limit}; using {max_limit}")
        limit = max_limit
    reranker = p.reranker or cfg.reranker
    explicit = bool(p.reranker)
    if explicit:
        rerank = True if p.rerank is None else bool(p.rerank)
    elif p.rerank is None:
        rerank = bool(cfg.reranker) and cfg.rerank_by_default
    else:
        rerank = bool(p.rerank)
    mmr = cfg.mmr.enabled if p.mmr is None else bool(p.mmr)
    lam = _check_unit("mmr_lambda", cfg.mmr.lambda_ if p.mmr_lambda is None else float(p.mmr_lambda))
    pen = cfg.mmr.same_doc_penalty if p.mmr_same_doc_penalty is None else float(p.mmr_same_doc_penalty)
    if pen < 0:
        raise InvalidArgument(f"'mmr_same_doc_penalty' must be >= 0, got {pen!r}", param="mmr_same_doc_penalty")
    footgun = mmr_lambda_warning(mmr, lam, where="MMR on", fix="turn MMR off or lower lambda")
    if footgun:
        warnings.append(footgun)
    mcr = _check_unit(
        "min_confidence_ratio",
        cfg.min_confidence_ratio if p.min_confidence_ratio is None else float(p.min_confidence_ratio),
    )
    if p.legs not in ("hybrid", "vector", "fts"):
        raise InvalidArgument(f"'legs' must be hybrid, vector or fts, got {p.legs!r}", param="legs")
    return Resolved(
        query=p.query,
        limit=limit,
        rerank=rerank,
        reranker=reranker,
        reranker_explicit=explicit,
        mmr=mmr,
        mmr_lambda=lam,
        mmr_same_doc_penalty=pen,
        parent_retriever=cfg.parent_retriever.enabled if p.parent_retriever is None else bool(p.parent_retriever),
        whole_doc_threshold_tokens=cfg.parent_retriever.whole_doc_threshold_tokens,
        max_expanded_tokens=cfg.parent_retriever.max_expanded_tokens,
        min_confidence_ratio=mcr,
        candidates=max(cfg.candidates, limit * 5),
        fusion=cfg.fusion,
        short_cjk=cfg.query.short_cjk,
        identifier_phrases=cfg.query.identifier_phrases,
        hangul_split=cfg.query.hangul_split,
        exclusion_scope=cfg.exclusion_scope,
        legs=p.legs,
        path_globs=tuple(p.path_globs),
        tags_any=tuple(p.tags_any),
        tags_all=tuple(p.tags_all),
        date_from=p.date_from,
        date_to=p.date_to,
        where=parse_where(tuple(p.where)),
        warnings=tuple(warnings),
        confidence_rule="calibrated" if p.min_confidence_ratio is None else "margin",
        answer_spans=p.answer_spans is not False,
        low_confidence_threshold=cfg.low_confidence_threshold,
    )


def with_overrides(cfg: SearchConfig, **kw) -> SearchConfig:
    """A copy of ``cfg`` with fusion knobs replaced (used by tune)."""
    fusion = dataclasses.replace(cfg.fusion, **{k: v for k, v in kw.items() if hasattr(cfg.fusion, k)})
    return dataclasses.replace(cfg, fusion=fusion)
