"""The constrained types that ``groove.types`` names in its annotations.

``groove.types`` is read by every surface, the CLI's daemon path among them,
which only reads a SearchResponse off the socket and never builds a schema;
importing annotated_types and typing_extensions there cost 7 ms of a cold
`groove search` (issue 16). So ``groove.types`` reaches this module through
a proxy that imports it the first time an annotation is evaluated (by
pydantic or ``typing.get_type_hints``). It imports nothing of groove.
"""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge, Interval, MinLen
from typing_extensions import TypeAliasType

__all__ = ["ByteSpan", "Ge", "Interval", "LineRange", "MinLen"]

# Named so the schemas carry them as $defs.
ByteSpan = TypeAliasType("ByteSpan", tuple[Annotated[int, Ge(0)], Annotated[int, Ge(0)]])
LineRange = TypeAliasType("LineRange", tuple[Annotated[int, Ge(1)], Annotated[int, Ge(1)]])
