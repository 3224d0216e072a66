"""answer_spans (ADR 0256): each hit's sentence nearest the query by
meaning, as UTF-8 byte offsets into its content; never a heading, code or
table syntax; never a change to the ranking."""

from __future__ import annotations

import dataclasses

import numpy as np

from groove.pipeline import SearchParams, run_search
from groove.pipeline.answers import CACHE, answer_spans, sentences
from groove.wire.search import MatchSpan, SearchHit
from stagekit import small_rt  # noqa: F401  (fixture)


def texts(content: str) -> list[str]:
    return [content[s.start:s.end] for s in sentences(content)]


def sliced(content: str, spans: list[MatchSpan]) -> list[str]:
    data = content.encode("utf-8")
    return [data[s.start:s.end].decode("utf-8") for s in spans]


def test_prose_splits_at_sentence_ends_but_not_at_abbreviations_or_decimals():
    content = "Open the app, e.g. on a phone. Version 1.5 syncs! Does it work? Yes it does work."
    assert texts(content) == ["Open the app, e.g. on a phone.", "Version 1.5 syncs!", "Does it work?",
                              "Yes it does work."]


def test_cjk_sentences_end_at_their_own_marks():
    assert texts("同期を有効にします。設定を開きます！できますか？はい") == [
        "同期を有効にします。", "設定を開きます！", "できますか？"]  # はい: under four letters
    assert texts("동기화를 켭니다. 설정을 엽니다") == ["동기화를 켭니다.", "설정을 엽니다"]


def test_markdown_syntax_is_never_a_sentence_and_markers_are_left_out():
    content = (
        "# Heading of the section\n\n"
        "- [ ] A task to finish today\n"
        "1. The first numbered step\n"
        "> [!note] A callout about syncing\n"
        "| Plan | Storage limit |\n|---|---|\n| Standard | One gigabyte |\n"
        "---\n"
        "```python\nprint('code is not an answer')\n```\n"
        "![[lucide-table.svg#icon]]\n"
        "Plain prose line here.\n"
    )
    assert texts(content) == ["A task to finish today", "The first numbered step", "A callout about syncing",
                              "Plan | Storage limit", "Standard | One gigabyte", "Plain prose line here."]


def test_the_model_reads_links_and_emphasis_as_their_words():
    (s,) = sentences("Use **bold** and [[Internal links|a link]] with `code` [text](https://x.y).")
    assert s.text == "Use bold and a link with code text."


class FixedEmbedder:
    """Vectors by keyword, so which sentence is nearest is known: 'answer'
    points along the query's axis, 'nearly' almost so, the rest away."""

    def __init__(self) -> None:
        self.calls = 0

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        self.calls += 1
        out = []
        for t in texts:
            v = np.array([1.0, 0.0]) if "answer" in t else np.array([0.99, 0.14]) if "nearly" in t \
                else np.array([0.0, 1.0])
            out.append(v / np.linalg.norm(v))
        return np.asarray(out, dtype=np.float32)


def hit(content: str, path: str = "a.md", rank: int = 1) -> SearchHit:
    return SearchHit(path=path, title="a", heading_path=[], level=0, content=content, score=1.0, rank=rank,
                     match_spans=[], answer_spans=[], expanded_from=[], byte_range=(0, 1), line_range=(1, 1),
                     chunk_id=1)


def test_the_best_sentence_is_marked_with_an_adjacent_one_that_scores_nearly_as_well():
    CACHE.clear()
    q = np.array([1.0, 0.0], dtype=np.float32)
    h1 = hit("# Title\n\nFirst unrelated words. Here is the answer, 東京. Then more unrelated words.")
    h2 = hit("Unrelated opening words. The answer sentence. And nearly the same thing. Unrelated closing words.")
    h3 = hit("Only one answer here")
    emb = FixedEmbedder()
    answer_spans([h1, h2, h3], q, emb)
    assert sliced(h1.content, h1.answer_spans) == ["Here is the answer, 東京."]
    assert sliced(h2.content, h2.answer_spans) == ["The answer sentence. And nearly the same thing."]  # one passage
    assert sliced(h3.content, h3.answer_spans) == ["Only one answer here"]
    assert emb.calls == 1  # one batch for every hit, a one-sentence one too (the bar reads its score)
    answer_spans([h1, h2], q, emb)
    assert emb.calls == 1  # the same sentences again: from the cache


def test_two_sentences_marked_together_stay_two_spans_across_a_heading_or_code():
    CACHE.clear()
    q = np.array([1.0, 0.0], dtype=np.float32)
    items = hit("- The answer sentence.\n- And nearly the same thing.\n")
    heading = hit("The answer sentence.\n\n## Other part\n\nAnd nearly the same thing.")
    code = hit("The answer sentence.\n\n```\nx = 1\n```\n\nAnd nearly the same thing.")
    answer_spans([items, heading, code], q, FixedEmbedder())
    assert sliced(items.content, items.answer_spans) == ["The answer sentence.\n- And nearly the same thing."]
    assert sliced(heading.content, heading.answer_spans) == ["The answer sentence.", "And nearly the same thing."]
    assert sliced(code.content, code.answer_spans) == ["The answer sentence.", "And nearly the same thing."]


def test_a_best_sentence_that_asks_or_ends_in_a_colon_is_marked_with_the_next_one():
    CACHE.clear()
    q = np.array([1.0, 0.0], dtype=np.float32)
    faq = hit("Unrelated opening words. Can I get the answer back? Yes, within 14 days. Unrelated closing words.")
    colon = hit("Intro words here. The answer limits are:\n\n- Five megabytes on Standard\n- More on Plus\n")
    last = hit("Unrelated opening words. Where is the answer?")
    answer_spans([faq, colon, last], q, FixedEmbedder())
    assert sliced(faq.content, faq.answer_spans) == ["Can I get the answer back? Yes, within 14 days."]
    assert sliced(colon.content, colon.answer_spans) == ["The answer limits are:\n\n- Five megabytes on Standard"]
    assert sliced(last.content, last.answer_spans) == ["Where is the answer?"]  # nothing follows it


def test_a_notes_first_hit_points_to_the_hit_holding_the_notes_best_sentence():
    """One row per note (ADR 0261): the row's answer is the best sentence of
    all the note's marked hits, named by rank on the note's first hit."""
    CACHE.clear()
    q = np.array([1.0, 0.0], dtype=np.float32)
    hits = [hit("Unrelated words first. More unrelated words.", "a.md", 1),
            hit("Other words here. Still other words.", "b.md", 2),
            hit("The answer is here", "a.md", 3),  # one sentence: scored all the same, its note has two hits
            hit("It is nearly there. Unrelated again.", "b.md", 4),
            hit("The answer again. Unrelated tail words.", "c.md", 5)]
    answer_spans(hits, q, FixedEmbedder())
    assert [h.note_answer_rank for h in hits] == [3, 4, None, None, None]
    assert sliced(hits[2].content, hits[2].answer_spans) == ["The answer is here"]
    d = hits[0].to_json()
    assert d["note_answer_rank"] == 3 and type(hits[0]).from_json(d) == hits[0]
    assert "note_answer_rank" not in hits[2].to_json()  # absent, not null: the wire form of other hits is unchanged
    # The note's first hit holds its best sentence: no pointer.
    hits = [hit("The answer first. Unrelated words.", "a.md", 1), hit("Nearly so. Unrelated words.", "a.md", 2)]
    answer_spans(hits, q, FixedEmbedder())
    assert [h.note_answer_rank for h in hits] == [None, None]


def test_the_pipeline_marks_answers_without_changing_the_ranking(small_rt):  # noqa: F811
    for q in ("coffee", "garden plan", "東京"):
        on = run_search(small_rt, SearchParams(q, limit=10))
        off = run_search(small_rt, SearchParams(q, limit=10, answer_spans=False))
        bare = [dataclasses.replace(h, answer_spans=[], note_answer_rank=None, note_answer=None) for h in on.results]
        assert bare == off.results
        assert all(h.answer_spans == [] for h in off.results)
        assert any(h.answer_spans for h in on.results)
        for h in on.results:
            for text in sliced(h.content, h.answer_spans):  # strict decoding: whole characters
                assert text.strip() and not text.startswith(("#", "- ", "|"))


def test_the_wire_form_carries_answer_spans_both_ways(small_rt):  # noqa: F811
    resp = run_search(small_rt, SearchParams("coffee", limit=3))
    d = resp.to_json()
    assert all(isinstance(h["answer_spans"], list) for h in d["results"])
    assert type(resp).from_json(d) == resp


def test_a_hard_wrapped_sentence_is_one_sentence_and_a_new_item_is_not_a_continuation():
    content = ("The model may be slow on old laptops; the index may grow\non a phone. Short one here.\n"
               "- next item\n  wraps on\n")
    assert texts(content) == ["The model may be slow on old laptops; the index may grow\non a phone.",
                              "Short one here.", "next item\n  wraps on"]
    assert sentences(content)[0].text == "The model may be slow on old laptops; the index may grow on a phone."


class BrokenEmbedder:
    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        raise RuntimeError("llama_decode returned -3")


def test_a_model_failure_leaves_the_hits_unmarked_with_a_warning_not_a_failed_search():
    from groove.pipeline.answers import mark_answers

    CACHE.clear()
    hits = [hit("First sentence of the hit. Second sentence of the hit.")]
    w = mark_answers(hits, np.array([1.0, 0.0], dtype=np.float32), BrokenEmbedder())
    assert hits[0].answer_spans == [] and "llama_decode returned -3" in w
