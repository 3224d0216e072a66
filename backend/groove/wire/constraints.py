"""The constrained types the wire shapes name in their annotations
(``wire.search``' results, ``pipeline.params.SearchParams``), and the
bounds on what a caller may send.

``wire.search`` is read by every surface, the CLI's daemon path among them,
which only reads a SearchResponse off the socket and never builds a schema;
importing annotated_types and typing_extensions there cost 7 ms of a cold
`groove search` (issue 16). So ``wire.search`` and ``pipeline.params``
reach this module through a proxy that imports it the first time an
annotation is evaluated (by pydantic or ``typing.get_type_hints``). It
imports nothing of groove but the bound table.
"""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge, Interval, MinLen
from pydantic import Field
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypeAliasType

from .bounds import MAX_FILTER_ITEMS, MAX_PATH_CHARS, MAX_PATTERN_CHARS, MAX_QUERY_CHARS

__all__ = ["ByteSpan", "Date", "Field", "Ge", "Glob", "Interval", "LineRange", "MAX_FILTER_ITEMS", "MAX_INT",
           "MAX_PATH_CHARS", "MAX_PATTERN_CHARS", "MAX_QUERY_CHARS", "MinLen", "NonNeg", "SkipJsonSchema", "Tag",
           "Unit", "Where"]

# Named so the schemas carry them as $defs.
ByteSpan = TypeAliasType("ByteSpan", tuple[Annotated[int, Ge(0)], Annotated[int, Ge(0)]])
LineRange = TypeAliasType("LineRange", tuple[Annotated[int, Ge(1)], Annotated[int, Ge(1)]])

MAX_INT = 2**53 - 1  # the largest integer every JSON reader (JavaScript's among them) holds exactly
NonNeg = Annotated[int, Field(ge=0, le=MAX_INT)]
Unit = Annotated[float, Field(ge=0, le=1)]
Date = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}")]
# Bounds on what a caller may send: the one table (bounds.py, ADR 0153).
Glob = Annotated[str, Field(max_length=MAX_PATTERN_CHARS)]
Tag = Annotated[str, Field(max_length=MAX_PATTERN_CHARS)]
Where = Annotated[str, Field(max_length=MAX_PATTERN_CHARS)]  # key=value, key<value, ... (pipeline/where.py)
