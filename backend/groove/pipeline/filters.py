"""Filters (path globs, tags, dates) as a set of allowed documents.

They are applied *inside* both legs before fusion (as ``rowid IN (...)``), so
a filter never empties a top-k that a post-filter would have thinned out.
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Any

import pathspec

from ..errors import InvalidArgument
from ..index.chunks import chunks_of_notes_sql, filter_rows
from ..index.db import Index
from .params import Resolved


@dataclass(frozen=True)
class Restriction:
    sql: str | None  # subquery yielding allowed chunk ids; None = no filter
    applied: dict[str, Any]


def _date(s: str, name: str) -> str:
    try:
        return _dt.date.fromisoformat(s[:10]).isoformat()
    except ValueError:
        raise InvalidArgument(f"'{name}' must be a date like 2026-01-31, got {s!r}", param=name) from None


def _tag_match(doc_tags: set[str], wanted: str) -> bool:
    w = wanted.lstrip("#").lower()
    return any(t == w or t.startswith(w + "/") for t in doc_tags)


def build_restriction(idx: Index, r: Resolved) -> Restriction:
    applied: dict[str, Any] = {}
    if r.path_globs:
        applied["path_globs"] = list(r.path_globs)
    if r.tags_any:
        applied["tags_any"] = list(r.tags_any)
    if r.tags_all:
        applied["tags_all"] = list(r.tags_all)
    dfrom = _date(r.date_from, "date_from") if r.date_from else None
    dto = _date(r.date_to, "date_to") if r.date_to else None
    if dfrom:
        applied["date_from"] = dfrom
    if dto:
        applied["date_to"] = dto
    if not applied:
        return Restriction(None, {})
    try:
        spec = pathspec.GitIgnoreSpec.from_lines(r.path_globs) if r.path_globs else None
    except ValueError as e:  # pathspec's GitWildMatchPatternError
        raise InvalidArgument(f"'path_globs' holds a glob that cannot be read: {e}", param="path_globs") from e
    allowed: list[int] = []
    for doc_id, path, tags_json, date, mtime_ns in filter_rows(idx):
        if spec and not spec.match_file(path):
            continue
        if r.tags_any or r.tags_all:
            tags = {t.lower() for t in json.loads(tags_json)}
            if r.tags_any and not any(_tag_match(tags, t) for t in r.tags_any):
                continue
            if r.tags_all and not all(_tag_match(tags, t) for t in r.tags_all):
                continue
        if dfrom or dto:
            d = date or _dt.datetime.fromtimestamp(mtime_ns / 1e9).date().isoformat()
            if (dfrom and d < dfrom) or (dto and d > dto):
                continue
        allowed.append(int(doc_id))
    return Restriction(chunks_of_notes_sql(allowed), applied)
