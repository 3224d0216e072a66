"""match_spans (docs/design.md §1.6): UTF-8 byte offsets into the final content, merged, sorted."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from groove.pipeline import SearchParams, run_search
from groove.pipeline.spans import match_spans, utf8_offsets
from groove.wire.search import MatchSpan
from stagekit import small_rt, with_search  # noqa: F401  (fixture)


def sliced(content: str, spans: list[MatchSpan]) -> list[str]:
    """Each span cut out of the content's UTF-8 bytes; strict decoding, so a
    span that splits a character fails here."""
    data = content.encode("utf-8")
    return [data[s.start:s.end].decode("utf-8") for s in spans]


# ---------------------------------------------------------------- offsets are bytes

def test_japanese_spans_are_byte_offsets_that_slice_back_to_the_term():
    content = "東京で行きたい場所のメモ。東京のラーメン"
    spans = match_spans(content, ["東京", "ラーメン"])
    assert sliced(content, spans) == ["東京", "東京", "ラーメン"]
    assert spans[0] == MatchSpan(0, 6)  # 2 characters, 6 bytes
    assert spans[1].start == len("東京で行きたい場所のメモ。".encode())


def test_spans_after_emoji_count_four_bytes_per_emoji():
    content = "# Garden plan 🌱\n\nTomatoes 🍅 by the south wall 🌞 garden"
    spans = match_spans(content, ["garden", "tomatoes", "🍅"])
    assert sliced(content, spans) == ["Garden", "Tomatoes", "🍅", "garden"]
    assert spans[-1].end == len(content.encode())
    assert spans[-1].start == len(content.encode()) - len("garden")


def test_crlf_content_spans_slice_back_and_count_the_carriage_returns():
    content = "# Bread\r\n\r\nA simple recipe for bread.\r\n\r\n## Dough\r\n\r\nKnead the dough."
    spans = match_spans(content, ["bread", "dough"])
    assert sliced(content, spans) == ["Bread", "bread", "Dough", "dough"]
    assert spans[2].start == content.index("Dough")  # ASCII: bytes == chars, \r included


def test_a_phrase_with_a_space_does_not_match_across_a_crlf_line_break():
    # Same as the FTS leg: whitespace in a phrase is literal.
    assert match_spans("recipe for\r\nbread", ["for bread"]) == []


# ---------------------------------------------------------------- merging and order

def test_overlapping_matches_merge_into_one_span():
    content = "再ランキングの評価"
    spans = match_spans(content, ["再ランキング", "ランキング", "の評価"])
    assert spans == [MatchSpan(0, len(content.encode()))]  # touching spans merge too


def test_overlapping_occurrences_of_one_term_merge():
    assert match_spans("aaaa b", ["aaa"]) == [MatchSpan(0, 4)]


def test_spans_are_sorted_even_when_terms_come_in_another_order():
    content = "tea then coffee then tea"
    spans = match_spans(content, ["tea", "coffee"])
    assert [s.start for s in spans] == sorted(s.start for s in spans)
    assert sliced(content, spans) == ["tea", "coffee", "tea"]


def test_no_terms_or_no_content_or_no_match_gives_no_spans():
    assert match_spans("", ["x"]) == []
    assert match_spans("text", []) == []
    assert match_spans("text", ["", "  "]) == []
    assert match_spans("text", ["absent"]) == []


# ---------------------------------------------------------------- case folding

def test_matching_ignores_case_and_returns_the_original_bytes():
    content = "Keeping Notes in SYNC"
    assert sliced(content, match_spans(content, ["sync", "NOTES"])) == ["Notes", "SYNC"]


def test_a_character_that_folds_longer_does_not_shift_later_spans():
    # "ß".casefold() == "ss": offsets must still point into the original text.
    content = "Die Straße und der Fluss, danach ÉTÉ"
    spans = match_spans(content, ["strasse", "fluss", "été"])
    assert sliced(content, spans) == ["Straße", "Fluss", "ÉTÉ"]


def test_a_match_ending_inside_a_folded_character_covers_the_whole_character():
    content = "maß"
    assert sliced(content, match_spans(content, ["mas"])) == ["maß"]


# ---------------------------------------------------------------- properties

ALPHABET = st.sampled_from(list("abcAB ßé東京のラ🌱🍅\r\n.") + ["ﬁ"])


@settings(max_examples=300, deadline=None)
@given(st.text(ALPHABET, max_size=40), st.lists(st.text(ALPHABET, min_size=1, max_size=4), max_size=4))
def test_every_span_is_disjoint_sorted_and_slices_whole_characters(content, terms):
    spans = match_spans(content, terms)
    data = content.encode("utf-8")
    for a, b in zip(spans, spans[1:]):
        assert a.end < b.start  # merged: neither overlapping nor touching
    for s in spans:
        assert 0 <= s.start < s.end <= len(data)
        data[s.start:s.end].decode("utf-8")  # never cuts a character
    # Every exact occurrence of a term is covered by some span.
    for t in terms:
        if not t.strip():
            continue
        i = content.find(t)
        while i != -1:
            a, b = len(content[:i].encode()), len(content[:i + len(t)].encode())
            assert any(s.start <= a and b <= s.end for s in spans), (t, i)
            i = content.find(t, i + 1)


@given(st.text(max_size=60))
def test_utf8_offsets_agree_with_encoding_each_prefix(text):
    offs = utf8_offsets(text)
    assert len(offs) == len(text) + 1
    for i in range(0, len(text) + 1, 7):
        assert offs[i] == len(text[:i].encode("utf-8", "surrogatepass"))
    assert offs[-1] == len(text.encode("utf-8", "surrogatepass"))


# ---------------------------------------------------------------- in the pipeline

def test_pipeline_spans_slice_the_returned_content_of_a_crlf_note(small_rt):
    resp = run_search(small_rt, SearchParams("bread dough", limit=5))
    bread = [h for h in resp.results if h.path == "Bread recipe.md"]
    assert bread
    for h in bread:
        assert "\r\n" in h.content
        assert {s.casefold() for s in sliced(h.content, h.match_spans)} <= {"bread", "dough"}
    assert any(h.match_spans for h in bread)


def test_pipeline_spans_in_japanese_and_emoji_notes_slice_back(small_rt):
    resp = run_search(small_rt, SearchParams("ごはん 東京", limit=10))
    got = {h.path for h in resp.results if h.match_spans}
    assert {"猫.md", "東京.md"} <= got
    for h in resp.results:
        for text in sliced(h.content, h.match_spans):
            assert text  # non-empty and whole characters


def test_spans_are_computed_on_the_expanded_content(small_rt):
    """With the parent retriever on, spans point into the merged text, also
    beyond the end of the hit's own chunk."""
    rt = with_search(small_rt, parent={"enabled": True})
    resp = run_search(rt, SearchParams("backup conflict", limit=3))
    expanded = [h for h in resp.results if h.expanded_from]
    assert expanded
    for h in expanded:
        assert all(t.casefold() in ("backup", "conflict") for t in sliced(h.content, h.match_spans))
    own = {h.chunk_id: h.byte_range[1] - h.byte_range[0] for h in expanded}
    assert any(s.end > own[h.chunk_id] for h in expanded for s in h.match_spans)


# ---------------------------------------------------------------- the CLI's snippet

def test_cli_snippet_highlights_exactly_the_span_text_in_japanese_crlf_and_emoji_content():
    from groove.cli.search import HIGHLIGHT, snippet

    content = "# Bread\r\n\r\nA recipe 🍅 for bread.\r\n\r\n東京のラーメン and more bread"
    spans = match_spans(content, ["bread", "ラーメン"])
    text = snippet(content, spans)
    assert "\r" not in text.plain and "\n" not in text.plain
    lit = [text.plain[s.start:s.end] for s in text.spans if s.style == HIGHLIGHT]
    assert lit == ["Bread", "bread", "ラーメン", "bread"]


def test_cli_snippet_is_cut_to_the_width_around_the_first_span():
    from groove.cli.search import snippet

    content = "filler words here. " * 40 + "the needle is here. " + "more text. " * 40
    text = snippet(content, match_spans(content, ["needle"]), width=60)
    assert "needle" in text.plain and text.plain.startswith("…") and text.plain.endswith("…")
    assert len(text.plain) <= 62


def test_cli_default_output_shows_rank_path_heading_line_score_and_snippet(small_rt):
    from click.testing import CliRunner

    from groove.cli import cli
    from groove.runtime import Runtime

    orig = Runtime.embedder
    try:
        Runtime.embedder = property(lambda self: small_rt._embedder)
        out = CliRunner().invoke(cli, ["search", "東京 ラーメン", "--vault", str(small_rt.vault),
                                       "--index", str(small_rt.index.path), "--limit", "2"])
    finally:
        Runtime.embedder = orig
    assert out.exit_code == 0, out.output
    resp = run_search(small_rt, SearchParams("東京 ラーメン", limit=2))
    want = resp.results[0]
    lines = out.stdout.splitlines()
    # The random tiny model relates nothing, so the "no strong match" banner may lead.
    first = lines[1] if resp.low_confidence else lines[0]
    assert first.startswith(" 1. ") and want.path in first and " > ".join(want.heading_path) in first
    assert f"L{want.line_range[0]}" in first and f"{want.score:.4f}" in first
    assert "ラーメン" in out.stdout or "東京" in out.stdout
