"""What a search's ``explain`` objects hold: ``SearchHit.explain`` (why a hit
ranked where it did) and ``SearchResponse.confidence`` (why low_confidence
is what it is), as ``pipeline/explain.py`` and ``pipeline/confidence.py``
write them.

On the wire both stay typed loosely (``SearchHit.explain`` is an object in
the result's schema): they grow with the pipeline, and MCP clients validate
every hit against its schema. These declarations are what a reader of them
may rely on today; ``protocol.json`` lists them under ``types`` and the
plugins' ``protocol.ts`` carries them (ADR 0277).
"""

from __future__ import annotations

from typing import Literal

from typing_extensions import NotRequired, TypedDict


class LegExplain(TypedDict):
    """One retrieval leg's part in a hit's rank"""

    rank: int
    rrf: float
    cosine: NotRequired[float]
    coverage: NotRequired[float]


class HitLegs(TypedDict, total=False):
    """The stage-1 legs that found the hit, by name"""

    vector: LegExplain
    full_text: LegExplain
    title: LegExplain
    note: LegExplain
    sole_holder: LegExplain
    """The full-text leg's sole holder of a query word, ranked first (ADR 0221)"""
    named_note: LegExplain


class RerankExplain(TypedDict):
    score: float
    rank: int


class MmrExplain(TypedDict):
    rank_before: int | None
    rank_after: int


class HitExplain(TypedDict):
    """`SearchHit.explain`, as the pipeline writes it today (docs/protocol.md)"""

    legs: HitLegs
    fused_score: float
    stage1_rank: int
    rerank: NotRequired[RerankExplain]
    mmr: NotRequired[MmrExplain]
    final_rank: NotRequired[int]
    expanded: NotRequired[bool]


class ConfidenceExplain(TypedDict):
    """`SearchResponse.confidence`: why `low_confidence` is what it is; only when the search set `explain`"""

    low_confidence: bool
    rule: Literal["calibrated", "margin", "off", "empty", "no-vector"]
    score: NotRequired[float]
    threshold: NotRequired[float]
    best_passage_z: NotRequired[float]
    known_share: NotRequired[float]
    across_languages: NotRequired[bool]
    unknown_names: NotRequired[list[str]]
    named_note: NotRequired[bool]
    """A hit is the note the whole query names: never low (ADR 0251)"""


EXPLAIN = (LegExplain, HitLegs, RerankExplain, MmrExplain, HitExplain, ConfidenceExplain)
for _t in EXPLAIN:
    # A TypedDict class takes no attributes in its type, hence setattr.
    setattr(_t, "__pydantic_config__", {"use_attribute_docstrings": True})  # noqa: B010
