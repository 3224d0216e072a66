"""The response budget's cut of a long hit (budget.trim_hit, issue 50 R1):
the same cut as before on ordinary hits, and linear on a huge one (a 6.5 MB
one-line note once took 11 minutes a pass, a span at a time)."""

from __future__ import annotations

import random
import time
from typing import Any

from groove.mcp.budget import HIT_CAPS, fit_search, trim_hit
from groove.mcp.render import render_search
from groove.pipeline.spans import match_spans


def _reference_trim(hit: dict[str, Any], cap: int) -> dict[str, Any]:
    """The cut as budget.py made it before (a span at a time), the oracle on small hits."""
    content: str = hit["content"]
    if len(content) <= cap:
        return hit
    b = content.encode("utf-8")

    def char_at(off: int) -> int:
        return len(b[:off].decode("utf-8", errors="ignore"))

    spans = [(char_at(s), char_at(e)) for s, e in hit.get("match_spans") or []]
    focus = spans[0][0] if spans else 0
    start = max(0, min(focus - cap // 4, len(content) - cap))
    ws = max(content.rfind(" ", max(0, start - 30), start + 1), content.rfind("\n", max(0, start - 30), start + 1))
    if start and ws > 0:
        start = ws + 1
    end = min(len(content), start + cap)
    cut = content[start:end]
    new_spans = [[len(content[start:s].encode("utf-8")), len(content[start:e].encode("utf-8"))]
                 for s, e in spans if s >= start and e <= end]
    return {**hit, "content": cut, "match_spans": new_spans, "content_truncated": True}


WORDS = ["apple", "river", "mill", "Straße", "東京", "会議", "naïve", "🙂", "x", "\n", "  "]


def _hit(content: str, terms: list[str]) -> dict[str, Any]:
    return {"content": content, "match_spans": [s.to_json() for s in match_spans(content, terms)]}


def test_the_cut_is_the_one_made_before_on_ordinary_hits() -> None:
    rng = random.Random(50)
    for _ in range(120):
        content = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 700)))
        hit = _hit(content, rng.sample(["apple", "river", "東京", "strasse", "🙂", "ll"], rng.randint(0, 3)))
        for cap in (*HIT_CAPS, 50, 7):
            ref = _reference_trim(hit, cap)
            if ref is not hit:
                ref = {**ref, "answer_spans": []}  # a cut hit carries its answer spans re-based too (ADR 0256)
            assert trim_hit(hit, cap) == ref


def _one_line(mb: float) -> dict[str, Any]:
    words = ["apple", "river", "log", "entry", "status", "ok", "東京", "value"]
    rng = random.Random(1)
    text, size = [], 0
    while size < mb * 1_000_000:
        w = rng.choice(words)
        text.append(w)
        size += len(w.encode()) + 1
    return _hit(" ".join(text), ["apple", "river"])


def _seconds(hit: dict[str, Any]) -> float:
    """The median time of trim_hit at every cap over at least 0.3 s of runs."""
    times: list[float] = []
    while sum(times) < 0.3 or len(times) < 3:
        t0 = time.perf_counter()
        for cap in HIT_CAPS:
            trim_hit(hit, cap)
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2]


def test_trimming_is_linear_in_the_hit() -> None:
    small, large = _one_line(0.25), _one_line(1.0)
    assert len(large["match_spans"]) > 3.5 * len(small["match_spans"]) > 35_000
    ratio = _seconds(large) / _seconds(small)
    # 4x the text and the spans: linear work is ~4x; a span at a time was ~16x.
    assert ratio < 9, f"trim_hit on 4x the hit took {ratio:.1f}x the time"


def test_a_huge_hit_fits_the_budget_with_valid_spans() -> None:
    hit = {**_one_line(1.0), "path": "log.md", "title": "log", "heading_path": [], "line_range": [1, 1],
           "score": 0.5, "rank": 1}
    resp = {"results": [hit], "low_confidence": False, "filter_applied": {}, "warnings": [], "confidence": None}
    out, _text = fit_search(resp, lambda r: render_search("apple river", r), 10_000, 0)
    got = out["results"][0]
    assert got["content_truncated"] and len(got["content"]) <= HIT_CAPS[0]
    assert out["approx_tokens"] <= 10_000
    b = got["content"].encode()
    assert got["match_spans"] and all(b[s:e].decode() in ("apple", "river") for s, e in got["match_spans"])
