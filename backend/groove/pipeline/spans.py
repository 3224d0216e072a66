"""match_spans: where the query's positive phrases occur in the final content.

Computed last, after the parent retriever, because spans are UTF-8 byte
offsets into the content actually returned. The terms come from the query
compiler (``query.span_terms``); this module never re-splits the query.
Matching is case-insensitive for scripts with case.
"""

from __future__ import annotations

from ..types import MatchSpan


def _byte_offsets(text: str) -> list[int]:
    """Byte offset of every character index (plus the end)."""
    out = [0] * (len(text) + 1)
    pos = 0
    for i, ch in enumerate(text):
        out[i] = pos
        pos += len(ch.encode("utf-8", errors="surrogatepass"))
    out[len(text)] = pos
    return out


def match_spans(content: str, terms: list[str]) -> list[MatchSpan]:
    """Sorted, merged ``[start, end)`` byte spans of every term in ``content``."""
    terms = [t for t in dict.fromkeys(terms) if t and t.strip()]
    if not terms or not content:
        return []
    folded = content.casefold()
    # casefold can change lengths (ß -> ss); fall back to exact matching then.
    exact = len(folded) != len(content)
    hay = content if exact else folded
    char_spans: list[tuple[int, int]] = []
    for t in terms:
        needle = t if exact else t.casefold()
        if not needle:
            continue
        start = hay.find(needle)
        while start != -1:
            char_spans.append((start, start + len(needle)))
            start = hay.find(needle, start + 1)
    if not char_spans:
        return []
    char_spans.sort()
    merged: list[list[int]] = [list(char_spans[0])]
    for a, b in char_spans[1:]:
        if a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    offs = _byte_offsets(content)
    return [MatchSpan(offs[a], offs[b]) for a, b in merged]
