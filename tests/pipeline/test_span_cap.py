"""A hit carries at most MAX_SPANS_PER_HIT match spans, the first ones
(issue 50 R1: a hit of a 6.5 MB one-line note carried 140,109)."""

from __future__ import annotations

from groove import operations
from groove.pipeline.spans import match_spans
from helpers import indexed_runtime

MAX_SPANS_PER_HIT = 1_000  # docs/protocol.md


def test_a_hit_of_a_huge_line_carries_the_first_spans_only(tmp_path, tiny_embedder) -> None:
    line = " ".join(["apple river mill"] * 5_000) + "\n"
    rt = indexed_runtime(tmp_path, {"log.md": line, "Garden.md": "# Garden\n\nPears by the river.\n"}, tiny_embedder)
    try:
        hits = operations.call(rt, "search", {"query": "apple river", "limit": 5})["results"]
    finally:
        rt.close()
    hit = next(h for h in hits if h["path"] == "log.md")
    full = [s.to_json() for s in match_spans(hit["content"], ["apple", "river"])]
    assert len(full) == 10_000 > MAX_SPANS_PER_HIT
    assert hit["match_spans"] == full[:MAX_SPANS_PER_HIT]
    small = next(h for h in hits if h["path"] == "Garden.md")
    assert small["match_spans"] == [s.to_json() for s in match_spans(small["content"], ["apple", "river"])]


def test_the_limit_keeps_the_first_spans() -> None:
    text = "ab " * 50 + "ß x SS " * 50
    for terms in (["ab"], ["ss", "x"], ["b a"]):
        full = match_spans(text, terms)
        for k in (0, 1, 7, len(full), len(full) + 5):
            assert match_spans(text, terms, k) == full[:k]
