"""known_share: the IDF-weighted share of a query's words the vault holds
(ADR 0103), on a real index of the bilingual kitchen notebook."""

from __future__ import annotations

from pathlib import Path

import pytest

from groove.config import Config
from groove.index.vocabulary import known_share, unknown_names
from groove.indexer import index_vault
from groove.query.terms import terms_of
from groove.runtime import open_runtime


def query_tokens(text: str) -> tuple[list[str], list[str]]:
    t = terms_of(text)
    return t.vocab_words, t.vocab_grams


KITCHEN = Path(__file__).resolve().parents[1] / "fixtures" / "vault-kitchen"


@pytest.fixture(scope="module")
def conn(tiny_embedder, tmp_path_factory):
    rt = open_runtime(KITCHEN, index_path=tmp_path_factory.mktemp("kitchen") / "index.sqlite", config=Config())
    rt._embedder = tiny_embedder
    index_vault(rt.vault, rt.index, tiny_embedder, rt.config.index)
    yield rt.index.conn
    rt.close()


def test_words_the_vault_uses_are_known_and_made_up_ones_are_not(conn):
    assert known_share(conn, terms_of("sourdough starter")) == 1.0
    assert known_share(conn, terms_of("zxqv wobble florp")) == 0.0


def test_unknown_rare_words_outweigh_known_common_ones(conn):
    # "how" is in the vault; "photosynthesis" is not and weighs the most a word can
    assert known_share(conn, terms_of("how photosynthesis")) < 0.25


def test_a_plain_english_suffix_is_dropped_before_a_word_counts_as_unknown(conn):
    assert known_share(conn, terms_of("feedings")) == 1.0  # "feeding" is in the starter note
    assert known_share(conn, terms_of("overwrote")) == 0.0  # no suffix to drop


def test_japanese_is_read_as_kanji_bigrams_without_particles(conn):
    assert query_tokens("出汁のとり方") == ([], ["出汁", "り方"])  # "汁の" is grammar
    assert known_share(conn, terms_of("出汁のとり方")) == 1.0
    assert known_share(conn, terms_of("確定申告のやり方")) < 0.35  # 確定, 定申, 申告 are nowhere


def test_a_katakana_word_counts_only_whole(conn):
    # both halves of ルーカレー are in the curry note, the word is not
    assert known_share(conn, terms_of("カレールー")) == 1.0
    assert known_share(conn, terms_of("ルーカレー")) == 0.0


def test_a_kana_only_query_is_read_by_its_bigrams(conn):
    assert query_tokens("ほげふが") == ([], ["ほげ", "げふ", "ふが"])
    assert known_share(conn, terms_of("ほげふが")) == 0.0


def test_full_width_letters_are_folded_like_ascii(conn):
    assert query_tokens("ｓｏｕｒｄｏｕｇｈ")[0] == ["sourdough"]
    assert known_share(conn, terms_of("ｓｏｕｒｄｏｕｇｈ")) == 1.0


def test_a_query_with_no_word_to_check_is_no_evidence_either_way(conn):
    for q in ("", "!!!", "AI"):
        assert known_share(conn, terms_of(q)) == 1.0


def test_words_in_a_skipped_script_count_neither_way(conn):
    # ADR 0131: a Japanese question of English notes; its Japanese words say nothing about the topic
    assert known_share(conn, terms_of("量子もつれ sourdough")) < 0.5
    assert known_share(conn, terms_of("量子もつれ sourdough"), skip=frozenset({"cjk"})) == 1.0
    assert known_share(conn, terms_of("量子もつれ zxqv"), skip=frozenset({"cjk"})) == 0.0
    assert known_share(conn, terms_of("量子もつれ"), skip=frozenset({"cjk"})) == 1.0  # nothing left to check
    assert known_share(conn, terms_of("出汁 zxqv"), skip=frozenset({"latin"})) == 1.0


def test_every_latin_word_of_a_cjk_query_is_a_name_but_only_capitalised_ones_in_english():
    # ADR 0220: a Latin word inside a Chinese, Japanese or Korean question names a
    # tool or a format; an English question's lower-case words are its phrasing.
    assert terms_of("把笔记导出成 Word 的 docx 文件").names("han") == ["Word", "docx"]
    assert terms_of("Joplin에서 노트를 옮겨 오는 방법").names("hangul") == ["Joplin"]
    assert terms_of("用 Go 的 goroutine 时出现 deadlock").names("latin") == ["goroutine", "deadlock"]  # 2 letters: no
    assert terms_of("import my notebooks from Joplin").names("latin") == ["Joplin"]
    assert terms_of("sync through WebDAV on Win11").names("latin") == ["WebDAV", "Win11"]
    assert terms_of("Export a throwaway note").names("latin") == []  # an opening capital is a sentence's
    assert terms_of("EPUB export").names("latin") == ["EPUB"]  # ... unless the word is capitals throughout


def test_a_name_the_vault_never_contains_is_unknown_however_well_the_rest_is_known(conn):
    assert unknown_names(conn, terms_of("feed the sourdough starter from Joplin"), "latin") == ["Joplin"]
    assert unknown_names(conn, terms_of("Joplinでサワードウを育てる"), "cjk") == ["Joplin"]
    # inside a longer word, in any case, or with a plain suffix dropped, a name is known
    assert unknown_names(conn, terms_of("my Sourdough and Pizzas"), "latin") == []
    assert unknown_names(conn, terms_of("pizza生地の発酵時間"), "cjk") == []


def test_one_search_looks_each_word_up_once(conn, monkeypatch):
    """known_share and unknown_names read the same words: with the search's
    memo the second asks SQLite nothing, and answers the same."""
    from groove.index import vocabulary

    query = "Joplin から sourdough を移す"
    alone = unknown_names(conn, terms_of(query), "cjk")
    looked: list[str] = []
    real = vocabulary._has
    monkeypatch.setattr(vocabulary, "_has", lambda c, phrase: looked.append(phrase) or real(c, phrase))
    memo: dict[str, int] = {}
    share = known_share(conn, terms_of(query), memo)
    first = len(looked)
    assert first and unknown_names(conn, terms_of(query), "cjk", memo) == alone == ["Joplin"]
    assert len(looked) == first and known_share(conn, terms_of(query)) == share
