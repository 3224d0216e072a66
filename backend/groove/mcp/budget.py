"""The response budget (ADR 0114): every tool result, text and structured
content together, stays under ``max_tokens`` as ``tokens.estimate_tokens``
counts them (Japanese at a token a character). A search first cuts each
hit's content to a window around its first match, then leaves out hits from
the end; a note is cut at a line boundary. What was cut is flagged, with the
way to read the rest (get_document line ranges, search offset)."""

from __future__ import annotations

import bisect
import json
from collections.abc import Callable
from typing import Any

from ..tokens import estimate_tokens, json_tokens

DEFAULT_MAX_TOKENS = 10_000  # well under Claude Code's 25k cap, with room for several calls
MIN_MAX_TOKENS = 1_000
MAX_MAX_TOKENS = 20_000
# Per-hit content caps tried in turn before whole hits are left out.
HIT_CAPS = (4000, 2000, 1200, 700, 400, 240)
MAX_LINKS_WHEN_CUT = 50


def response_tokens(text: str, structured: Any) -> int:
    return estimate_tokens(text) + json_tokens(structured)


def trim_hit(hit: dict[str, Any], cap: int) -> dict[str, Any]:
    """The hit with its content cut to ``cap`` characters around its first
    match span (a little context before it), spans re-based on the cut text.

    Linear in the content and in the spans kept, whatever the hit (issue 50
    R1: a 6.5 MB one-line note with 140,000 spans once decoded its text up
    to every span, ~11 minutes a pass; ADR 0230): spans are byte offsets, so the cut's
    byte start is found once and the spans inside it are re-based by
    subtraction, picked out of the sorted list by bisection."""
    content: str = hit["content"]
    if len(content) <= cap:
        return hit
    spans = hit.get("match_spans") or []
    b = content.encode("utf-8")
    answers = hit.get("answer_spans") or []
    # The first word match, else the answer sentence (a paraphrase has no word match).
    first_byte = spans[0][0] if spans else answers[0][0] if answers else 0
    focus = len(b[:first_byte].decode("utf-8", errors="ignore"))
    start = max(0, min(focus - cap // 4, len(content) - cap))
    # Start on a word or line boundary when one is near, not mid-word.
    ws = max(content.rfind(" ", max(0, start - 30), start + 1), content.rfind("\n", max(0, start - 30), start + 1))
    if start and ws > 0:
        start = ws + 1
    end = min(len(content), start + cap)
    cut = content[start:end]
    b_start = len(content[:start].encode("utf-8"))
    b_end = b_start + len(cut.encode("utf-8"))
    # Spans are sorted and disjoint (docs/protocol.md): those inside the cut are one run.
    first = bisect.bisect_left(spans, b_start, key=lambda sp: sp[0])
    new_spans = []
    for i in range(first, len(spans)):
        s, e = spans[i]
        if s >= b_end:
            break
        if e <= b_end:
            new_spans.append([s - b_start, e - b_start])
    # An answer sentence the window cuts is kept for the part inside it.
    new_answers = [[max(s, b_start) - b_start, min(e, b_end) - b_start]
                   for s, e in answers if s < b_end and e > b_start]
    return {**hit, "content": cut, "match_spans": new_spans, "answer_spans": new_answers,
            "content_truncated": True}


def fit_search(resp: dict[str, Any], render: Callable[[dict[str, Any]], str], max_tokens: int,
               offset: int) -> tuple[dict[str, Any], str]:
    """``resp`` (a search response, hits ranked ``offset``+1...) cut to the
    budget, and its text rendering. Adds truncated, next_offset, approx_tokens."""
    base = dict(resp)
    hits = [{**h, "content_truncated": False} for h in resp["results"]]
    base.setdefault("next_offset", None)

    def build(hs: list[dict[str, Any]], dropped: bool) -> tuple[dict[str, Any], str, int]:
        out = {**base, "results": hs, "truncated": dropped or any(h["content_truncated"] for h in hs)}
        if dropped:
            out["next_offset"] = offset + len(hs)
        out["approx_tokens"] = 0
        text = render(out)
        n = response_tokens(text, out)
        out["approx_tokens"] = n
        return out, text, n

    # A hit longer than 4 characters a token cannot fit whole (tokens.py counts
    # at least that): skip rendering and counting a response known to be over.
    if all(len(h["content"]) <= 4 * max_tokens for h in hits):
        out, text, n = build(hits, False)
        if n <= max_tokens:
            return out, text
    trimmed = hits
    for cap in HIT_CAPS:
        trimmed = [trim_hit(h, cap) for h in hits]
        out, text, n = build(trimmed, False)
        if n <= max_tokens:
            return out, text
    keep = len(trimmed)
    while keep > 1:
        keep -= 1
        out, text, n = build(trimmed[:keep], True)
        if n <= max_tokens:
            return out, text
    return out, text  # one hit at the smallest cap: as small as a useful answer gets


def document_extras(d: dict[str, Any]) -> dict[str, Any]:
    a, b = d["line_range"]
    d["next_line_start"] = b + 1 if d.get("truncated") else None
    d.setdefault("links_truncated", False)
    return d


def cut_links(d: dict[str, Any], share_tokens: int) -> dict[str, Any]:
    """Keep the outgoing links list under ``share_tokens`` (a note with
    hundreds of links would otherwise spend the budget on them)."""
    links = d.get("links") or []
    if json_tokens(links) <= share_tokens:
        return d
    keep = MAX_LINKS_WHEN_CUT
    while keep > 0 and json_tokens(links[:keep]) > share_tokens:
        keep //= 2
    return {**d, "links": links[:keep], "links_truncated": True}


def chars_budget(max_tokens: int) -> int:
    """A first guess at the characters of note text that fit: the text goes
    out twice (text and structured content), at up to 4 characters a token."""
    return max(200, max_tokens * 4 // 2)


def rescale(max_chars: int, got_tokens: int, max_tokens: int) -> int:
    """A smaller max_chars after a result came out at ``got_tokens``."""
    return max(100, int(max_chars * (max_tokens / max(got_tokens, 1)) * 0.9))


def compact(d: Any) -> str:
    return json.dumps(d, ensure_ascii=False, indent=1)
