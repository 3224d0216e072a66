"""The MCP response budget and text keep answer_spans (ADR 0256): a hit cut
to fit keeps its answer sentence, re-based on the cut text; a paraphrase
with no word match is cut around its answer; the text names the answer."""

from __future__ import annotations

from groove.mcp.budget import trim_hit
from groove.mcp.render import render_search


def spans_of(text: str, *parts: str) -> list[list[int]]:
    b = text.encode("utf-8")
    return [[b.index(p.encode("utf-8")), b.index(p.encode("utf-8")) + len(p.encode("utf-8"))] for p in parts]


def hit(content: str, answer: str, match: str | None = None) -> dict:
    return {"path": "a.md", "title": "a", "heading_path": ["A"], "level": 1, "content": content, "score": 0.5,
            "rank": 1, "match_spans": spans_of(content, match) if match else [],
            "answer_spans": spans_of(content, answer), "expanded_from": [], "byte_range": [0, 1],
            "line_range": [1, 9], "chunk_id": 1}


def test_a_cut_hit_keeps_its_answer_span_on_the_cut_text():
    answer = "Drag a tab to the side of the screen to split the view."
    content = "Filler words about nothing. " * 60 + answer + " More filler after it." * 40
    cut = trim_hit(hit(content, answer), 400)
    assert cut["content_truncated"]
    (a, b), = cut["answer_spans"]
    assert cut["content"].encode("utf-8")[a:b].decode("utf-8") == answer  # no word match: cut around the answer


def test_an_answer_the_window_cuts_is_kept_for_its_part_inside():
    answer = "東京の会議は毎週月曜日に開かれます。"
    content = "ほかの話題。" * 100 + "東京の予定。" + answer + "ほかの話題。" * 200
    cut = trim_hit(hit(content, answer, match="東京"), 30)
    (a, b), = cut["answer_spans"]
    text = cut["content"].encode("utf-8")[a:b].decode("utf-8")  # whole characters
    assert text and answer.startswith(text) and len(text) < len(answer)


def test_the_text_rendering_names_the_answer_sentence():
    answer = "Drag a tab to the side of the screen to split the view."
    text = render_search("two documents side by side", {"results": [hit("Intro. " + answer, answer)]})
    assert f"   answer: {answer}" in text
