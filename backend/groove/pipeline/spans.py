"""match_spans: where the query's positive phrases occur in the final content.

Computed last, after the parent retriever, because spans are UTF-8 byte
offsets into the content actually returned. The terms come from the query
compiler (``query.span_terms``); this module never re-splits the query, so
highlighting agrees with what the lexical leg matched.

Matching is case-insensitive (Unicode casefold, close to FTS5's own folding).
Offsets always point into the original ``content``: when folding changes a
character's length (``ß`` → ``ss``), a match that covers part of it covers the
whole original character, so a span never cuts a character in two.
"""

from __future__ import annotations

import numpy as np

from ..types import MatchSpan


def utf8_offsets(text: str) -> np.ndarray:
    """Byte offset of every character index of ``text``, plus the end: ``len(text) + 1`` ints."""
    if text.isascii():
        return np.arange(len(text) + 1, dtype=np.int64)
    cps = np.frombuffer(text.encode("utf-32-le", errors="surrogatepass"), dtype=np.uint32)
    # UTF-8 length of each code point (a lone surrogate takes 3 bytes, as surrogatepass writes it).
    lens = 1 + (cps >= 0x80).astype(np.int64) + (cps >= 0x800) + (cps >= 0x10000)
    out = np.zeros(len(text) + 1, dtype=np.int64)
    np.cumsum(lens, out=out[1:])
    return out


def _fold(content: str) -> tuple[str, list[int] | None]:
    """The folded haystack, and (only when lengths change) the original char
    index of every folded char."""
    folded = content.casefold()
    if len(folded) == len(content):
        return folded, None  # casefold never shrinks, so this is one char for one char
    owner: list[int] = []
    parts: list[str] = []
    for i, ch in enumerate(content):
        f = ch.casefold()
        parts.append(f)
        owner.extend([i] * len(f))
    return "".join(parts), owner


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    spans.sort()
    merged = [spans[0]]
    for a, b in spans[1:]:
        la, lb = merged[-1]
        if a <= lb:  # overlapping or touching: one highlight
            merged[-1] = (la, max(lb, b))
        else:
            merged.append((a, b))
    return merged


def match_spans(content: str, terms: list[str], limit: int | None = None) -> list[MatchSpan]:
    """Sorted, merged, non-overlapping ``[start, end)`` UTF-8 byte spans of every term in ``content``
    (the first ``limit`` of them)."""
    needles = [n for n in dict.fromkeys(t.casefold() for t in terms if t and t.strip()) if n]
    if not needles or not content:
        return []
    hay, owner = _fold(content)
    char_spans: list[tuple[int, int]] = []
    for needle in needles:
        start = hay.find(needle)
        while start != -1:  # overlapping occurrences too ("aaa" in "aaaa"): merged below
            end = start + len(needle)
            if owner is None:
                char_spans.append((start, end))
            else:
                char_spans.append((owner[start], owner[end - 1] + 1))
            start = hay.find(needle, start + 1)
    if not char_spans:
        return []
    kept = _merge(char_spans)[:limit]
    offs = utf8_offsets(content[:kept[-1][1]])  # up to the last span kept: 8 bytes a character
    return [MatchSpan(int(offs[a]), int(offs[b])) for a, b in kept]
