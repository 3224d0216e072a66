"""match_spans: where the query's content words occur in the final content.

Computed last, after the parent retriever, because spans are UTF-8 byte
offsets into the content actually returned. The terms come from the query
compiler (``query.span_terms``: ``HighlightTerm``s, ADR 0255); this module
never re-splits the query, so highlighting agrees with what the lexical leg
matched.

A Latin term lights a word, not a piece of one: it starts where a word
starts (``phone`` not in "iPhone", ``and`` not in "Android") and may be the
start of a longer word (``sync`` in "Syncing"); a 2-letter one is a whole
word. A CJK term lights wherever it occurs. A plain string is matched
anywhere, as before.

Matching is case-insensitive (Unicode casefold, close to FTS5's own folding).
Offsets always point into the original ``content``: when folding changes a
character's length (``ß`` → ``ss``), a match that covers part of it covers the
whole original character, so a span never cuts a character in two. The work
is one ``str.find`` scan per term plus a constant-time boundary check per
occurrence: linear in the content.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..query import WORD, HighlightTerm, char_type
from ..wire.search import MatchSpan


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


def _letter(ch: str) -> bool:
    """A letter of a spaced script: one before a match means it starts inside a word.
    Thai, Lao, Khmer and Myanmar write no spaces between words, so their
    letters never make a boundary question."""
    return char_type(ch) == WORD and not 0x0E00 <= ord(ch) <= 0x109F and not 0x1780 <= ord(ch) <= 0x17FF


def _needles(terms: Sequence[HighlightTerm | str]) -> dict[str, tuple[bool, bool]]:
    """Each folded needle -> (must start a word, must end one); a needle
    asked for twice keeps the looser rule."""
    out: dict[str, tuple[bool, bool]] = {}
    for t in terms:
        text, start, end = (t, False, False) if isinstance(t, str) else (t.text, t.word_start, t.word_end)
        n = text.casefold()
        if not n.strip():
            continue
        if n in out:
            a, b = out[n]
            start, end = a and start, b and end
        out[n] = (start, end)
    return out


def match_spans(content: str, terms: Sequence[HighlightTerm | str], limit: int | None = None) -> list[MatchSpan]:
    """Sorted, merged, non-overlapping ``[start, end)`` UTF-8 byte spans of every term in ``content``
    (the first ``limit`` of them)."""
    needles = _needles(terms)
    if not needles or not content:
        return []
    hay, owner = _fold(content)
    char_spans: list[tuple[int, int]] = []
    for needle, (word_start, word_end) in needles.items():
        start = hay.find(needle)
        while start != -1:  # overlapping occurrences too ("aaa" in "aaaa"): merged below
            end = start + len(needle)
            a, b = (start, end) if owner is None else (owner[start], owner[end - 1] + 1)
            if (not word_start or a == 0 or not _letter(content[a - 1])) and \
                    (not word_end or b == len(content) or not _letter(content[b])):
                char_spans.append((a, b))
            start = hay.find(needle, start + 1)
    if not char_spans:
        return []
    kept = _merge(char_spans)[:limit]
    if not kept:
        return []
    offs = utf8_offsets(content[:kept[-1][1]])  # up to the last span kept: 8 bytes a character
    return [MatchSpan(int(offs[a]), int(offs[b])) for a, b in kept]
