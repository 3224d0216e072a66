"""Filters (path globs, tags, dates, frontmatter properties) as a set of
allowed documents.

They are applied *inside* both legs before fusion (as ``rowid IN (...)``), so
a filter never empties a top-k that a post-filter would have thinned out.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import threading
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import pathspec

from ..engines.lexical.fts import match_ids_sql
from ..errors import InvalidArgument
from ..index.notes import documents_signature
from ..query import fts_phrase
from ..storage.chunks import chunks_of_notes_sql, filter_rows, notes_sql
from ..storage.db import Index
from ..vault.encoding import nfc
from .params import Resolved
from .where import condition_sql


@dataclass(frozen=True)
class Restriction:
    sql: str | None  # subquery yielding allowed chunk ids; None = no filter
    applied: dict[str, Any]
    # The allowed notes' ids, ascending (None = no filter). The in-memory
    # copies of a big vault (vectors, word index) mask their rows with it:
    # running ``sql`` back through SQLite cost them 20-60 ms a leg at 100k chunks.
    docs: np.ndarray | None = None

    @cached_property
    def doc_sql(self) -> str | None:
        """A subquery of the allowed notes' ids."""
        if self.docs is None:
            return None
        return notes_sql(self.docs.tolist())


def _date(s: str, name: str) -> str:
    try:
        return _dt.date.fromisoformat(s[:10]).isoformat()
    except ValueError:
        raise InvalidArgument(f"'{name}' must be a date like 2026-01-31, got {s!r}", param=name) from None


def _tag_match(doc_tags: AbstractSet[str], wanted: str) -> bool:
    w = nfc(wanted.lstrip("#").lower())
    return any(t == w or t.startswith(w + "/") for t in doc_tags)


def build_restriction(idx: Index, r: Resolved, hidden: frozenset[int] = frozenset()) -> Restriction:
    """The notes a search may return: the filters' and, always, none of
    ``hidden`` (indexed notes the vault's rules leave out now, ADR 0235),
    both applied inside every leg so ``limit`` still holds."""
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
    if r.where:
        applied["where"] = [w.written for w in r.where]
    if not applied and not hidden:
        return Restriction(None, {})
    try:
        spec = pathspec.GitIgnoreSpec.from_lines([nfc(g) for g in r.path_globs]) if r.path_globs else None
    except (ValueError, re.error) as e:  # pathspec's GitWildMatchPatternError; '[z-a]' fails in re
        raise InvalidArgument(f"'path_globs' holds a glob that cannot be read: {e}", param="path_globs") from e
    notes = _filter_notes(idx)
    ask = (tuple(r.path_globs), tuple(r.tags_any), tuple(r.tags_all), dfrom, dto,
           tuple((w.key, w.op, w.kind, w.value) for w in r.where), hidden)
    known = notes.answers.get(ask)
    if known is None:
        allowed = _judge(notes, spec, r, dfrom, dto, _with_properties(idx, notes, r), hidden)
        allowed.flags.writeable = False  # shared by every search that asks the same filter
        known = Restriction(chunks_of_notes_sql(allowed.tolist()), applied, allowed)
        with _ANSWERS_LOCK:  # the daemon's reader threads share the index's cache
            if len(notes.answers) >= _ANSWERS_KEPT:
                notes.answers.pop(next(iter(notes.answers)))
            notes.answers[ask] = known
    return known


_ANSWERS_KEPT = 32  # filters remembered per index version (an editor re-asks its folder's on every search)
_ANSWERS_LOCK = threading.Lock()


@dataclass
class _FilterNotes:
    """What filters judge, read and parsed once per index version: at 100k
    chunks (~8k notes) reading and parsing it took 15-30 ms a search."""

    key: tuple
    ids: list[int]
    paths: list[str]
    tags: list[frozenset[str]]  # lowercased
    days: list[str]  # the note's date (a daily note's day, ADR 0191), else its modification day (ISO)
    answers: dict[tuple, Restriction]  # a filter's restriction, by its parameters


def _filter_notes(idx: Index) -> _FilterNotes:
    key = documents_signature(idx)
    cached: _FilterNotes | None = idx.derived.get("filter_notes")
    if cached is not None and cached.key == key:
        return cached
    ids, paths, tags, days = [], [], [], []
    for doc_id, path, tags_json, date, mtime_ns in filter_rows(idx):
        ids.append(int(doc_id))
        paths.append(nfc(path))  # globs and tags are compared in one Unicode form (NFC)
        tags.append(frozenset(nfc(t.lower()) for t in json.loads(tags_json)))
        days.append(date or _dt.datetime.fromtimestamp(mtime_ns / 1e9).date().isoformat())
    notes = _FilterNotes(key, ids, paths, tags, days, {})
    idx.derived["filter_notes"] = notes
    return notes


def _with_properties(idx: Index, notes: _FilterNotes, r: Resolved) -> set[int] | None:
    """The notes every ``where`` condition holds for (None: no condition).
    Each is one read of an index on note_properties (schema m005)."""
    if not r.where:
        return None
    keep: set[int] | None = None
    for cond in r.where:
        sql, args = condition_sql(cond)
        hits = {row[0] for row in idx.conn.execute(sql, args)}
        if cond.op == "!=":  # every note that is not one of those, those without the property included
            hits = set(notes.ids) - hits
        keep = hits if keep is None else keep & hits
        if not keep:
            break
    return keep


def _judge(notes: _FilterNotes, spec: pathspec.GitIgnoreSpec | None, r: Resolved,
           dfrom: str | None, dto: str | None, props: set[int] | None, hidden: frozenset[int]) -> np.ndarray:
    allowed: list[int] = []
    for doc_id, path, tags, day in zip(notes.ids, notes.paths, notes.tags, notes.days):
        if doc_id in hidden or (props is not None and doc_id not in props):
            continue
        if spec and not spec.match_file(path):
            continue
        if r.tags_any and not any(_tag_match(tags, t) for t in r.tags_any):
            continue
        if r.tags_all and not all(_tag_match(tags, t) for t in r.tags_all):
            continue
        if (dfrom and day < dfrom) or (dto and day > dto):
            continue
        allowed.append(doc_id)
    return np.asarray(sorted(allowed), dtype=np.int64)


def require_phrases(idx: Index, restriction: Restriction, phrases: list[str]) -> Restriction:
    """``restriction`` narrowed to the notes holding every ``+"phrase"`` of the
    query (issue 48): an exclusion in reverse, at the note scope exclusions
    use by default (ADR-0071), read from the same full-text columns, and
    applied to every leg as a filter is. A query without one is unchanged."""
    if not phrases:
        return restriction
    keep: set[int] | None = None if restriction.docs is None else set(restriction.docs.tolist())
    for p in phrases:
        sql = f"SELECT DISTINCT doc_id FROM chunks WHERE id IN ({match_ids_sql()})"
        holders = {int(r[0]) for r in idx.conn.execute(sql, (fts_phrase(p),))}
        keep = holders if keep is None else keep & holders
    allowed = np.asarray(sorted(keep or ()), dtype=np.int64)
    allowed.flags.writeable = False
    applied = {**restriction.applied, "required_phrases": list(phrases)}
    return Restriction(chunks_of_notes_sql(allowed.tolist()), applied, allowed)
