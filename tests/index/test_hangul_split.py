"""Korean typed without spaces is searched by the words the vault holds
(ADR 0224): 태그검색 as 태그 and 검색, 노트를동기화하려면 as 노트 and 동기화,
so the lexical leg finds what the spaced question finds and the known-word
share does not call the question's words unknown. A word the vault holds is
never cut, and syllables no word of the vault begins with stay one unknown
word."""

from __future__ import annotations

import pytest

from groove import operations
from groove.index import hangul_split, vocabulary
from groove.pipeline import SearchParams
from groove.query import parse_query
from groove.query.terms import terms_of
from helpers import indexed_runtime

NOTES = {
    "태그.md": "# 태그\n\n노트에 태그를 붙이면 검색이 쉬워집니다. 태그 검색은 검색 창에서 합니다.\n",
    "동기화.md": "# 동기화\n\n노트를 여러 기기에서 동기화합니다. 동기화 충돌이 생기면 두 버전을 모두 남깁니다.\n",
    "캔버스.md": "# 캔버스\n\n캔버스에서 카드를 만들고 선으로 잇습니다.\n",
    "플러그인.md": "# 플러그인설정\n\n플러그인설정 화면에서 커뮤니티 플러그인을 켭니다.\n",
    "단축키.md": "# 단축키\n\n단축키를 바꾸려면 설정을 엽니다. 사용자로 로그인한 뒤 바꿉니다.\n",
    "목록.md": "# 목록\n\n책갈피\n- 읽을거리\n",  # 책갈피 starts a line, never follows a space
}


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_embedder):
    runtime = indexed_runtime(tmp_path_factory.mktemp("hangul-split"), NOTES, tiny_embedder)
    yield runtime
    runtime.close()


@pytest.mark.parametrize("squashed, spaced", [
    ("태그검색", "태그 검색"), ("동기화충돌", "동기화 충돌"), ("노트를동기화하려면", "노트를 동기화하려면"),
    ("캔버스에서카드만들기", "캔버스에서 카드 만들기"),
])
def test_a_korean_query_without_spaces_searches_the_words_of_the_spaced_one(rt, squashed, spaced):
    conn = rt.index.conn
    assert hangul_split.with_vault_words(conn, parse_query(squashed)).short_terms == parse_query(spaced).short_terms
    assert parse_query(squashed).short_terms == [parse_query(squashed).short_terms[0]]  # the compiler alone: one word
    got = operations.search(rt, SearchParams(squashed, legs="fts")).results
    want = operations.search(rt, SearchParams(spaced, legs="fts")).results
    assert got and [h.path for h in got] == [h.path for h in want]


def test_the_known_word_share_reads_the_same_words(rt):
    conn = rt.index.conn
    share = vocabulary.known_share
    assert share(conn, terms_of("태그검색")) == share(conn, terms_of("태그 검색")) == 1.0
    assert vocabulary.known_share(conn, terms_of("동기화충돌")) == 1.0


def test_syllables_no_word_begins_with_stay_one_unknown_word(rt):
    conn = rt.index.conn
    assert hangul_split.split_terms(conn, ["김치찌개태그"]) == ["김치찌개", "태그"]
    assert 0 < vocabulary.known_share(conn, terms_of("김치찌개태그")) < 1.0  # the dish is still a word the vault lacks
    # 자로 is inside 사용자로 but starts no word: it lends 책자로 nothing.
    assert hangul_split.pieces(conn, "책자로태그") == ["책자로", "태그"]


def test_a_word_the_vault_holds_whole_is_not_cut(rt):
    conn = rt.index.conn
    assert hangul_split.split_terms(conn, ["플러그인설정"]) == ["플러그인설정"]
    assert hangul_split.pieces(conn, "플러그인설정") is None


def test_short_unknown_stems_and_words_with_nothing_known_are_left_as_written(rt):
    conn = rt.index.conn
    assert hangul_split.split_terms(conn, ["태그검"]) == ["태그검"]  # 3 syllables: a word the vault lacks
    assert hangul_split.split_terms(conn, ["김치찌개"]) == ["김치찌개"]  # no piece starts a word here
    assert hangul_split.split_terms(conn, ["sync", "検索"]) == ["sync", "検索"]


def test_an_exclusion_is_not_split(rt):
    parsed = hangul_split.with_vault_words(rt.index.conn, parse_query("캔버스 -태그검색"))
    assert parsed.negatives == ["태그검색"] and parsed.negative_shorts == []
    assert parsed.short_terms == ["캔버스"]


def test_one_search_looks_each_word_up_once(rt, monkeypatch):
    calls: list[str] = []
    real = hangul_split.pieces
    monkeypatch.setattr(hangul_split, "pieces", lambda conn, t: calls.append(t) or real(conn, t))
    resp = operations.search(rt, SearchParams("태그검색", explain=True))
    assert resp.results and calls == ["태그검색"]


def test_match_spans_highlight_the_words_found(rt):
    hit = operations.search(rt, SearchParams("태그검색", legs="fts")).results[0]
    data = hit.content.encode()
    assert {data[s.start:s.end].decode() for s in hit.match_spans} == {"태그", "검색"}


def test_a_word_that_only_starts_lines_is_a_word(rt):
    assert hangul_split.split_terms(rt.index.conn, ["책갈피태그"]) == ["책갈피", "태그"]


def test_the_split_can_be_switched_off_to_measure_it(rt):
    # issue 49 measures each issue-37 rule on and off: off, 태그검색 is one unknown word again.
    from dataclasses import replace

    cfg = rt.config.search
    off = replace(rt, config=replace(rt.config, search=replace(cfg, query=replace(cfg.query, hangul_split=False))))
    on_hits = operations.search(rt, SearchParams("태그검색", legs="fts")).results
    off_hits = operations.search(off, SearchParams("태그검색", legs="fts")).results
    assert on_hits and not off_hits
