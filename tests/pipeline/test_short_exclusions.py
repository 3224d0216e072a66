"""A 2-letter Chinese, Japanese or Korean word can be excluded (ADR 0223):
``笔记 -标签``, ``メモ -脚注``, ``노트 -태그`` drop every note (or, with
``exclusion_scope = "chunk"``, every passage) that holds the word, from every
leg, through SQLite and through a big vault's in-memory copies alike. A word
trigram cannot match was ignored before, with a warning, in all three."""

from __future__ import annotations

import dataclasses

import pytest

from groove import operations
from groove.engines.lexical import word_postings
from groove.engines.lexical.word_index import WordPostingsCache
from groove.engines.vectors import cache as vectors
from groove.engines.vectors.cache import VectorCache
from groove.pipeline import SearchParams
from groove.query import parse_query
from helpers import indexed_runtime

NOTES = {
    "zh-tags.md": "# 标签\n\n在笔记中输入井号即可添加标签，标签可以嵌套。\n\n## 搜索\n\n按标签搜索笔记。\n",
    "zh-sync.md": "# 同步\n\n在手机和电脑之间同步笔记，冲突时保留两个版本。\n",
    "zh-mixed.md": "# 笔记整理\n\n整理笔记的方法。\n\n## 附录\n\n给笔记加上标签更好找。\n",
    "zh-plain.md": "# 笔记模板\n\n用模板新建笔记，模板放在一个文件夹里。\n",
    "ja-foot.md": "# 脚注の書き方\n\nメモに脚注を付けるには角括弧を使います。\n",
    "ja-memo.md": "# メモの整理\n\nメモをフォルダに分けて整理します。\n",
    "ja-mixed.md": "# メモと引用\n\nメモの引用。\n\n## 注\n\n脚注は末尾に並びます。\n",
    "ko-tags.md": "# 태그\n\n노트에 태그를 붙이면 검색이 쉬워집니다.\n",
    "ko-sync.md": "# 동기화\n\n노트를 여러 기기에서 동기화합니다.\n",
    "ko-mixed.md": "# 노트 정리\n\n노트를 폴더로 정리합니다.\n\n## 부록\n\n태그로도 노트를 찾을 수 있습니다.\n",
}

CASES = [("笔记 -标签", "标签"), ("笔记 -\"标签\"", "标签"), ("メモ -脚注", "脚注"),
         ("노트 -태그", "태그"), ("노트 -태그를", "태그")]


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_embedder):
    runtime = indexed_runtime(tmp_path_factory.mktemp("short-exclusions"), NOTES, tiny_embedder)
    yield runtime
    runtime.close()


def _search(rt, query: str, scope: str, legs: str) -> list:
    rt.config = dataclasses.replace(rt.config, search=dataclasses.replace(rt.config.search, exclusion_scope=scope))
    return operations.search(rt, SearchParams(query, limit=20, legs=legs)).results


def _check(rt, query: str, word: str, scope: str, legs: str) -> None:
    positive = query.split(" -")[0]
    before = _search(rt, positive, scope, legs)
    holds = [h for h in before if word in h.content]
    assert holds, f"{positive!r} finds no passage with {word!r}: the test would prove nothing"
    after = _search(rt, query, scope, legs)
    assert after, query
    if scope == "chunk":
        assert not [h for h in after if word in h.content], query
    else:
        notes = {h.path for h in after}
        assert not notes & {name for name, text in NOTES.items() if word in text}, query


@pytest.mark.parametrize("legs", ["hybrid", "fts", "vector"])
@pytest.mark.parametrize("scope", ["note", "chunk"])
@pytest.mark.parametrize("query, word", CASES)
def test_a_two_letter_cjk_exclusion_drops_what_holds_the_word(rt, query, word, scope, legs):
    _check(rt, query, word, scope, legs)


@pytest.mark.parametrize("query, word", CASES)
def test_a_big_vaults_copies_exclude_the_same(rt, monkeypatch, query, word):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 5)  # the test vault is far below a big vault's size
    monkeypatch.setattr(word_postings, "BIGRAM_MIN_ROWS", 5)
    monkeypatch.setattr(vectors, "MIN_ROWS", 5)
    idx = rt.index
    sqlite_paths = [h.path for h in _search(rt, query, "note", "hybrid")]
    idx.words.warm(idx.conn)
    idx.vectors.warm(idx.conn)
    try:
        assert idx.word_postings() is not None
        _check(rt, query, word, "note", "hybrid")
        assert [h.path for h in _search(rt, query, "note", "hybrid")] == sqlite_paths
    finally:
        idx.words, idx.vectors = WordPostingsCache(), VectorCache()


@pytest.mark.parametrize("query, short", [("笔记 -标签", "标签"), ("메모 -태그를", "태그"), ("メモ -\"脚注\"", "脚注")])
def test_the_compiler_sends_a_two_letter_exclusion_to_the_bigram_table(query, short):
    p = parse_query(query)
    assert p.negative_shorts == [short] and p.negatives == [] and not p.warnings
    assert short not in p.embed_text
    assert parse_query(query, short_cjk=False).negative_shorts == []  # no bigram table: nothing to match it in


@pytest.mark.parametrize("query", ["笔记 -猫", "notes -ab", "메모 -책"])
def test_what_is_still_too_short_to_exclude_is_said(query):
    p = parse_query(query)
    assert p.negative_shorts == [] and p.negatives == []
    assert p.warnings and "ignored" in p.warnings[0]
