"""Operations for a client that browses rather than searches: list_notes,
recent_notes, list_tags (ADR 0115). The note operations are ``notes.py``."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from typing import Any

from ..errors import InvalidArgument
from ..index.rules_now import left_out
from ..runtime import Runtime
from ..storage import listing
from ..storage.listing import NoteFilter  # what a listing keeps, one definition (storage's)
from ..wire.bounds import MAX_PATH_CHARS, MAX_PATTERN_CHARS
from ..wire.note_types import NotePage, TagList

MAX_PAGE = 200
DAY_S = 86_400


def _int(name: str, v: Any, lo: int, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidArgument(f"'{name}' must be an integer, got {v!r}", param=name)
    if v < lo or (hi is not None and v > hi):
        raise InvalidArgument(f"'{name}' must be between {lo} and {hi}, got {v}" if hi is not None
                              else f"'{name}' must be at least {lo}, got {v}", param=name)
    return v


def _hidden(rt: Runtime) -> frozenset[int]:
    """The indexed notes the vault's rules leave out now: never listed nor counted (ADR 0235)."""
    return left_out(rt.index, rt.vault).ids


def _page(rows: list[listing.NoteRow], total: int, offset: int) -> NotePage:
    nxt = offset + len(rows)
    return {"notes": [r.to_json() for r in rows], "total": total, "offset": offset,
            "next_offset": nxt if nxt < total else None}


def list_notes(rt: Runtime, where: NoteFilter | None = None) -> NotePage:
    """A page of the indexed notes: ``{notes: [{path, title, tags, date, modified, size}],
    total, offset, next_offset}`` (next_offset null on the last page). ``where``
    is the storage's own filter; the notes the vault's rules leave out now
    are added to it here."""
    where = where or NoteFilter()
    if where.sort not in listing.SORTS:
        raise InvalidArgument(f"'sort' must be one of {', '.join(listing.SORTS)}, got {where.sort!r}", param="sort")
    offset, limit = _int("offset", where.offset, 0), _int("limit", where.limit, 1, MAX_PAGE)
    for name, v, most in (("folder", where.folder, MAX_PATH_CHARS), ("glob", where.glob, MAX_PATTERN_CHARS),
                          ("tag", where.tag, MAX_PATTERN_CHARS)):
        if isinstance(v, str) and len(v) > most:  # the bound table (bounds.py), for callers of the core
            raise InvalidArgument(f"'{name}' is longer than {most:,} characters", param=name)
    try:
        rows, total = listing.list_notes(rt.index, replace(where, offset=offset, limit=limit, hidden=_hidden(rt)))
    except (ValueError, re.error) as e:  # pathspec refuses the pattern, or its regex cannot compile ('[z-a]')
        raise InvalidArgument(f"'glob' cannot be read: {e}", param="glob") from e
    return _page(rows, total, offset)


def recent_notes(rt: Runtime, days: float = 7, offset: int = 0, limit: int = 20,
                 folder: str | None = None) -> NotePage:
    """Notes modified in the last ``days`` days (by the file's mtime), newest first; list_notes' shape."""
    if isinstance(days, bool) or not isinstance(days, (int, float)) or days <= 0:
        raise InvalidArgument(f"'days' must be a number above 0, got {days!r}", param="days")
    offset, limit = _int("offset", offset, 0), _int("limit", limit, 1, MAX_PAGE)
    since = int((time.time() - float(days) * DAY_S) * 1e9)
    rows, total = listing.list_notes(rt.index, listing.NoteFilter(
        folder=folder, modified_after_ns=since, sort="modified", offset=offset, limit=limit, hidden=_hidden(rt)))
    return _page(rows, total, offset)


def list_tags(rt: Runtime, prefix: str | None = None, limit: int = 100) -> TagList:
    """``{tags: [{tag, count}], total}``: tags (folded to lower case) by number of notes."""
    limit = _int("limit", limit, 1, 1000)
    counts = listing.tag_counts(rt.index, prefix, _hidden(rt))
    return {"tags": [{"tag": t, "count": n} for t, n in counts[:limit]], "total": len(counts)}
