"""The rows a search filter allows, as both engines take it."""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True)
class Allowed:
    """The rows a filter allows: ``sql``, a subquery of allowed chunk ids
    (None: every row) with its ``params``; ``docs``, the allowed notes' ids
    ascending, which lets the in-memory indexes mask their rows instead of
    running ``sql`` back through SQLite."""

    sql: str | None = None
    params: tuple = ()
    docs: np.ndarray | None = None

    @property
    def docs_if_filtered(self) -> np.ndarray | None:
        """``docs`` when there is a filter, else None."""
        return self.docs if self.sql is not None else None

    @property
    def in_memory(self) -> bool:
        """Whether the in-memory indexes can apply this filter (no filter, or its notes are known)."""
        return self.sql is None or self.docs is not None


EVERY_ROW = Allowed()
