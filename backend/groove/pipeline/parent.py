"""Stage 4 (optional): the parent retriever rewrites small hits' content.

* a hit under ``whole_doc_threshold_tokens`` becomes its whole note,
* any other hit absorbs adjacent siblings (same note, same level, same
  parent heading),
both capped at ``max_expanded_tokens``. Invariants: score, rank, path and
order never change; the hit's own chunk is always included; ``content`` is
the concatenation, in file order, of the ranges listed in ``expanded_from``
(so an editor maps a content offset to the file piece by piece). Rows with
NULL ``token_count`` (written before the column was filled) count what
``tokens.estimate_tokens`` says, so the cap holds for them too. Exclusions are not re-checked on
the expanded text (docs/design.md §1.2).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..storage.chunks import note_chunk_rows
from ..storage.db import Index
from ..tokens import estimate_tokens
from ..wire.search import ExpandedRange, SearchHit


@dataclass(frozen=True)
class _Row:
    id: int
    level: int
    heading_path: str  # JSON, decoded only for same-level neighbours (long notes have many rows)
    content: str
    tokens: int
    byte_range: tuple[int, int]
    line_range: tuple[int, int]


def _tokens(token_count: int | None, content: str) -> int:
    return token_count if token_count is not None else estimate_tokens(content)


def _doc_rows(idx: Index, chunk_id: int) -> list[_Row]:
    """Every chunk of the note holding ``chunk_id``, in file order."""
    return [
        _Row(r[0], r[1], r[2], r[3], _tokens(r[4], r[3]), (r[5], r[6]), (r[7], r[8]))
        for r in note_chunk_rows(idx, chunk_id)
    ]


def _parent(r: _Row) -> list[str]:
    return json.loads(r.heading_path)[:-1]


def _sibling(level: int, parent: list[str], r: _Row) -> bool:
    return r.level == level and _parent(r) == parent


def _grow(rows: list[_Row], pos: int, cap: int, ok: Callable[[_Row], bool]) -> tuple[int, int]:
    """Widen [lo, hi] around pos, alternately after and before, while the
    total stays within cap and ``ok`` accepts the neighbour."""
    lo = hi = pos
    total = rows[pos].tokens
    grew = True
    while grew:
        grew = False
        for j in (hi + 1, lo - 1):
            if 0 <= j < len(rows) and (j > hi or j < lo) and ok(rows[j]) and total + rows[j].tokens <= cap:
                total += rows[j].tokens
                lo, hi = min(lo, j), max(hi, j)
                grew = True
    return lo, hi


def expand_parents(idx: Index, hits: list[SearchHit], whole_doc_threshold: int, max_tokens: int) -> list[SearchHit]:
    """The hits, same order, with small ones' ``content`` widened (see module doc).

    A hit whose chunk is gone (re-indexed since stage 1) or that nothing fits
    next to comes back unchanged, with ``expanded_from`` empty.
    """
    out: list[SearchHit] = []
    notes: dict[int, list[_Row]] = {}  # chunk id -> its note's rows; several hits often share a note
    for h in hits:
        rows = notes.get(h.chunk_id)
        if rows is None:
            rows = _doc_rows(idx, h.chunk_id)
            notes.update((r.id, rows) for r in rows)
        pos = next((i for i, r in enumerate(rows) if r.id == h.chunk_id), -1)
        if pos < 0:
            out.append(h)
            continue
        me = rows[pos]
        if me.tokens < whole_doc_threshold:
            lo, hi = _grow(rows, pos, max_tokens, lambda r: True)
        else:
            parent = _parent(me)
            lo, hi = _grow(rows, pos, max_tokens, functools.partial(_sibling, me.level, parent))
        if lo == hi:
            out.append(h)  # nothing fits or nothing to merge: unchanged
            continue
        piece = rows[lo:hi + 1]
        out.append(
            replace(
                h,
                content="".join(r.content for r in piece),
                expanded_from=[ExpandedRange(r.id, r.byte_range, r.line_range) for r in piece],
            )
        )
    return out
