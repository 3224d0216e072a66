"""Browsing the index without a query: notes by folder/glob, tag and date,
the most recently modified notes, and the tags with their counts. Read by
the list_notes / recent_notes / list_tags operations (``groove.operations``)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from ..vault.encoding import nfc
from .db import Index

if TYPE_CHECKING:
    from ..wire.note_types import NoteEntry

SORTS = {
    "path": "d.path COLLATE NOCASE ASC",
    "title": "d.title COLLATE NOCASE ASC, d.path",
    "modified": "d.mtime_ns DESC, d.path",
    "date": "d.date IS NULL, d.date DESC, d.path",
}


@dataclass
class NoteRow:
    path: str
    title: str
    tags: list[str]
    date: str | None
    modified: float  # seconds since the epoch (the file's mtime when indexed)
    size: int

    def to_json(self) -> NoteEntry:
        return {"path": self.path, "title": self.title, "tags": self.tags, "date": self.date,
                "modified": self.modified, "size": self.size}


def _tags(raw: str | None) -> list[str]:
    try:
        return [str(t) for t in json.loads(raw or "[]")]
    except ValueError:
        return []


def _form(column: str, arg: str) -> str:
    """``column`` as compared with ``arg``: in NFC when the argument is not
    ASCII (an ASCII argument matches an ASCII prefix in either form, and the
    plain column keeps SQLite's index)."""
    return column if arg.isascii() else f"nfc({column})"


def _like_escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


@dataclass(frozen=True)
class NoteFilter:
    """Which notes a listing keeps, in which order, and which page of them.
    ``folder`` matches the folder and everything under it; ``glob`` is a
    gitignore-style pattern like the search's path_globs; dates compare the
    note's date (a daily note's day from its name, else its frontmatter date,
    ADR 0191), else the file's modification day (as search does). Notes in
    ``hidden`` (ids the vault's rules leave out now, ADR 0235) are not counted."""

    folder: str | None = None
    glob: str | None = None
    tag: str | None = None
    date_from: str | None = None
    date_to: str | None = None
    modified_after_ns: int | None = None
    hidden: frozenset[int] = frozenset()
    sort: str = "path"
    offset: int = 0
    limit: int = 50


def list_notes(idx: Index, f: NoteFilter) -> tuple[list[NoteRow], int]:
    """One page of the notes matching every filter ``f`` gives, and how many match in all."""
    folder, glob, tag, hidden = f.folder, f.glob, f.tag, f.hidden
    date_from, date_to, modified_after_ns = f.date_from, f.date_to, f.modified_after_ns
    sort, offset, limit = f.sort, f.offset, f.limit
    where: list[str] = [_not_in("d.id", hidden)] if hidden else []
    args: list[Any] = []
    # Names, globs and tags compare in one Unicode form (NFC, issue 35 F5): a
    # stored name that is not ASCII is normalised by SQL's nfc() (storage/db.py).
    if folder:
        prefix = nfc(folder.strip("/"))
        where.append(f"{_form('d.path', prefix)} LIKE ? ESCAPE '\\'")
        args.append(_like_escape(prefix) + "/%")
    if tag:
        # Compared case-folded without "#"; a parent tag takes its children (#a takes #a/b).
        t = nfc(tag.lstrip("#").lower())
        col = "lower(tag)" if t.isascii() else "tag_key(tag)"
        where.append(f"d.id IN (SELECT doc_id FROM tags WHERE {col} = ? OR {col} LIKE ? ESCAPE '\\')")
        args += [t, _like_escape(t) + "/%"]
    day = "coalesce(substr(d.date, 1, 10), date(d.mtime_ns / 1000000000, 'unixepoch', 'localtime'))"
    if date_from:
        where.append(f"{day} >= ?")
        args.append(date_from)
    if date_to:
        where.append(f"{day} <= ?")
        args.append(date_to)
    if modified_after_ns is not None:
        where.append("d.mtime_ns >= ?")
        args.append(int(modified_after_ns))
    cond = (" WHERE " + " AND ".join(where)) if where else ""
    c = idx.conn
    sql = f"SELECT d.path, d.title, d.tags, d.date, d.mtime_ns, d.size FROM documents d{cond} ORDER BY {SORTS[sort]}"
    rows: list[Any]
    if glob:  # gitignore semantics are not SQL's: filter here, then page
        import pathspec

        spec = pathspec.GitIgnoreSpec.from_lines([nfc(glob)])
        rows = [r for r in c.execute(sql, args) if spec.match_file(nfc(r[0]))]
        total, rows = len(rows), rows[offset:offset + limit]
    else:
        (total,) = c.execute(f"SELECT count(*) FROM documents d{cond}", args).fetchone() or (0,)
        rows = cast("list[Any]", c.execute(sql + " LIMIT ? OFFSET ?", (*args, int(limit), int(offset))).fetchall())
    return [NoteRow(p, t, _tags(tg), dt, m / 1e9, s) for p, t, tg, dt, m, s in rows], int(total)


def _not_in(column: str, ids: frozenset[int]) -> str:
    return f"{column} NOT IN ({','.join(str(int(i)) for i in sorted(ids))})"


def tag_counts(idx: Index, prefix: str | None = None,
               hidden: frozenset[int] = frozenset()) -> list[tuple[str, int]]:
    """(tag, number of notes) for every tag, most used first; notes in ``hidden`` not counted."""
    where, args = "", []
    if prefix:
        where, args = "WHERE t LIKE ? ESCAPE '\\'", [_like_escape(nfc(prefix.lstrip("#").lower())) + "%"]
    inner = f"FROM tags WHERE {_not_in('doc_id', hidden)}" if hidden else "FROM tags"
    # Case-folded like the search's tag filter: #Work and #work, #CAFÉ and #café, and a tag's two Unicode forms
    # are one tag.
    return [(t, int(n)) for t, n in idx.conn.execute(
        f"SELECT t, count(DISTINCT doc_id) AS n FROM (SELECT tag_key(tag) AS t, doc_id {inner}) {where} "
        "GROUP BY t ORDER BY n DESC, t", args)]
