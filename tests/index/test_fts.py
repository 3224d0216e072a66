"""The lexical leg and the exclusion scan on a real FTS5 trigram table."""

from __future__ import annotations

import apsw
import pytest

from groove.engines.lexical import fts, shortcjk
from groove.query import parse_query
from groove.storage import migrations

W = (2.0, 1.0, 1.0)


def make(rows: list[tuple[int, str, str, str]]) -> apsw.Connection:
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    migrations.m007_short_cjk_bigrams(c)
    for rid, h, ctx, body in rows:
        c.execute("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?,?,?,?)",
                  (rid, h, ctx, body))
        shortcjk.upsert(c, rid, h, ctx, body)
    return c


@pytest.fixture()
def excl() -> apsw.Connection:
    return make([
        (1, "Rust async runtimes", "Notes > Rust", "tokio and smol schedule tasks"),  # heading only
        (2, "Rust runtimes", "Notes > async > Rust", "tokio and smol schedule tasks"),  # context only
        (3, "Rust runtimes", "Notes > Rust", "tokio is an async runtime"),  # body only
        (4, "Rust runtimes", "Notes > Rust", "tokio and smol schedule tasks"),  # clean
    ])


def ids(hits: list[tuple[int, float]]) -> set[int]:
    return {rid for rid, _ in hits}


@pytest.mark.parametrize("where, rid", [("heading", 1), ("context", 2), ("content", 3)])
def test_exclusion_agrees_across_legs_wherever_the_word_appears(excl, where, rid):
    p = parse_query("rust -async")
    lexical = ids(fts.fts_search(fts.LexicalSearch(excl, p, W), 50))
    dropped = fts.excluded_ids(excl, p)
    assert rid not in lexical, where
    assert rid in dropped, where
    assert lexical == {4}
    assert dropped == {1, 2, 3}


def test_exclusion_scan_is_skipped_without_negatives(excl):
    assert fts.excluded_ids(excl, parse_query("rust")) == set()


def test_exclusion_scan_obeys_the_restriction(excl):
    p = parse_query("rust -async")
    assert fts.excluded_ids(excl, p, "SELECT ? UNION SELECT ?", (1, 4)) == {1}


def test_restriction_applies_inside_the_lexical_leg(excl):
    p = parse_query("tokio")
    assert ids(fts.fts_search(fts.LexicalSearch(excl, p, W, fts.Allowed("SELECT ?", (3,))), 50)) == {3}


def test_results_are_best_first_with_higher_scores_better(excl):
    c = make([(1, "x", "y", "sync " + "filler " * 200), (2, "sync", "y", "sync sync")])
    hits = fts.fts_search(fts.LexicalSearch(c, parse_query("sync"), W), 10)
    assert [r for r, _ in hits] == [2, 1]
    assert hits[0][1] > hits[1][1] > 0


def test_japanese_sentence_finds_rows_a_verbatim_phrase_misses():
    c = make([(1, "評価", "Doc", "再ランキングを使う。その評価について述べる。")])
    p = parse_query("再ランキングの評価について", short_cjk=False)
    assert ids(fts.fts_search(fts.LexicalSearch(c, p, W), 10)) == {1}
    whole = '"再ランキングの評価について"'
    assert c.execute("SELECT rowid FROM fts_chunks WHERE fts_chunks MATCH ?", (whole,)).fetchall() == []


@pytest.mark.parametrize("term", ["脚注", "返金", "外観", "タグ", "翻訳"])
def test_short_cjk_terms_are_found_lexically(term):
    c = make([(1, "書式", "ヘルプ > 書式", f"本文に{term}を入れる"), (2, "他", "ヘルプ", "関係ない本文")])
    assert ids(fts.fts_search(fts.LexicalSearch(c, parse_query(term), W), 10)) == {1}
    assert fts.fts_search(fts.LexicalSearch(c, parse_query(term, short_cjk=False), W), 10) == []


def test_short_cjk_term_in_the_heading_outranks_one_in_the_body():
    c = make([(1, "設定", "A", "説明文です"), (2, "説明", "A", "ここで設定する")])
    assert [r for r, _ in fts.fts_search(fts.LexicalSearch(c, parse_query("設定"), (5.0, 1.0, 1.0)), 10)] == [1, 2]


def test_short_cjk_leg_obeys_exclusions():
    c = make([(1, "脚注", "A", "脚注と Canvas"), (2, "脚注", "A", "脚注だけ")])
    p = parse_query("脚注 -Canvas")
    assert ids(fts.fts_search(fts.LexicalSearch(c, p, W), 10)) == {2}
    assert fts.excluded_ids(c, p) == {1}


def test_bigram_only_rows_follow_the_trigram_hits_in_one_list():
    c = make([(2, "C", "D", "評価の話 評価 評価"), (1, "A", "B", "再ランキングの話"), (3, "E", "F", "無関係")])
    hits = fts.fts_search(fts.LexicalSearch(c, parse_query("再ランキングの評価"), W), 10)
    assert [r for r, _ in hits] == [1, 2]
    assert fts.fts_search(fts.LexicalSearch(c, parse_query("再ランキングの評価", short_cjk=False), W), 10)[0][0] == 1


def test_a_full_trigram_list_skips_ranking_the_bigram_only_rows():
    """They would all be cut at the limit; the result is the same list."""
    rows = [(i, "A", "B", "再ランキングの話") for i in range(1, 6)] + [(9, "C", "D", "評価 評価 評価")]
    c = make(rows)
    p = parse_query("再ランキングの評価")
    seen: list[str] = []

    def trace(cursor, sql, bindings):
        seen.append(sql)
        return True

    c.exec_trace = trace
    full = fts.fts_search(fts.LexicalSearch(c, p, W), 3)
    assert not any(shortcjk.TABLE in sql for sql in seen)
    seen.clear()
    roomy = fts.fts_search(fts.LexicalSearch(c, p, W), 10)
    assert any(shortcjk.TABLE in sql for sql in seen)
    assert 9 in ids(roomy)  # room left: the bigram-only row follows the trigram hits
    assert full == roomy[:3]


def test_a_page_using_the_halves_of_a_four_kanji_query_word_is_found():
    """ADR 0080: the page says 保存先 and 場所, never 保存場所."""
    c = make([(1, "Android", "", "保管庫の保存先は設定の場所から選べます"), (2, "iOS", "", "無関係な話")])
    assert ids(fts.fts_search(fts.LexicalSearch(c, parse_query("保存場所"), W), 10)) == {1}


def test_short_cjk_index_upsert_replaces_and_delete_removes():
    c = make([(1, "", "", "脚注")])
    shortcjk.upsert(c, 1, "", "", "返金")
    assert fts.fts_search(fts.LexicalSearch(c, parse_query("脚注"), W), 10) == []
    assert ids(fts.fts_search(fts.LexicalSearch(c, parse_query("返金"), W), 10)) == {1}
    shortcjk.delete(c, 1)
    assert fts.fts_search(fts.LexicalSearch(c, parse_query("返金"), W), 10) == []


def test_missing_short_cjk_index_degrades_to_the_trigram_leg():
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    c.execute("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (1, 'タグ', '', 'タグの使い方')")
    assert fts.fts_search(fts.LexicalSearch(c, parse_query("タグ"), W), 10) == []
    assert ids(fts.fts_search(fts.LexicalSearch(c, parse_query("タグの使い方"), W), 10)) == {1}


def test_row_count_reads_the_fts5_averages_record():
    c = make([(i, "h", "c", f"body {i}") for i in range(1, 301)])
    assert fts.fts_row_count(c) == 300
    c.execute("DELETE FROM fts_chunks WHERE rowid <= 100")
    assert fts.fts_row_count(c) == 200


def common_rows(n: int) -> list[tuple[int, str, str, str]]:
    # "について" is in every row; "再ランキング" in 5 of them.
    return [(i, "h", "c", ("再ランキング" if i % 40 == 0 else "検索") + "の評価について" + "。" * (i % 7))
            for i in range(1, n + 1)]


def test_phrase_in_over_half_the_rows_leaves_the_ranked_expression():
    c = make(common_rows(200))
    p = parse_query("再ランキング について", short_cjk=False)
    assert set(p.positives) == {"再ランキング", "ランキング", "について"}
    assert fts.ranked_phrases(c, p.positives) == ["再ランキング", "ランキング"]


def test_pruning_keeps_the_rarest_phrase_when_every_phrase_is_common():
    c = make(common_rows(200))
    kept = fts.ranked_phrases(c, ["について", "の評価", "評価について"])
    assert len(kept) == 1 and kept[0] in ("について", "の評価", "評価について")


def test_pruning_does_not_change_the_top_results():
    c = make(common_rows(400))
    p = parse_query("再ランキング の評価について", short_cjk=False)
    pruned = fts.fts_search(fts.LexicalSearch(c, p, W), 50)
    full = fts.fts_search(fts.LexicalSearch(c, p, W, prune=False), 50)
    top = [r for r, _ in full if r % 40 == 0]
    assert len(top) == 10 and [r for r, _ in pruned][: len(top)] == top
    assert len(pruned) == len(full) == 50


def test_pruned_leg_still_returns_rows_matching_only_common_phrases():
    c = make(common_rows(100))
    p = parse_query("再ランキング について", short_cjk=False)
    hits = fts.fts_search(fts.LexicalSearch(c, p, W), 100)
    assert len(hits) == 100  # the 2 rare rows ranked, the rest appended unranked
    assert {r for r, s in hits if s > 0} == {40, 80}


@pytest.mark.parametrize("term", ["태그", "검색", "번역"])
def test_a_two_syllable_korean_word_is_found_through_the_bigram_table(term):
    """ADR 0161: Hangul is in the bigram table, so 태그 finds 태그를 and 태그는."""
    c = make([(1, "서식", "도움말", f"노트에 {term}를 추가하고 {term}는 패널에 보여요"),
              (2, "기타", "도움말", "관계없는 본문")])
    assert ids(fts.fts_search(fts.LexicalSearch(c, parse_query(term), W), 10)) == {1}


def test_a_chinese_sentence_finds_the_page_holding_its_words():
    c = make([(1, "同步笔记", "", "你可以在手机和电脑上同步笔记。"), (2, "外观", "", "更改主题和字体。")])
    assert ids(fts.fts_search(fts.LexicalSearch(c, parse_query("如何在手机和电脑之间同步笔记"), W), 10)) == {1}
    no_bigrams = parse_query("如何在手机和电脑之间同步笔记", short_cjk=False)
    assert fts.fts_search(fts.LexicalSearch(c, no_bigrams, W), 10) == []


def test_an_index_from_before_hangul_gets_its_korean_rows_bigrams_on_open(tmp_path):
    from groove.storage.db import Index

    idx = Index(tmp_path / "index.sqlite")
    c = idx.conn
    for rid, body in ((1, "태그를 추가해요"), (2, "タグを追加する")):
        c.execute("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?, '', '', ?)", (rid, body))
        shortcjk.upsert(c, rid, "", "", body)
    # What version 1 wrote: kanji and kana bigrams only, in a file from
    # before the migrations table (its stamps say what ran).
    c.execute(f"DELETE FROM {shortcjk.TABLE} WHERE rowid = 1")
    c.execute("UPDATE meta SET value = '1' WHERE key = ?", (shortcjk.META_KEY,))
    c.execute("DROP TABLE migrations")
    assert fts.fts_search(fts.LexicalSearch(c, parse_query("태그"), W), 10) == []
    idx.close()
    again = Index(tmp_path / "index.sqlite")
    assert ids(fts.fts_search(fts.LexicalSearch(again.conn, parse_query("태그"), W), 10)) == {1}
    assert ids(fts.fts_search(fts.LexicalSearch(again.conn, parse_query("タグ"), W), 10)) == {2}
    assert again.get_meta(shortcjk.META_KEY) == shortcjk.VERSION
    again.close()


def test_a_korean_exclusion_drops_the_rows_holding_the_excluded_stem():
    c = make([(1, "테마", "", "테마를 설치하고 플러그인을 켜요"), (2, "테마", "", "테마를 설치해요")])
    p = parse_query("테마 설치 -플러그인")
    assert ids(fts.fts_search(fts.LexicalSearch(c, p, W), 10)) == {2}
    assert fts.excluded_ids(c, p) == {1}


def test_the_bigram_vocabulary_counts_what_a_match_counts_after_deletes_and_rewrites():
    """query_coverage reads a 2-character term's document count from FTS5's
    vocabulary; on the contentless table that must equal counting its matches."""
    c = make([(i, "设置 笔记" if i % 3 == 0 else "其他", "", "笔记 同步" if i % 2 == 0 else "无")
              for i in range(1, 400)])
    for i in range(1, 400, 5):
        shortcjk.delete(c, i)
    for i in range(2, 120, 7):
        shortcjk.upsert(c, i, "笔记", "", "")
    terms = ["笔记", "设置", "同步", "其他", "缺席"]
    assert shortcjk.doc_counts(c, terms) == {t: fts.phrase_df(c, t, shortcjk.TABLE) for t in terms}
