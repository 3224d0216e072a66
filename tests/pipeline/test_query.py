"""The query compiler's rules (docs/design.md §1.2, docs/adr/0010, 0011, 0013)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from groove.errors import BadQuery
from groove.query import COMPILER_VERSION, ParsedQuery, parse_query, span_terms

# The dev golden set lives in the shared eval data beside the repo (../shared/eval).
GOLDEN = Path(__file__).resolve().parents[3] / "shared" / "eval" / "golden-dev.jsonl"


def phrases(q: str, **kw) -> set[str]:
    return set(parse_query(q, **kw).positives)


# ---------------------------------------------------------------- phrases

def test_japanese_sentence_splits_at_script_boundaries():
    p = parse_query("再ランキングの評価について", short_cjk=False)
    assert set(p.positives) == {"再ランキング", "ランキング", "の評価", "について"}
    assert set(p.match_expr.split(" OR ")) == {'"再ランキング"', '"ランキング"', '"の評価"', '"について"'}


def test_trailing_short_run_joins_the_run_before_it():
    assert {"システム化", "システム"} <= phrases("システム化")


def test_quoted_phrase_stays_verbatim_next_to_compiled_words():
    assert parse_query('"Foundry Local" の設定', short_cjk=False).match_expr == '"Foundry Local" OR "の設定"'


def test_short_latin_word_is_dropped():
    assert phrases("AI について") == {"について"}
    assert phrases("ML pipelines") == {"pipelines"}


def test_quoting_a_short_word_does_not_save_it():
    p = parse_query('"AI"')
    assert p.positives == [] and p.match_expr is None


def test_quoting_a_wider_span_keeps_it_as_one_verbatim_phrase():
    assert parse_query('"AI について"').match_expr == '"AI について"'


def test_query_with_no_phrase_falls_back_to_the_whole_trimmed_query():
    assert parse_query("  AI と ML ").match_expr == '"AI と ML"'


def test_trimmed_query_under_three_characters_skips_the_fts_leg():
    assert parse_query(" ab ").match_expr is None
    assert parse_query("タグ", short_cjk=False).match_expr is None


def test_query_wholly_in_quotes_reproduces_verbatim_search():
    assert parse_query('"how do I sync, quickly?"').match_expr == '"how do I sync, quickly?"'


def test_doubled_quote_inside_a_phrase_is_one_literal_quote():
    p = parse_query('"say ""hi"" now"')
    assert p.positives == ['say "hi" now']
    assert p.match_expr == '"say ""hi"" now"'


def test_unpaired_quote_is_a_separator():
    assert phrases('say "hello') == {"say", "hello"}


def test_latin_and_digits_are_one_type_and_punctuation_separates():
    # The hyphenated token is also kept whole, as an identifier (below).
    assert phrases("GPT4o re-ranking") == {"GPT4o", "ranking", "re-ranking"}


@pytest.mark.parametrize("q, ident", [
    ("#page=N", "#page=N"),
    ("open obsidian://open?vault=x now", "obsidian://open?vault=x"),
    ("(end-to-end)", "end-to-end"),
    ("see Document.pdf#page=3.", "Document.pdf#page=3"),
])
def test_a_token_of_words_joined_by_symbols_is_also_an_exact_phrase(q, ident):
    assert ident in phrases(q)


@pytest.mark.parametrize("q", ["what's new", "sync?", "phone, laptop", "{{column_name}}"])
def test_apostrophes_sentence_punctuation_and_single_words_add_no_identifier(q):
    words = {w for w in phrases(q) if not any(c in w for c in "'?,{}")}
    assert phrases(q) == words


def test_full_width_latin_is_a_word_run_and_kept_as_typed():
    # No width folding: trigram matches code points, so ＡＰＩ stays ＡＰＩ.
    assert phrases("ＡＰＩキー") == {"ＡＰＩ", "ＡＰＩキー"}


def test_iteration_mark_and_long_vowel_stay_in_their_runs():
    assert phrases("人々の暮らし") == {"人々の", "暮らし"}
    assert "データー" in phrases("データー")


def test_katakana_middle_dot_separates_words():
    assert phrases("ドラッグ・ドロップ") == {"ドラッグ", "ドロップ"}


def test_duplicate_phrases_differing_only_in_case_compile_once():
    assert parse_query("Rust rust RUST").positives == ["Rust"]


# ------------------------------------------------------------- exclusions

def test_exclusion_removes_the_word_from_the_search_side():
    p = parse_query("rust -async")
    assert p.positives == ["rust"] and p.negatives == ["async"]
    assert p.match_expr == '("rust") NOT ("async")'
    assert p.negative_expr == '"async"'


def test_unquoted_exclusion_is_tokenized_like_a_positive_word():
    assert set(parse_query("foo -再ランキング").negatives) == {"再ランキング", "ランキング"}


def test_quoted_exclusion_excludes_only_the_compound():
    assert parse_query('foo -"再ランキング"').negatives == ["再ランキング"]


def test_short_exclusion_excludes_nothing_and_warns():
    p = parse_query("rust -ab")
    assert p.negatives == [] and p.negative_expr is None
    assert p.match_expr == '"rust"'
    assert any("-ab" in w for w in p.warnings)


def test_quoted_leading_hyphen_searches_a_literal_hyphen():
    p = parse_query('"-foo"')
    assert p.positives == ["-foo"] and p.negatives == []


def test_hyphen_inside_a_word_is_not_an_exclusion():
    assert parse_query("rust-async").negatives == []


def test_exclusion_only_query_is_rejected():
    with pytest.raises(BadQuery, match="only excludes"):
        parse_query("-async -tokio")


def test_a_double_hyphen_flag_is_searched_not_excluded():
    # `ob sync --continuous` asks for the flag; excluding "continuous" would
    # drop the very page that documents it (ADR 0077).
    p = parse_query("ob sync --continuous")
    assert p.negatives == [] and "continuous" in p.positives
    assert "--continuous" in p.embed_text
    assert parse_query("--x").positives == ["--x"]


@pytest.mark.parametrize("query", ["->", "-> ->", "-?", "-..."])
def test_a_hyphen_before_symbols_alone_is_text_not_an_exclusion(query):
    """`->` excluded ">" (and so 'only excludes'): nothing after the '-' can
    be excluded, so it is text, and symbols alone are refused as "???" is."""
    with pytest.raises(BadQuery, match="no letters or digits"):
        parse_query(query)


def test_an_arrow_beside_words_is_searched_text_and_warns_of_nothing():
    p = parse_query("links -> backlinks")
    assert p.negatives == [] and p.negative_expr is None and not p.warnings
    assert p.positives == ["links", "backlinks"] and p.embed_text == "links -> backlinks"


def test_a_hyphen_before_anything_with_a_letter_still_excludes():
    assert parse_query("rust -async").negatives == ["async"]
    assert parse_query("rust -#async").negatives == ["async"]  # a tag, as before
    assert parse_query('rust -"???"').negatives == ["???"]  # a quoted phrase, even of symbols
    assert parse_query('rust -"async').negatives == ["async"]  # an unpaired quote is a separator
    p = parse_query('rust -?"async"')  # '-?' holds nothing to exclude; the phrase after it is searched
    assert p.negatives == [] and p.positives == ["rust", "async"]


def test_empty_and_contentless_queries_are_rejected_with_a_message():
    for q in ["", "   ", '"', "-", "\x00\x01"]:
        with pytest.raises(BadQuery):
            parse_query(q)


def test_embed_text_has_exclusions_removed():
    assert parse_query("-tokio rust -async runtime").embed_text == "rust runtime"
    assert parse_query("rust").embed_text == "rust"


def test_exclusion_with_no_positive_phrase_still_yields_a_negative_expression():
    p = parse_query("タグ -Canvas")
    assert p.match_expr is None and p.negative_expr == '"Canvas"'
    assert p.short_terms == ["タグ"]


# --------------------------------------------------------------- short CJK

def test_whole_short_cjk_query_becomes_a_short_term():
    for q in ["脚注", "返金", "外観", "タグ", "翻訳"]:
        p = parse_query(q)
        assert p.short_terms == [q] and p.match_expr is None


def test_two_character_kanji_run_joined_by_the_phrase_rules_is_also_a_short_term():
    assert parse_query("再ランキングの評価について").short_terms == ["評価"]


def test_a_four_kanji_compound_also_yields_its_two_halves_as_short_terms():
    """ADR 0080: 保存場所 is 保存 + 場所; a page may say 保存先 or その場所."""
    p = parse_query("Androidで保管庫の保存場所を選ぶには")
    assert "保存場所" in p.positives and p.short_terms == ["保存", "場所"]
    assert parse_query("東京都庁舎への行き方").short_terms == []  # 5 kanji: no safe split
    # (kana-free, the same run reads as Chinese and adds its bigrams: ADR 0160)
    assert parse_query("保管庫").short_terms == []  # 3 kanji: 保管+庫 or 保+管庫?
    assert parse_query("表示言語 -保存場所").short_terms == ["表示", "言語"]  # exclusions stay whole


def test_hiragana_runs_inside_words_are_not_short_terms():
    assert parse_query("今日はどうする").short_terms == ["今日"]


def test_quoted_short_cjk_word_is_a_short_term():
    assert parse_query('"脚注"').short_terms == ["脚注"]


def test_short_latin_words_are_not_short_terms():
    assert parse_query("AI ML").short_terms == []


def test_short_cjk_off_compiles_exactly_the_original_expression():
    for q in ["再ランキングの評価について", "タグ", "脚注 -Canvas", '"Foundry Local" の設定', "AI と ML"]:
        on, off = parse_query(q, short_cjk=True), parse_query(q, short_cjk=False)
        assert off.short_terms == []
        assert (on.match_expr, on.negative_expr, on.positives, on.negatives) == \
               (off.match_expr, off.negative_expr, off.positives, off.negatives)


def test_span_terms_are_the_positive_content_words():
    # Highlighting terms (ADR 0255): katakana and kanji runs, not the particle-joined phrases.
    p = parse_query("再ランキングの評価について -foo")
    assert [t.text for t in span_terms(p)] == ["ランキング", "評価"]
    assert "foo" not in [t.text for t in span_terms(p)]


# -------------------------------------------------------------------- caps

def test_over_the_cap_truncates_and_warns():
    words = [f"word{i:03d}" for i in range(40)]
    p = parse_query(" ".join(words) + " " + " ".join("-neg" + w for w in words))
    assert len(p.positives) == 32 and p.positives == words[:32]
    assert len(p.negatives) == 32
    assert sum("first 32" in w for w in p.warnings) == 2


def test_cap_is_configurable():
    assert len(parse_query("alpha bravo charlie delta", max_phrases=2).positives) == 2


LONG_QUESTIONS = [
    "how do I set up Obsidian Sync so that my notes stay the same on my phone, my laptop and my work computer "
    "without conflicts",
    "what is the difference between a canvas and a base when I organise a research project",
    "Obsidian Publish でサイトを公開したあと、特定のノートだけを非公開に戻すにはどの設定を変更すればいいですか",
    "デイリーノートのテンプレートに今日の日付と曜日を自動で入れて、前日のノートへのリンクも作る方法を教えてください",
    "why does my vault open slowly on Android when it holds thousands of attachments, and can I exclude folders "
    "from indexing",
]


@pytest.mark.skipif(not GOLDEN.is_file(), reason="../shared/eval/golden-dev.jsonl (the shared eval data) is not there")
def test_realistic_queries_keep_twice_the_headroom_under_the_cap():
    queries = [json.loads(line)["query"] for line in GOLDEN.read_text().splitlines() if line.strip()]
    assert len(queries) == 40
    for q in queries + LONG_QUESTIONS:
        p = parse_query(q)
        assert len(p.positives) <= 16, (q, p.positives)
        assert len(p.negatives) <= 16
        assert len(p.short_terms) <= 16
        assert not p.warnings, (q, p.warnings)


def test_a_paragraph_long_question_still_fits_under_the_cap():
    # 24 words of English compile to 17 phrases: past the 2x headroom, still
    # well below truncation. Recorded in ADR 0013.
    q = ("what is the difference between a canvas, a base and a regular note when "
         "I want to organise a research project with many sources")
    p = parse_query(q)
    assert len(p.positives) == 17 and not p.warnings


def test_parsed_query_is_frozen_and_versioned():
    p = parse_query("rust")
    assert isinstance(p, ParsedQuery) and COMPILER_VERSION
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.match_expr = "x"  # type: ignore[misc]


def test_fallback_phrases_never_join_text_split_by_an_exclusion():
    """Found by hypothesis: '")"-NEAR(a b, 2)' once compiled to the phrase
    ') b, 2)', which is not in the query."""
    from groove.query import parse_query

    p = parse_query('")"-NEAR(a b, 2)')
    assert all(ph in '")"-NEAR(a b, 2)' for ph in p.positives)
    assert parse_query("AI と ML").positives == ["AI と ML"]
    assert parse_query("AI と ML -foo").positives == ["AI と ML"]


# ---------------------------------------------------------------- Chinese and Korean (ADR 0160)

def test_a_chinese_sentence_compiles_to_the_bigrams_of_its_words_not_one_phrase():
    p = parse_query("如何在手机和电脑之间同步笔记")
    # The whole run stays a phrase (a Japanese kanji compound typed alone is
    # found as before; a sentence matches nothing), its words are bigrams.
    assert p.positives == ["如何在手机和电脑之间同步笔记"]
    assert p.short_terms == ["手机", "电脑", "间同", "同步", "步笔", "笔记"]  # cut at 在 和 之; 如何 dropped
    assert parse_query("東京都庁舎").positives == ["東京都庁舎"]


def test_a_chinese_sentence_without_the_bigram_table_is_the_old_whole_run_phrase():
    p = parse_query("如何在手机和电脑之间同步笔记", short_cjk=False)
    assert p.positives == ["如何在手机和电脑之间同步笔记"] and p.short_terms == []


def test_a_chinese_question_is_cut_at_grammar_characters_and_loses_its_question_words():
    p = parse_query("怎么切换界面的显示语言")
    assert p.short_terms == ["切换", "换界", "界面", "显示", "示语", "语言"]
    assert "怎么" not in p.short_terms


@pytest.mark.parametrize("q, shorts, positives", [
    ("标签", ["标签"], []),  # a two-character word: the bigram table, as in Japanese
    ("快捷键", [], ["快捷键"]),  # three characters: a trigram phrase
    ("关系图谱", ["关系", "图谱"], ["关系图谱"]),  # four: the phrase and its halves (ADR 0080)
])
def test_short_chinese_words_compile_as_japanese_kanji_words_do(q, shorts, positives):
    p = parse_query(q)
    assert p.short_terms == shorts and p.positives == positives


def test_chinese_mixed_with_latin_keeps_the_latin_word_as_a_phrase():
    p = parse_query("用 Obsidian URI 打开笔记")
    assert p.positives == ["Obsidian", "URI", "打开笔记"] and p.short_terms == ["打开", "笔记"]
    p = parse_query("怎么把Evernote里的笔记导入进来")
    assert "Evernote" in p.positives and {"笔记", "导入"} <= set(p.short_terms)


def test_a_long_kanji_run_in_a_query_with_kana_stays_japanese():
    # Only a kana-free query is read as Chinese: Japanese keeps ADR 0010's phrases.
    p = parse_query("東京都知事選挙の結果")
    assert "東京都知事選挙" in p.positives and "の結果" in p.positives
    assert "都知" not in p.short_terms


def test_a_chinese_exclusion_behaves_as_a_japanese_one():
    p = parse_query("销售税 豁免 -退款政策")
    assert p.negatives == ["退款政策"] and p.match_expr == '("销售税") NOT ("退款政策")'
    short = parse_query("销售税 豁免 -退款")  # two characters: the bigram table excludes it (ADR 0223)
    assert short.negatives == [] and short.negative_shorts == ["退款"] and not short.warnings


@pytest.mark.parametrize("word, stem", [
    ("노트를", "노트"), ("동기화하려면", "동기화"), ("보관함에", "보관함"), ("설정하는", "설정"),
    ("편집기에서", "편집기"), ("마우스로", "마우스"), ("날짜별로", "날짜"), ("화면", "화면"), ("일기", "일기"),
    ("끌어서", "끌어서"), ("탭이나", "탭이나"),  # a one-syllable stem: the word as written
])
def test_a_korean_word_loses_its_particle_or_ending(word, stem):
    from groove.query import hangul_stem

    assert hangul_stem(word) == stem


def test_a_korean_sentence_searches_stems_and_drops_function_words():
    p = parse_query("앱 메뉴를 한국어로 바꾸려면 어떻게 하나요?")
    # every stem goes to the bigram table (a longer one as its bigrams' phrase),
    # so one bm25 weighs them all; 앱 (one syllable) and 어떻게, 하나요 go
    assert p.positives == [] and p.short_terms == ["메뉴", "한국어", "바꾸"]
    p = parse_query("매일 날짜별로 일기 노트를 자동으로 만들고 싶어요")
    assert p.positives == [] and p.short_terms == ["매일", "날짜", "일기", "노트", "자동", "만들"]


@pytest.mark.parametrize("q", ["태그", "검색", "번역"])
def test_a_two_syllable_korean_word_gets_a_lexical_leg(q):
    p = parse_query(q)
    assert p.short_terms == [q] and p.match_expr is None


def test_korean_mixed_with_latin_cuts_the_particle_off_the_latin_word():
    p = parse_query("Obsidian에서 동기화하려면")
    assert p.positives == ["Obsidian"] and p.short_terms == ["동기화"]
    assert parse_query("Sync를 구매했는데").positives == ["Sync"]


def test_a_korean_exclusion_behaves_as_a_japanese_one():
    p = parse_query("테마 설치 삭제 -플러그인")
    assert p.negatives == ["플러그인"] and p.short_terms == ["테마", "설치", "삭제"]
    assert p.match_expr is None and p.negative_expr == '"플러그인"'
    short = parse_query("테마 -태그를")  # a two-syllable stem: the bigram table excludes it (ADR 0223)
    assert short.negative_shorts == ["태그"] and not short.warnings


def test_korean_and_chinese_terms_are_what_match_spans_highlight():
    assert [t.text for t in span_terms(parse_query("Obsidian에서 태그를 검색"))] == ["Obsidian", "태그", "검색"]
    assert [t.text for t in span_terms(parse_query("怎么切换界面的显示语言"))][:3] == ["切换", "换界", "界面"]


def test_match_spans_highlight_the_korean_stem_and_the_chinese_words_in_the_page():
    from groove.pipeline.spans import match_spans

    ko = "노트에 태그를 추가하고 태그 패널에서 검색해요"
    spans = match_spans(ko, span_terms(parse_query("태그를 검색하려면")))
    assert [ko.encode()[s.start:s.end].decode() for s in spans] == ["태그", "태그", "검색"]
    zh = "在设置中可以切换界面语言。"
    spans = match_spans(zh, span_terms(parse_query("怎么切换界面的显示语言")))
    assert [zh.encode()[s.start:s.end].decode() for s in spans] == ["切换界面语言"]


def test_a_traditional_chinese_sentence_is_cut_as_a_simplified_one():
    simplified = parse_query("怎么在手机和电脑之间同步笔记")
    traditional = parse_query("怎麼在手機和電腦之間同步筆記")
    assert simplified.short_terms == ["手机", "电脑", "间同", "同步", "步笔", "笔记"]
    assert traditional.short_terms == ["手機", "電腦", "間同", "同步", "步筆", "筆記"]


def test_identifier_phrases_can_be_switched_off_to_measure_them():
    # issue 49 measures each issue-36 rule on and off.
    assert "#page=N" not in set(parse_query("#page=N", identifiers=False).positives)
    assert "#page=N" in set(parse_query("#page=N").positives)
