"""How much of a query's vocabulary the vault contains (ADR 0103).

``known_share`` is the IDF-weighted share of the query's tokens that occur
anywhere in the index. A question the vault cannot answer usually names
things the vault never mentions ("sourdough", "Nextcloud", 確定申告), while
a question it can answer is asked, mostly, in words the vault uses. The
embedding cannot tell these apart on its own: e5 puts "mitochondria" as close
to the Obsidian help as "URI".

Tokens of the NFKC-folded query (exclusions already removed by the caller):

* Latin/digit words of 3+ characters (the query compiler's ``char_type``
  runs). A missing word is tried again without a plain English suffix (-s,
  -es, -ed, -ing, -ly), so "overwrote" stays unknown but "picked" finds
  "pick". Present means a ``LIMIT 1`` trigram match; its IDF comes from the
  trigram vocabulary's upper bound on its document frequency.
* The character bigrams of each run of kanji/kana, exactly the tokens the
  short-CJK table indexes (``index/shortcjk.py``). Japanese has no spaces and
  many words are kana (おにぎり) or one kanji with kana (握り方), so whole-run
  words would miss them; bigrams need no dictionary, and grammar bigrams
  (りの, には) are common, hence light. Presence and document frequency are
  one lookup in an fts5vocab view of that table.

A token weighs its IDF as bm25 does (N = chunks); an unknown token weighs
the IDF of df 0, the most a token can.

Tokens of a script the vault is not written in (``skip``: Japanese words
asked of English notes) are left out: their absence says nothing about the
topic, only about the language (ADR 0131).
"""

from __future__ import annotations

import math
import unicodedata
from typing import TYPE_CHECKING

from ..engines.lexical import fts, shortcjk
from ..engines.lexical.word_postings import WordPostings, answers
from ..query import (
    HANGUL,
    HIRA,
    KANJI,
    KATA,
    SEP,
    WORD,
    _is_han_sentence,
    char_type,
    han_bigrams,
    han_segments,
    hangul_terms,
    is_cjk,
)
from . import hangul_split

if TYPE_CHECKING:
    import apsw

    from .notes import CarriedNames

SUFFIXES = ("ing", "ed", "es", "s", "ly")
PARTICLES = set("がのをにはでともへや")
CJK_VOCAB = "temp.groove_cjk_vocab"  # per connection, like fts.VOCAB_TABLE
# A whole word's answer in the search's trigram memo: no trigram starts with NUL.
WORD_KEY = "\0word "


def query_tokens(text: str) -> tuple[list[str], list[str]]:
    """(whole words, kanji bigrams) of ``text``, each deduplicated in order.

    Whole words: Latin/digit runs of 3+ characters and katakana runs of 2+ (a
    loanword's bigrams occur in unrelated words: サッカー's カー in カード).
    Bigrams: those of each kanji/kana run that hold a kanji (a word stem, or
    a stem and its kana ending); kana-only bigrams are mostly grammar (には,
    して) and count only when the query has nothing else (ほげふが)."""
    folded = unicodedata.normalize("NFKC", text)
    words: list[str] = []
    cur, kind = "", SEP
    for ch in folded + " ":
        t = char_type(ch)
        if t != kind and cur:
            if (kind == WORD and len(cur) >= 3) or (kind == KATA and len(cur) >= 2):
                words.append(cur)
            elif kind == HANGUL:  # Korean: the compiler's stems, particles cut (ADR 0162)
                phrases, shorts = hangul_terms(cur)
                words += phrases + shorts
            cur = ""
        cur += ch
        kind = t
    kana_free = not any(char_type(c) in (HIRA, KATA) for c in folded)
    grams: list[str] = []
    for run in _cjk_runs(folded):
        # A Chinese sentence: the compiler's bigrams, cut at grammar
        # characters, not those that straddle two words (ADR 0162).
        grams += han_bigrams(run) if _is_han_sentence(run, kana_free) else shortcjk.bigrams(run).split()
    # A kanji and a particle (当が, の握) is grammar, not a word.
    kanji = [g for g in grams if any(char_type(c) == KANJI for c in g) and not set(g) & PARTICLES]
    grams = kanji if (kanji or words) else [g for g in grams if not any(char_type(c) == KATA for c in g)]
    return list(dict.fromkeys(words)), list(dict.fromkeys(grams))


def _cjk_runs(text: str) -> list[str]:
    """The maximal runs of kanji and kana letters (what ``shortcjk.bigrams`` pairs up)."""
    runs: list[str] = []
    cur = ""
    for ch in text:
        if char_type(ch) in (KANJI, HIRA, KATA) and is_cjk(ch):
            cur += ch
        elif cur:
            runs.append(cur)
            cur = ""
    return runs + [cur] if cur else runs


def han_straddles(text: str) -> list[tuple[str, str, str]]:
    """(before, bigram, after) for each bigram inside a Chinese sentence's
    segment with a neighbour on both sides (ADR 0162). Chinese has no spaces,
    so 切换界面 yields 换界, which straddles two words: a vault holding both
    neighbours (切换, 界面) but not it says nothing about the topic."""
    folded = unicodedata.normalize("NFKC", text)
    kana_free = not any(char_type(c) in (HIRA, KATA) for c in folded)
    out: list[tuple[str, str, str]] = []
    for run in _cjk_runs(folded):
        if _is_han_sentence(run, kana_free):
            for seg in han_segments(run):
                out += [(seg[i - 1:i + 1], seg[i:i + 2], seg[i + 1:i + 3]) for i in range(1, len(seg) - 2)]
    return out


def _has(conn: apsw.Connection, phrase: str) -> bool:
    return fts.matches_any(conn, fts.fts_phrase(phrase))


def _word_df(conn: apsw.Connection, word: str, memo: dict[str, int] | None,
             word_index: WordPostings | None = None, names: CarriedNames | None = None) -> int:
    """0 when the vault lacks ``word`` (and its suffix-less stem), else an upper
    bound on its document frequency. ``word_index`` (a big vault's,
    ADR 0132, 0141) answers for plain ASCII words and kana-and-kanji
    words without touching FTS5. A word only a note's alias or tag holds
    (``names``; the text index has neither) is known, in one note (ADR 0251)."""
    if len(word) < 3:  # a 2-character katakana word: one bigram token
        return _carried(_bigram_dfs(conn, [word]), [word], names)[0]
    key = WORD_KEY + word  # known_share and unknown_names ask for the same words
    if memo is not None and key in memo:
        return memo[key]
    df = 0
    forms = [word] + [word[: -len(s)] for s in SUFFIXES if word.lower().endswith(s) and len(word) - len(s) >= 3]
    for form in forms:
        held = (word_index.df(conn, form) > 0 if word_index is not None and answers(form)
                else _has(conn, form))
        if held:
            df = max(fts.phrase_df_bounds(conn, [form], memo, word_index)[0], 1)
            break
    if df == 0 and names is not None and any(names.holds(f) for f in forms):
        df = 1
    if memo is not None:
        memo[key] = df
    return df


def _carried(dfs: list[int], tokens: list[str], names: CarriedNames | None) -> list[int]:
    """``dfs`` with a token the text lacks but a note's name holds counted as in one note."""
    if names is None:
        return dfs
    return [1 if df == 0 and names.holds(t) else df for df, t in zip(dfs, tokens)]


def _bigram_dfs(conn: apsw.Connection, grams: list[str]) -> list[int]:
    if not grams or not shortcjk.exists(conn):
        return [0] * len(grams)
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {CJK_VOCAB} USING fts5vocab(main, {shortcjk.TABLE}, row)")
    marks = ",".join("?" * len(grams))
    df = dict(conn.execute(f"SELECT term, doc FROM {CJK_VOCAB} WHERE term IN ({marks})", grams))
    return [df.get(g, 0) for g in grams]


def query_names(text: str, script: str) -> list[str]:
    """The words of ``text`` that name something (ADR 0220): in a query with
    any Chinese, Japanese or Korean letter, every Latin or digit word of 3+
    characters (Joplin, OCR, docx are names or formats there, never
    grammar); in a Latin query a word with a capital past its first letter (WebDAV, EPUB),
    one with letters and digits (Win11), or a capitalised word that does not
    open the query (Joplin, Kindle). Lower-case English words are left out:
    "throwaway" or "overwrote" are how a question is phrased, not what it is
    about."""
    words = [w for w in query_tokens(text)[0] if char_type(w[0]) == WORD]
    if script != "latin" or any(char_type(c) in (KANJI, HIRA, KATA, HANGUL) for c in text):
        return words
    opening = unicodedata.normalize("NFKC", text).lstrip()
    out = []
    for i, w in enumerate(words):
        inner_caps = any(c.isupper() for c in w[1:])
        mixed = any(c.isdigit() for c in w) and any(c.isalpha() for c in w)
        first = i == 0 and opening.startswith(w)  # "Export ..." is capitalised as a sentence is
        if inner_caps or mixed or (w[0].isupper() and not first):
            out.append(w)
    return out


def unknown_names(conn: apsw.Connection, text: str, script: str, memo: dict[str, int] | None = None,
                  word_index: WordPostings | None = None, names: CarriedNames | None = None) -> list[str]:
    """The names of ``text`` (``query_names``) the vault never contains, not
    even inside a longer word or with a plain suffix dropped: not in any
    note's text, nor in any note's title, alias or tag (``names``). A vault
    that never mentions what a question names cannot answer it, however
    close its best passage is to the rest of the question ("export to Word
    docx" finds the export page)."""
    return [w for w in query_names(text, script) if _word_df(conn, w, memo, word_index, names) == 0]


def known_share(conn: apsw.Connection, text: str, memo: dict[str, int] | None = None,
                skip: frozenset[str] = frozenset(), word_index: WordPostings | None = None,
                splits: dict[str, list[str]] | None = None, names: CarriedNames | None = None) -> float:
    """The IDF-weighted share of ``text``'s tokens the index contains, in [0, 1];
    1.0 for a query with no tokens (no evidence either way). ``skip`` holds
    scripts ("latin", "cjk" or "han", "hangul") whose tokens do not count.
    A Korean word typed without spaces counts as the vault's words it is
    made of (``splits``: the search's own, ``hangul_split``). A token a
    note's title, alias or tag holds (``names``) is known."""
    words, grams = query_tokens(text)
    words = hangul_split.split_terms(conn, words, splits)  # 태그검색: 태그, 검색 (ADR 0224)
    if "cjk" in skip or "han" in skip:
        words, grams = [w for w in words if char_type(w[0]) in (WORD, HANGUL)], []
    if "hangul" in skip:
        words = [w for w in words if char_type(w[0]) != HANGUL]
    if "latin" in skip:
        words = [w for w in words if char_type(w[0]) != WORD]
    straddles = han_straddles(text) if grams else []
    if straddles:
        around = list(dict.fromkeys(g for a, _, c in straddles for g in (a, c)))
        known = {g for g, df in zip(around, _bigram_dfs(conn, around)) if df > 0}
        gram_df = dict(zip(grams, _bigram_dfs(conn, grams)))
        seams = {b for a, b, c in straddles if gram_df.get(b) == 0 and a in known and c in known}
        grams = [g for g in grams if g not in seams]
    dfs = [_word_df(conn, w, memo, word_index, names) for w in words] + _carried(_bigram_dfs(conn, grams), grams,
                                                                                   names)
    if not dfs:
        return 1.0
    n = fts.fts_row_count(conn)
    weights = [max(math.log((n - df + 0.5) / (df + 0.5)), 1e-2) for df in dfs]
    return sum(w for w, df in zip(weights, dfs) if df > 0) / sum(weights)
