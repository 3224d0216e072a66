"""The constrained types that ``groove.types`` names in its annotations.

``groove.types`` is read by every surface, the CLI's daemon path among
them, which only reads a SearchResponse off the socket and never builds a
schema. Its annotations are postponed (strings), so the constraint types
need not exist until pydantic evaluates them; importing annotated_types and
typing_extensions there cost 7 ms of a cold `groove search` (issue 16).

Importing this module binds the names into ``groove.types``' namespace,
where pydantic resolves the strings. ``schemas.models`` imports it, and
every schema of ``groove.types``' classes (protocol.json, MCP's output
schemas) is built through ``schemas.models``.
"""

from __future__ import annotations

from typing import Annotated

from annotated_types import Ge, Interval, MinLen
from typing_extensions import TypeAliasType

from .. import types

# Named so the schemas carry them as $defs.
ByteSpan = TypeAliasType("ByteSpan", tuple[Annotated[int, Ge(0)], Annotated[int, Ge(0)]])
LineRange = TypeAliasType("LineRange", tuple[Annotated[int, Ge(1)], Annotated[int, Ge(1)]])

vars(types).update(Ge=Ge, Interval=Interval, MinLen=MinLen, ByteSpan=ByteSpan, LineRange=LineRange)
