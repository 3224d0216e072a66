"""The bigram table's in-memory index (ADR 0163) gives the short-term leg
what FTS5 gives it — the same rows, order and floats, the same coverage,
exclusions, filters and sole holders — for Chinese, Korean and Japanese
text, runs glued across separators included; it is refreshed with the word
index and equals a fresh build."""

from __future__ import annotations

import random
import sys

import apsw
import numpy as np
import pytest

from groove import operations
from groove.config import SearchConfig
from groove.engines.lexical import fts, shortcjk, word_index, word_postings
from groove.pipeline import SearchParams, resolve_params
from groove.pipeline.filters import build_restriction
from groove.pipeline.fusion import sole_holder
from groove.query import is_cjk, parse_query
from helpers import make_runtime

# Chinese clauses, Korean words with particles, and text whose runs glue:
# a run ending with the character the next starts with reads as one string
# to the table (다. 다음 -> 다음 after 다), one-character runs add no token.
CHINESE = ["如何在手机和电脑之间同步笔记", "同步冲突", "笔记本电脑", "快捷键设置", "在笔记中嵌入视频",
           "白板上的卡片和连线", "同步同步同步", "记记记记", "标签", "插件设置", "手机。机器", "笔。记"]
KOREAN = ["휴대폰과 컴퓨터 사이에서 노트를 동기화하려면", "동기 기화", "있습니다. 다음", "노트 트리",
          "태그를 검색", "보관함에서 동기화", "가가가가", "가 가나", "단축키를 지정하는 방법", "동기화동기화"]
OTHER = ["ノートを同期する", "設定を変更", "漢字한글", "ｶﾝﾊﾞｽ", "ㄱㄴㄷ", "𠀋𠀋𠀋", "同期canvas", "Obsidian에서"]
LATIN = ["sync", "note", "canvas", "graph", "plugin", "vault"]
TERMS = ["同步", "笔记", "手机", "机器", "记记", "记记记", "同步同步", "标签", "快捷键", "동기화", "기화", "동기",
         "다음", "다다", "노트", "트리", "노트트", "태그", "가가", "가가가", "휴대폰", "단축키", "同期", "設定",
         "漢字", "字한", "한글", "ｶﾝ", "ㄱㄴ", "𠀋𠀋", "보관함", "검색"]


def _note(rng: random.Random, i: int) -> str:
    def sentence() -> str:
        parts = []
        for _ in range(rng.randint(2, 8)):
            r = rng.random()
            pool = CHINESE if r < 0.35 else KOREAN if r < 0.7 else OTHER if r < 0.85 else LATIN
            parts.append(rng.choice(pool))
        return rng.choice([" ", "，", "。", ""]).join(parts) + rng.choice(["。", ".", ""])

    sections = [f"## {rng.choice(CHINESE + KOREAN)}\n\n" + " ".join(sentence() for _ in range(rng.randint(1, 3)))
                for _ in range(rng.randint(1, 3))]
    return f"# 笔记 {i} {rng.choice(KOREAN)}\n\n{sentence()}\n\n" + "\n\n".join(sections) + "\n"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, tiny_embedder):
    tmp = tmp_path_factory.mktemp("bigrams")
    vault = tmp / "vault"
    (vault / "sub").mkdir(parents=True)
    rng = random.Random(7)
    for i in range(70):
        (vault / ("sub" if i % 3 == 0 else "") / f"n{i:03d}.md").write_text(_note(rng, i), encoding="utf-8")
    rt = make_runtime(vault, tiny_embedder, tmp)
    operations.reindex(rt)
    return rt


def _small(monkeypatch, rows: int = 10, bigram_rows: int = 10) -> None:
    """The test vaults are far below a big vault's size."""
    monkeypatch.setattr(word_postings, "MIN_ROWS", rows)
    monkeypatch.setattr(word_postings, "BIGRAM_MIN_ROWS", bigram_rows)


@pytest.fixture
def words(indexed, monkeypatch):
    _small(monkeypatch)
    wp = word_index.build(indexed.index.conn)
    assert wp is not None and wp.bigrams is not None
    return wp


def _queries(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        r = i % 4
        if r == 0:  # a Chinese sentence: its bigrams become short terms
            q = rng.choice(CHINESE[:6]) + rng.choice(["", " 手机"])
        elif r == 1:  # a Korean question: stems of its words
            q = " ".join(rng.sample(KOREAN[:1] + ["노트를", "동기화하려면", "태그", "검색하기", "휴대폰에서",
                                                  "단축키를", "보관함", "가가가"], rng.randint(1, 3)))
        else:  # two-character words, quoted ones and mixed Latin
            ws = rng.sample([t for t in TERMS if len(t) == 2], rng.randint(1, 3))
            ws += rng.sample(LATIN, rng.randint(0, 1))
            q = " ".join(f'"{w}"' if rng.random() < 0.2 else w for w in ws)
        if i % 5 == 0:
            q += " -" + rng.choice(["sync", "同步冲突", "동기화", "ノート", "canvas"])
        out.append(q)
    return out


def _leg(conn: apsw.Connection, text: str, weights, limit: int, wp, restriction=None):
    q = parse_query(text)
    memo: dict[str, int] = {}
    counts: dict[str, int] = {}
    sql, docs = (restriction.sql, restriction.docs) if restriction is not None else (None, None)
    search = fts.LexicalSearch(conn, q, weights, fts.Allowed(sql, (), docs), memo=memo, counts=counts, words=wp)
    hits = fts.fts_search(search, limit)
    ids = [cid for cid, _ in hits]
    return hits, fts.query_coverage(conn, q, ids, memo, counts, words=wp)


@pytest.mark.parametrize("weights", [(2.0, 1.0, 1.0), (1.5, 0.7, 1.0), (1.0, 0.0, 1.0)])
@pytest.mark.parametrize("limit", [5, 60])
def test_the_bigram_index_ranks_exactly_as_fts5_with_the_same_coverage(indexed, words, weights, limit,
                                                                        monkeypatch):
    conn = indexed.index.conn
    calls = []
    real = word_postings.WordPostings.ranked_terms
    monkeypatch.setattr(word_postings.WordPostings, "ranked_terms",
                        lambda self, *a, **k: calls.append(1) or real(self, *a, **k))
    for text in _queries(60, seed=limit):
        want = _leg(conn, text, weights, limit, None)
        got = _leg(conn, text, weights, limit, words)
        assert got == want, text  # ids, order, the floats themselves, and each row's coverage
    assert len(calls) >= 20  # the bigram index really answered (not only after a full trigram list)


def test_every_term_counts_as_fts5_counts_its_phrase(indexed, words):
    conn = indexed.index.conn
    for t in TERMS:
        want = fts.phrase_df(conn, shortcjk.as_bigrams(t), shortcjk.TABLE)
        assert words.bigrams.df(conn, t) == want, t
    # Runs glued across a separator: "동기 기화" and "있습니다. 다음" hold 동기화 and 니다음 to the table.
    assert words.bigrams.df(conn, "동기화") > fts.phrase_df(conn, "동기화")
    assert words.bigrams.df(conn, "니다음") == fts.phrase_df(conn, "니다 다음", shortcjk.TABLE) > 0
    assert fts.phrase_df(conn, "니다음") == 0


def test_a_filter_ranks_the_same_rows(indexed, words):
    idx = indexed.index
    r = resolve_params(SearchParams(query="x", path_globs=("sub/**",)), SearchConfig())
    restriction = build_restriction(idx, r)
    assert restriction.docs is not None
    for text in _queries(24, seed=3):
        assert _leg(idx.conn, text, (2.0, 1.0, 1.0), 20, words, restriction) == \
            _leg(idx.conn, text, (2.0, 1.0, 1.0), 20, None, restriction), text


def test_the_sole_holder_of_a_term_is_the_same_read_from_memory(indexed, words):
    idx = indexed.index
    conn = idx.conn
    found = 0
    for text in _queries(40, seed=9) + ["记记记", "𠀋𠀋", "ｶﾝ", "字한", "트리"]:
        q = parse_query(text)
        hits, cov = _leg(conn, text, (2.0, 1.0, 1.0), 20, None)
        ids = [cid for cid, _ in hits]
        want = sole_holder(idx, q, ids, cov, {})
        assert sole_holder(idx, q, ids, cov, {}, words) == want, text
        found += want is not None
    assert found  # some query has one


def test_terms_it_cannot_count_are_left_to_fts5(indexed, words):
    assert not any(map(word_postings.countable, ["同", "同期canvas", "ノート 同期", "a한"]))
    conn = indexed.index.conn
    q = parse_query('"同期"')
    assert fts.bigram_postings(words, [*q.short_terms, "同期x"]) is None
    assert _leg(conn, '"同期"', (2.0, 1.0, 1.0), 10, words) == _leg(conn, '"同期"', (2.0, 1.0, 1.0), 10, None)


def test_chains_hold_the_tokens_the_table_is_given():
    """The table's tokens of a text are those of its chains, in order; a
    term's phrase occurs among them as often as the term in the chains."""
    rng = random.Random(4)
    letters = "同步笔记记가다음나ㄱ𠀋ｶﾝ漢字한"
    seps = [" ", "。", "a", "1", "・", "\n"]
    for _ in range(2000):
        text = "".join(rng.choice(letters) if rng.random() < 0.7 else rng.choice(seps)
                       for _ in range(rng.randint(0, 30)))
        chains = shortcjk.chains(text)
        tokens = shortcjk.bigrams(text).split()
        assert [c[i:i + 2] for c in chains for i in range(len(c) - 1)] == tokens, text
        for term in ("记记", "다음", "同步笔", "가다음", "한漢"):
            phrase = term if len(term) == 2 else shortcjk.as_bigrams(term)
            p = phrase.split()
            in_stream = sum(tokens[i:i + len(p)] == p for i in range(len(tokens) - len(p) + 1))
            assert sum(_overlapping(c, term) for c in chains) == in_stream, (text, term)


def _overlapping(text: str, term: str) -> int:
    return sum(text.startswith(term, i) for i in range(len(text)))


def test_the_chains_letters_are_exactly_what_is_cjk_accepts():
    pattern = shortcjk._cjk_run()
    wrong = [hex(cp) for cp in range(sys.maxunicode + 1) if not 0xD800 <= cp < 0xE000
             and (pattern.fullmatch(chr(cp) * 2) is not None) != is_cjk(chr(cp))]
    assert wrong == []


def test_the_table_tokenizer_keeps_every_pair_of_those_letters_as_it_is():
    """Why a chain's bigrams are the table's tokens: unicode61 (diacritics
    kept) neither splits nor folds a letter ``is_cjk`` accepts."""
    tok = apsw.Connection(":memory:").fts5_tokenizer("unicode61", ["remove_diacritics", "0"])
    pairs = [chr(cp) * 2 for cp in range(0x1100, 0x40000) if not 0xD800 <= cp < 0xE000 and is_cjk(chr(cp))]
    got = list(tok(" ".join(pairs).encode("utf-8"), apsw.FTS5_TOKENIZE_DOCUMENT, None,
                   include_offsets=False, include_colocated=False))
    assert got == pairs


def test_a_refresh_of_the_bigram_index_equals_a_fresh_build(tmp_path, tiny_embedder, monkeypatch):
    _small(monkeypatch)
    vault = tmp_path / "vault"
    vault.mkdir()
    rng = random.Random(2)
    for i in range(40):
        (vault / f"n{i:03d}.md").write_text(_note(rng, i), encoding="utf-8")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    conn = rt.index.conn
    base = word_index.build(conn)
    assert base is not None and base.bigrams is not None
    (vault / "n001.md").write_text(_note(rng, 1) + "\n새로운 낱말과 新的词语\n", encoding="utf-8")
    (vault / "n002.md").unlink()
    (vault / "n003.md").rename(vault / "renamed.md")
    operations.reindex(rt)
    got, want = word_index.refresh(conn, base), word_index.build(conn)
    assert got is not None and want is not None and got.bigrams is not None and want.bigrams is not None
    assert got.bigrams.version == want.bigrams.version != base.bigrams.version
    assert np.array_equal(got.bigrams.rowids, want.bigrams.rowids)
    assert np.array_equal(got.bigrams.sizes, want.bigrams.sizes)
    for t in [*TERMS, "낱말", "新的", "词语"]:
        assert got.bigrams.df(conn, t) == want.bigrams.df(conn, t) == \
            fts.phrase_df(conn, shortcjk.as_bigrams(t), shortcjk.TABLE), t
    for text in _queries(30, seed=6) + ["새로운 낱말", "新的词语"]:
        assert _leg(conn, text, (2.0, 1.0, 1.0), 20, got) == _leg(conn, text, (2.0, 1.0, 1.0), 20, None), text


def test_a_vault_with_little_cjk_text_keeps_no_bigram_index(indexed, monkeypatch):
    conn = indexed.index.conn
    rows = conn.execute(f"SELECT count(*) FROM {shortcjk.TABLE}_docsize").fetchone()[0]
    _small(monkeypatch, bigram_rows=rows + 1)
    wp = word_index.build(conn)
    assert wp is not None and wp.bigrams is None
    assert fts.bigram_postings(wp, ["同步"]) is None
    _small(monkeypatch, bigram_rows=rows)
    wp = word_index.build(conn)
    assert wp is not None and wp.bigrams is not None and len(wp.bigrams.rowids) == rows
