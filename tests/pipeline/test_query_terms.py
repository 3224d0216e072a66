"""The query's typed terms (``groove.query.terms``, issue 51) give every
reader exactly the words it read before it stopped splitting the query
itself: the title rule, the known-word share, the unknown names, the
query's script and the named-note key.

``Before`` below is the readers' own code as it was (groove 42f2c8d), kept
as the reference: on any text, golden queries included, the terms must
agree with it word for word, so ranking and the confidence verdict cannot
move.
"""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groove.engines.lexical import shortcjk
from groove.query import (
    HAN_SENTENCE,
    HANGUL,
    HIRA,
    KANJI,
    KATA,
    SEP,
    WORD,
    char_type,
    han_bigrams,
    han_segments,
    hangul_terms,
    is_cjk,
    parse_query,
)
from groove.query.terms import script_of, terms_of

ROOT = Path(__file__).resolve().parents[2]


class Before:
    """The readers' tokenisers before issue 51, verbatim but for names."""

    STOP = frozenset(
        """a an and are as at be by can do does for from has have how i if in into is it its me my
        of on or so that the their them then there these this to too up us was we what when where
        which who why will with you your want need get make use using""".split()
    )
    NEG = re.compile(r'(?:(?<=\s)|^)-(?:"[^"]*"?|\S+)')
    QUOTE = re.compile(r'"')
    PARTICLES = set("がのをにはでともへや")
    CJK_LETTER = re.compile("[\u3005-\u3007\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
                            "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]")
    ASCII_LETTER = re.compile(r"[A-Za-z]")
    KANA_LETTER = re.compile("[\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
    HANGUL_LETTER = re.compile("[\uac00-\ud7a3\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\ud7b0-\ud7ff]")

    @staticmethod
    def is_han_sentence(run: str, kana_free: bool) -> bool:
        return kana_free and len(run) >= HAN_SENTENCE and char_type(run[0]) == KANJI

    @classmethod
    def content_words(cls, query_text: str) -> list[str]:  # pipeline/titles.py
        text = cls.QUOTE.sub(" ", cls.NEG.sub(" ", query_text)).casefold()
        words: list[str] = []
        run, kind = "", SEP
        for ch in text + " ":
            t = char_type(ch)
            if t == kind and t != SEP:
                run += ch
                continue
            if run and (
                (kind == WORD and len(run) >= 2 and run not in cls.STOP)
                or (kind in (KANJI, KATA) and len(run) >= 2)
            ):
                words.append(run)
            elif run and kind == HANGUL:
                phrases, shorts = hangul_terms(run)
                words += phrases + shorts
            run, kind = (ch, t) if t != SEP else ("", SEP)
        return list(dict.fromkeys(words))

    @classmethod
    def query_tokens(cls, text: str) -> tuple[list[str], list[str]]:  # index/vocabulary.py
        folded = unicodedata.normalize("NFKC", text)
        words: list[str] = []
        cur, kind = "", SEP
        for ch in folded + " ":
            t = char_type(ch)
            if t != kind and cur:
                if (kind == WORD and len(cur) >= 3) or (kind == KATA and len(cur) >= 2):
                    words.append(cur)
                elif kind == HANGUL:
                    phrases, shorts = hangul_terms(cur)
                    words += phrases + shorts
                cur = ""
            cur += ch
            kind = t
        kana_free = not any(char_type(c) in (HIRA, KATA) for c in folded)
        grams: list[str] = []
        for run in cls.cjk_runs(folded):
            grams += han_bigrams(run) if cls.is_han_sentence(run, kana_free) else shortcjk.bigrams(run).split()
        kanji = [g for g in grams if any(char_type(c) == KANJI for c in g) and not set(g) & cls.PARTICLES]
        grams = kanji if (kanji or words) else [g for g in grams if not any(char_type(c) == KATA for c in g)]
        return list(dict.fromkeys(words)), list(dict.fromkeys(grams))

    @staticmethod
    def cjk_runs(text: str) -> list[str]:
        runs: list[str] = []
        cur = ""
        for ch in text:
            if char_type(ch) in (KANJI, HIRA, KATA) and is_cjk(ch):
                cur += ch
            elif cur:
                runs.append(cur)
                cur = ""
        return runs + [cur] if cur else runs

    @classmethod
    def han_straddles(cls, text: str) -> list[tuple[str, str, str]]:
        folded = unicodedata.normalize("NFKC", text)
        kana_free = not any(char_type(c) in (HIRA, KATA) for c in folded)
        out: list[tuple[str, str, str]] = []
        for run in cls.cjk_runs(folded):
            if cls.is_han_sentence(run, kana_free):
                for seg in han_segments(run):
                    out += [(seg[i - 1:i + 1], seg[i:i + 2], seg[i + 1:i + 3]) for i in range(1, len(seg) - 2)]
        return out

    @classmethod
    def query_names(cls, text: str, script: str) -> list[str]:
        words = [w for w in cls.query_tokens(text)[0] if char_type(w[0]) == WORD]
        if script != "latin" or any(char_type(c) in (KANJI, HIRA, KATA, HANGUL) for c in text):
            return words
        opening = unicodedata.normalize("NFKC", text).lstrip()
        out = []
        for i, w in enumerate(words):
            inner_caps = any(c.isupper() for c in w[1:])
            mixed = any(c.isdigit() for c in w) and any(c.isalpha() for c in w)
            first = i == 0 and opening.startswith(w)
            if inner_caps or mixed or (w[0].isupper() and not first):
                out.append(w)
        return out

    @staticmethod
    def name_key(text: str) -> str:
        text = unicodedata.normalize("NFKC", text).replace('"', " ").casefold()
        return " ".join(text.split())

    @classmethod
    def query_script(cls, text: str) -> str:  # index/calibration.py
        cjk = len(cls.CJK_LETTER.findall(text))
        hangul = len(cls.HANGUL_LETTER.findall(text))
        ascii_letters = len(cls.ASCII_LETTER.findall(text))
        if hangul > cjk and 3 * hangul > ascii_letters:
            return "hangul"
        if 2 * cjk > ascii_letters:
            return "cjk" if cls.KANA_LETTER.search(text) else "han"
        return "latin"


def assert_same_words(text: str) -> None:
    t = terms_of(text)
    assert t.title_words == Before.content_words(text), text
    assert (t.vocab_words, t.vocab_grams) == Before.query_tokens(text), text
    assert t.straddles == Before.han_straddles(text), text
    for script in ("latin", "cjk", "han", "hangul"):
        assert t.names(script) == Before.query_names(text, script), (text, script)
    assert t.name_key == Before.name_key(text), text
    assert t.script == script_of(text) == Before.query_script(text), text


EDGES = [
    "", "how do I install a community theme", "今日の日付のノートを作るにはどうすればいい？",
    '"Google Keep" import', "obsidian --continuous sync", '"a -foo bar" baz', 'x "-"y z" w', "-",
    "Straße ß ẞ İstanbul", "ｓｏｕｒｄｏｕｇｈ ＣＯＭＭＡＮＤ LINE", "ｶﾞｲﾄﾞ ㌔ ㈱ ½ ﬁle ① Ⅻ", "ﾊﾝｸﾞﾙ ￡ ﾡﾢ",
    "태그 패널에서 태그를 보는 방법", "태그검색", "怎么切换界面的显示语言", "出汁のとり方", "ほげふが",
    "Export a throwaway note", "EPUB export", "sync through WebDAV on Win11", "Joplinでサワードウを育てる",
    "把笔记导出成 Word 的 docx 文件", "用 Go 的 goroutine 时出现 deadlock", "  Joplins Joplin", "café cafe\u0301",
    "カ\u3099ス が\u3099", "再ランキング の評価 システム化", "Obsidian Syncでノートを同期する方法",
    "寿司 recipe at home",
]


@pytest.mark.parametrize("text", EDGES)
def test_the_terms_are_the_words_each_reader_read_before(text):
    assert_same_words(text)


def _golden_queries() -> list[str]:
    files = sorted((ROOT / "bench" / "golden").glob("*.jsonl"))
    shared = ROOT.parent / "shared" / "eval"
    files += sorted(shared.glob("*.jsonl")) if shared.is_dir() else []
    out = []
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                if "query" in row:  # a set's header line has none
                    out.append(row["query"])
    return out


def test_every_golden_query_reads_the_same_words():
    queries = _golden_queries()
    assert len(queries) > 500  # the bench's own sets are in the repository
    for q in queries:
        assert_same_words(parse_query(q).embed_text)


PIECES = st.sampled_from([
    '"', "-", "--", "+", " ", "\t", "ß", "İ", "ｓ", "Ａ", "ｶﾞ", "㌔", "½", "ﬁ", "①", "ﾡ", "\u0301", "\u3099",
    "再", "ランキング", "の", "評価", "切换界面的显示语言", "태그를", "검색", "Joplin", "Win11", "sync", "the",
])
TEXT = st.lists(st.one_of(PIECES, st.text(max_size=6)), max_size=16).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_any_text_reads_the_same_words(text):
    assert_same_words(text)


def test_the_compiler_carries_the_terms_of_its_positive_text():
    p = parse_query('Obsidian "quick switcher" -canvas --flag')
    assert p.terms == terms_of(p.embed_text)
    assert "canvas" not in p.terms.title_words and p.terms.title_words == ["obsidian", "quick", "switcher"]
    assert [(t.text, t.script) for t in parse_query("Syncでノート태그를").terms.words] == [
        ("Sync", "latin"), ("で", "hiragana"), ("ノート", "katakana"), ("태그를", "hangul")]
