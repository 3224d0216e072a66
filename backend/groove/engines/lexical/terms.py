"""The values one full-text question is made of, passed whole between the
lexical engine's parts instead of as long parameter lists (issue 51)."""

from __future__ import annotations

import dataclasses

from ..allowed import EVERY_ROW, Allowed

__all__ = ["EVERY_ROW", "Allowed", "RankedMatch"]


@dataclasses.dataclass(frozen=True)
class RankedMatch:
    """``(positives) NOT (negatives)`` ranked by bm25 over the ``kept``
    phrases (the positives not too common to rank, ADR 0012) with the
    column ``weights`` (heading, context, content)."""

    positives: list[str]
    kept: list[str]
    negatives: list[str]
    weights: tuple[float, float, float]
