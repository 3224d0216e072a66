"""Operations for a client that browses rather than searches (list_notes,
recent_notes, list_tags), and the note operations as the operation table
serves them: ``get_document`` with did-you-mean suggestions, ``resolve_link``
that says when the heading or block it names is missing, ``related_notes``
with each link once. ADR 0115."""

from __future__ import annotations

import difflib
import posixpath
import time
from typing import Any

from . import notes
from .bounds import MAX_PATH_CHARS, MAX_PATTERN_CHARS
from .errors import InvalidArgument, NoteNotFound
from .index import listing
from .index.notes import note_names
from .runtime import Runtime
from .vault.gate import read_rules
from .vault.links import strip_md

MAX_PAGE = 200
MAX_SUGGESTIONS = 5
DAY_S = 86_400


def _int(name: str, v: Any, lo: int, hi: int | None = None) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidArgument(f"'{name}' must be an integer, got {v!r}", param=name)
    if v < lo or (hi is not None and v > hi):
        raise InvalidArgument(f"'{name}' must be between {lo} and {hi}, got {v}" if hi is not None
                              else f"'{name}' must be at least {lo}, got {v}", param=name)
    return v


def _page(rows: list[listing.NoteRow], total: int, offset: int) -> dict[str, Any]:
    nxt = offset + len(rows)
    return {"notes": [r.to_json() for r in rows], "total": total, "offset": offset,
            "next_offset": nxt if nxt < total else None}


def list_notes(
    rt: Runtime,
    folder: str | None = None,
    glob: str | None = None,
    tag: str | None = None,
    date_from: str | None = None,
    date_to: str | None = None,
    sort: str = "path",
    offset: int = 0,
    limit: int = 50,
) -> dict[str, Any]:
    """A page of the indexed notes: ``{notes: [{path, title, tags, date, modified, size}],
    total, offset, next_offset}`` (next_offset null on the last page)."""
    if sort not in listing.SORTS:
        raise InvalidArgument(f"'sort' must be one of {', '.join(listing.SORTS)}, got {sort!r}", param="sort")
    offset, limit = _int("offset", offset, 0), _int("limit", limit, 1, MAX_PAGE)
    for name, v, most in (("folder", folder, MAX_PATH_CHARS), ("glob", glob, MAX_PATTERN_CHARS),
                          ("tag", tag, MAX_PATTERN_CHARS)):
        if isinstance(v, str) and len(v) > most:  # the bound table (bounds.py), for callers of the core
            raise InvalidArgument(f"'{name}' is longer than {most:,} characters", param=name)
    try:
        rows, total = listing.list_notes(rt.index, folder=folder, glob=glob, tag=tag, date_from=date_from,
                                         date_to=date_to, sort=sort, offset=offset, limit=limit)
    except ValueError as e:  # pathspec refuses the pattern
        raise InvalidArgument(f"'glob' cannot be read: {e}", param="glob") from e
    return _page(rows, total, offset)


def recent_notes(rt: Runtime, days: float = 7, offset: int = 0, limit: int = 20,
                 folder: str | None = None) -> dict[str, Any]:
    """Notes modified in the last ``days`` days (by the file's mtime), newest first; list_notes' shape."""
    if isinstance(days, bool) or not isinstance(days, (int, float)) or days <= 0:
        raise InvalidArgument(f"'days' must be a number above 0, got {days!r}", param="days")
    offset, limit = _int("offset", offset, 0), _int("limit", limit, 1, MAX_PAGE)
    since = int((time.time() - float(days) * DAY_S) * 1e9)
    rows, total = listing.list_notes(rt.index, folder=folder, modified_after_ns=since, sort="modified",
                                     offset=offset, limit=limit)
    return _page(rows, total, offset)


def list_tags(rt: Runtime, prefix: str | None = None, limit: int = 100) -> dict[str, Any]:
    """``{tags: [{tag, count}], total}``: tags (folded to lower case) by number of notes."""
    limit = _int("limit", limit, 1, 1000)
    counts = listing.tag_counts(rt.index, prefix)
    return {"tags": [{"tag": t, "count": n} for t, n in counts[:limit]], "total": len(counts)}


# ----------------------------------------------------------------------------- note operations, refined


def suggestions(rt: Runtime, wanted: str, n: int = MAX_SUGGESTIONS) -> list[str]:
    """Indexed note paths close to ``wanted``: the same name in another
    folder first, then names that are spelled alike (by the note's name, not
    its folder, which is what people misremember)."""
    key = strip_md(posixpath.basename(wanted.strip().strip("/"))).casefold()
    if not key:
        return []
    names = note_names(rt.index)
    by_stem: dict[str, list[str]] = {}
    for d in names:
        by_stem.setdefault(strip_md(posixpath.basename(d.path)).casefold(), []).append(d.path)
        for a in d.aliases:
            by_stem.setdefault(a.casefold(), []).append(d.path)
    out: list[str] = list(by_stem.get(key, []))
    for stem in difflib.get_close_matches(key, list(by_stem), n=n * 2, cutoff=0.6):
        out += by_stem[stem]
    if len(out) < n:  # a word of the name: 'Hotkeys' for 'Obsidian hotkeys.md'
        out += [p for s, ps in by_stem.items() if len(key) >= 3 and key in s for p in ps]
    rules = read_rules(rt.vault)  # an index older than the rules must not point at what they leave out
    return [p for p in dict.fromkeys(out) if not rules.skips(p)][:n]


def get_document(rt: Runtime, path: str, line_start: int | None = None, line_end: int | None = None,
                 heading: str | None = None, max_chars: int | None = None) -> dict[str, Any]:
    """notes.get_document; a path that names no note says which notes it may have meant."""
    kw: dict[str, Any] = {} if max_chars is None else {"max_chars": _int("max_chars", max_chars, 100)}
    try:
        return notes.get_document(rt, path, line_start, line_end, heading, **kw)
    except NoteNotFound as e:
        near = suggestions(rt, path) if isinstance(path, str) else []
        if not near:
            raise
        raise NoteNotFound(f"{e}. Did you mean: {', '.join(repr(p) for p in near)}?") from e


def resolve_link(rt: Runtime, link: str, from_path: str | None = None) -> dict[str, Any]:
    """notes.resolve_link plus ``anchor_found``: false when the note exists but
    the heading or block the link names does not (null when it names none)."""
    r = notes.resolve_link(rt, link, from_path)
    anchored = bool(r.get("heading") or r.get("block"))
    r["anchor_found"] = (r["line_range"] is not None) if (anchored and r["exists"]) else None
    if r["anchor_found"] is False:
        what = f"heading {r['heading']!r}" if r.get("heading") else f"block ^{r['block']}"
        r["warning"] = f"'{r['path']}' exists but has no {what}; read the whole note with get_document"
    return r


def related_notes(rt: Runtime, path: str | None = None, limit: int = 10, chunk_id: int | None = None) -> dict[str, Any]:
    """notes.related_notes with each backlinking note and each outgoing link
    target once (the first line it appears on, and how often)."""
    r = notes.related_notes(rt, path, limit, chunk_id=chunk_id)
    r["backlinks"] = _once(r["backlinks"], lambda b: b["path"])
    r["outgoing"] = _once(r["outgoing"], lambda o: (o["path"] or o["target"].casefold(), o["heading"]))
    return r


def _once(items: list[dict[str, Any]], key: Any) -> list[dict[str, Any]]:
    seen: dict[Any, dict[str, Any]] = {}
    for it in items:
        k = key(it)
        if k in seen:
            seen[k]["occurrences"] += 1
        else:
            seen[k] = {**it, "occurrences": 1}
    return list(seen.values())
