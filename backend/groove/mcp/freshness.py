"""Is the index there, and does it match the notes on disk? (ADR 0115)

Checked before every tool that reads the index, at most every few seconds
(a stat of every note, no reading). A vault never indexed gets an answer
that says what to do instead of a database error. In standalone mode a few
changed notes (``AUTO_REINDEX_MAX``) are re-indexed before the search runs,
so a note the user just edited is found as it is now; more than that is
reported in the response's warnings with the call that fixes it. Attached
to a daemon, its watcher keeps the index fresh: pending changes are
reported, not redone here."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from .. import operations
from ..errors import GrooveError
from .backend import Backend

log = logging.getLogger("groove.mcp")

AUTO_REINDEX_MAX = 20
CHECK_EVERY_S = 2.0
SHOWN = 5


class NotIndexed(GrooveError):
    """The vault's index holds no notes while the vault has some."""


class Freshness:
    def __init__(self, backend: Backend) -> None:
        self.backend = backend
        self._lock = threading.Lock()
        self._checked = 0.0
        self._warnings: list[str] = []
        self.reindexed: list[str] = []  # notes re-indexed by the last check, for the response

    def check(self) -> list[str]:
        """Warnings for the next response; raises NotIndexed when there is nothing to search."""
        with self._lock:
            now = time.monotonic()
            if now - self._checked < CHECK_EVERY_S:
                return list(self._warnings)
            self._warnings = self._check()
            self._checked = time.monotonic()
            return list(self._warnings)

    def forget(self) -> None:
        """After a reindex: check again on the next call."""
        with self._lock:
            self._checked = 0.0

    def _check(self) -> list[str]:
        st = self.backend.call("index_status", {})
        stale = st.get("stale_files") or 0
        paths: list[str] = st.get("stale_paths") or []
        warnings = list(st.get("warnings") or [])
        if self.backend.mode == "daemon":
            if st["documents"] == 0:
                raise NotIndexed(_never_indexed(st, indexing=bool(st.get("indexing"))))
            pending = st.get("pending_changes") or 0
            if st.get("indexing") or pending:
                warnings.append(f"the index is being updated ({pending or stale} changed notes pending); "
                                "results may miss the latest edits")
            elif stale and not st.get("watching"):
                warnings.append(_stale_warning(stale, paths))
            return warnings
        rt = self.backend.rt
        if rt is not None and indexed_on_demand(st, self.backend.mode):
            try:
                summary = operations.reindex(rt, only=set(paths))
            except GrooveError as e:
                warnings.append(f"could not re-index {stale} changed notes: {e}")
            else:
                log.info("re-indexed %d changed notes before the call: %s", stale, summary.to_json())
                return warnings
        if st["documents"] == 0:
            raise NotIndexed(_never_indexed(st, indexing=False))
        if stale:
            warnings.append(_stale_warning(stale, paths))
        return warnings


def indexed_on_demand(st: dict[str, Any], mode: str) -> bool:
    """Whether the next call re-indexes the changed notes itself: standalone,
    and few enough that the call stays short (a never-indexed vault of a
    few notes included)."""
    stale = st.get("stale_files") or 0
    return mode == "standalone" and 0 < stale <= AUTO_REINDEX_MAX and len(st.get("stale_paths") or []) == stale


def not_indexed_summary(st: dict[str, Any], mode: str, who: str = "The vault") -> str:
    """The server instructions' line for a vault whose index holds no note,
    saying what the first call will do (ADR 0253)."""
    n = st.get("stale_files") or 0
    if st.get("indexing"):
        return f"{who} is being indexed right now (index_status shows progress); searches fail until it is done."
    if indexed_on_demand(st, mode):
        return (f"{who} is not indexed yet: its {n} notes are indexed by the first search "
                "(a few seconds), or call `reindex`.")
    if mode == "standalone" and n == 0:
        return f"{who} holds no notes yet: there is nothing to search."
    return (f"{who} is NOT indexed yet{f' ({n:,} notes on disk)' if n else ''}: call `reindex` first (it reports "
            "progress), or the user runs `groove index`; until then every search answers with that advice.")


def _stale_warning(n: int, paths: list[str]) -> str:
    shown = ", ".join(repr(p) for p in paths[:SHOWN]) + (" …" if n > SHOWN else "")
    return (f"{n} notes changed on disk since the last index ({shown}); results may be out of date: "
            "call the reindex tool to update")


def _never_indexed(st: dict[str, Any], *, indexing: bool) -> str:
    vault = st.get("vault") or "the vault"
    n = st.get("stale_files")
    if indexing:
        return f"the index of {vault} is being built right now; try again in a minute (index_status shows progress)"
    on_disk = f" ({n} notes on disk)" if n else ""
    return (f"this vault has not been indexed yet{on_disk}. Call the reindex tool to index it now (it reports "
            f"progress), or run `groove index \"{vault}\"` in a terminal; then search again.")
