"""match_spans light the query's words as words (ADR 0255, issue 47): never
from inside a Latin word, never a function word, particle or ending unless
quoted; CJK content words as the compiler reads them."""

from __future__ import annotations

from pathlib import Path

import pytest

from groove.pipeline import SearchParams, run_search
from groove.pipeline.spans import match_spans
from groove.query import HANGUL_STOP_STEMS, HANGUL_TAILS, HIRA, char_type, parse_query, span_terms
from groove.wire.search import MatchSpan
from stagekit import indexed_runtime

NOTES = {
    "Sync across devices.md": (
        "# Sync across devices\n\n"
        "Syncing keeps notes the same between your phone and your computer. On an iPhone or an\n"
        "Android phone, open the app and tap the sync icon. The guide is showing how it works,\n"
        "see obsidian://show-plugin?id=sync for the plugin. Keep your notes in one vault.\n"
    ),
    "Tables.md": (
        "# Tables\n\nAn editable table can be imported from Airtable. To make a table, type a row of bars.\n"
        "The computer and the phone both render the table the same way.\n"
    ),
    "同期.md": (
        "# デバイス間でノートを同期する\n\n"
        "iCloudを使ってiPhoneとMacで保管庫を同期するには、保管庫をiCloud Driveに置きます。\n"
        "スマホとパソコンでノートを同期するには、Obsidian Syncを使うこともできます。\n"
    ),
    "동기화.md": (
        "# 기기 간 노트 동기화\n\n"
        "휴대폰과 컴퓨터의 노트를 똑같이 유지하려면 Obsidian Sync를 사용하세요.\n"
        "노트를 동기화하려면 먼저 원격 보관소를 만드세요. 컴퓨터에서 휴대폰으로 노트가 옮겨집니다.\n"
    ),
}

EN_FUNCTION = {"and", "how", "the", "between", "in", "an", "on", "or"}


def sliced(content: str, spans: list[MatchSpan]) -> list[str]:
    data = content.encode("utf-8")
    return [data[s.start:s.end].decode("utf-8") for s in spans]


def starts_inside_a_word(content: str, span: MatchSpan) -> bool:
    before = content.encode("utf-8")[:span.start].decode("utf-8")
    return bool(before) and before[-1].isascii() and before[-1].isalnum()


@pytest.fixture(scope="module")
def words_rt(tiny_embedder, tmp_path_factory):
    vault: Path = tmp_path_factory.mktemp("vault")
    for name, text in NOTES.items():
        (vault / name).write_text(text, encoding="utf-8")
    rt = indexed_runtime(vault, tiny_embedder, tmp_path_factory.mktemp("idx") / "index.sqlite")
    yield rt
    rt.close()


def all_spans(rt, query: str) -> list[tuple[str, str, MatchSpan]]:
    res = run_search(rt, SearchParams(query, limit=20))
    return [(h.content, text, s) for h in res.results for s, text in zip(h.match_spans, sliced(h.content,
                                                                                                  h.match_spans))]


def test_the_sync_question_lights_no_piece_of_a_word_and_no_function_word(words_rt):
    spans = all_spans(words_rt, "keep notes in sync between phone and computer")
    texts = [t for _, t, _ in spans]
    assert not [t for c, t, s in spans if starts_inside_a_word(c, s)], texts
    assert not [t for t in texts if t.casefold() in EN_FUNCTION], texts
    # The query's content words are lit, a longer word by its start.
    assert {"Syncing"[:4], "phone", "computer", "notes", "Keep"} <= set(texts)
    assert "Phone" not in texts and "how" not in texts


def test_a_table_question_does_not_light_editable_or_airtable(words_rt):
    spans = all_spans(words_rt, "how do I make a table")
    assert not [t for c, t, s in spans if starts_inside_a_word(c, s)]
    assert [t for _, t, _ in spans].count("table") >= 3  # "table" in "An editable table", "a table", "the table"


def test_the_japanese_sync_question_lights_no_particle_or_ending(words_rt):
    spans = all_spans(words_rt, "iCloudを使ってiPhoneとMacで保管庫を同期するには？")
    texts = [t for _, t, _ in spans]
    assert not [t for t in texts if all(char_type(ch) == HIRA for ch in t)], texts  # を, には, するには
    assert {"保管庫", "同期", "iCloud", "iPhone", "Mac"} <= set(texts)


def test_the_korean_sync_question_lights_no_particle_or_ending(words_rt):
    spans = all_spans(words_rt, "휴대폰과 컴퓨터의 노트를 똑같이 유지하려면")
    texts = [t for _, t, _ in spans]
    tails = set(HANGUL_TAILS)
    assert not [t for t in texts if t in tails or t in HANGUL_STOP_STEMS], texts
    # Stems, not the written words: 노트 lit, not 노트를; 컴퓨터 not 컴퓨터의.
    assert {"휴대폰", "컴퓨터", "노트", "유지"} <= set(texts)
    assert not [t for t in texts if t.endswith(("를", "의", "과", "하려면"))], texts


def test_a_quoted_function_word_is_lit_and_still_as_a_word():
    content = "Android and iOS"
    assert sliced(content, match_spans(content, span_terms(parse_query('"and" iOS')))) == ["and", "iOS"]
    assert sliced(content, match_spans(content, span_terms(parse_query("and iOS")))) == ["iOS"]


def test_two_letter_words_are_whole_words_and_longer_ones_may_start_a_word():
    content = "UI and UIKit; Syncing, resync, sync."
    spans = match_spans(content, span_terms(parse_query("UI sync")))
    assert sliced(content, spans) == ["UI", "Sync", "sync"]  # not UIKit, not re*sync*


def test_span_terms_carry_where_each_may_match():
    kinds = {(t.text, t.kind) for t in span_terms(parse_query('keep notes in sync "and" UI obsidian://open'))}
    assert {("keep", "prefix"), ("sync", "prefix"), ("and", "phrase"), ("UI", "word"),
            ("obsidian://open", "phrase")} <= kinds
    assert not {t for t, _ in kinds} & {"in"}
    ja = [t.text for t in span_terms(parse_query("スマホとパソコンでノートを同期するには"))]
    assert ja == ["スマホ", "パソコン", "ノート", "同期"]
    ko = [t.text for t in span_terms(parse_query("노트를 동기화하려면 어떻게"))]
    assert ko == ["노트", "동기화"]
    assert all(t.kind == "cjk" for t in span_terms(parse_query("怎么让手机和电脑上的笔记保持一致")))
