"""``groove.wire.constraints`` as a proxy that imports it on first use (ADR 0171).

The wire types (``search``, ``pipeline.params``, ``status_types``) name their
bounds as ``constraints.X`` in annotations that are only evaluated when a
schema is built (pydantic, ``typing.get_type_hints``): the socket client's
path never evaluates one, so it never loads annotated_types or pydantic.
Those modules import ``constraints`` from here at run time and the real
module under ``TYPE_CHECKING``."""

from __future__ import annotations

from typing import Any


class _Constraints:
    def __getattr__(self, name: str) -> Any:
        from . import constraints

        return getattr(constraints, name)


constraints: Any = _Constraints()
