"""How much of a query's vocabulary the vault contains (ADR 0103).

``known_share`` is the IDF-weighted share of the query's tokens that occur
anywhere in the index. A question the vault cannot answer usually names
things the vault never mentions ("sourdough", "Nextcloud", 確定申告), while
a question it can answer is asked, mostly, in words the vault uses. The
embedding cannot tell these apart on its own: e5 puts "mitochondria" as close
to the Obsidian help as "URI".

The tokens are the compiler's (``QueryTerms.vocab_words`` and ``vocab_grams``,
of the NFKC-folded positive text; this module splits no query):

* Latin/digit words of 3+ characters and katakana words of 2+. A missing
  word is tried again without a plain English suffix (-s, -es, -ed, -ing,
  -ly), so "overwrote" stays unknown but "picked" finds "pick". Present
  means a ``LIMIT 1`` trigram match; its IDF comes from the trigram
  vocabulary's upper bound on its document frequency.
* The character bigrams of each run of kanji/kana, exactly the tokens the
  short-CJK table indexes (``engines/lexical/shortcjk.py``). Japanese has no spaces and
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
from typing import TYPE_CHECKING

from ..engines.lexical import fts, shortcjk
from ..engines.lexical.word_postings import WordPostings, answers
from ..query import HANGUL, WORD, char_type
from . import hangul_split

if TYPE_CHECKING:
    import apsw

    from ..query.terms import QueryTerms
    from .notes import CarriedNames

SUFFIXES = ("ing", "ed", "es", "s", "ly")
CJK_VOCAB = "temp.groove_cjk_vocab"  # per connection, like fts.VOCAB_TABLE
# A whole word's answer in the search's trigram memo: no trigram starts with NUL.
WORD_KEY = "\0word "


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


def unknown_names(conn: apsw.Connection, terms: QueryTerms, script: str, memo: dict[str, int] | None = None,
                  word_index: WordPostings | None = None, names: CarriedNames | None = None) -> list[str]:
    """The query's names (``QueryTerms.names``) the vault never contains, not
    even inside a longer word or with a plain suffix dropped: not in any
    note's text, nor in any note's title, alias or tag (``names``). A vault
    that never mentions what a question names cannot answer it, however
    close its best passage is to the rest of the question ("export to Word
    docx" finds the export page)."""
    return [w for w in terms.names(script) if _word_df(conn, w, memo, word_index, names) == 0]


def known_share(conn: apsw.Connection, terms: QueryTerms, memo: dict[str, int] | None = None,
                skip: frozenset[str] = frozenset(), word_index: WordPostings | None = None,
                splits: dict[str, list[str]] | None = None, names: CarriedNames | None = None) -> float:
    """The IDF-weighted share of the query's tokens the index contains, in [0, 1];
    1.0 for a query with no tokens (no evidence either way). ``skip`` holds
    scripts ("latin", "cjk" or "han", "hangul") whose tokens do not count.
    A Korean word typed without spaces counts as the vault's words it is
    made of (``splits``: the search's own, ``hangul_split``). A token a
    note's title, alias or tag holds (``names``) is known."""
    words, grams = terms.vocab_words, terms.vocab_grams
    words = hangul_split.split_terms(conn, words, splits)  # 태그검색: 태그, 검색 (ADR 0224)
    if "cjk" in skip or "han" in skip:
        words, grams = [w for w in words if char_type(w[0]) in (WORD, HANGUL)], []
    if "hangul" in skip:
        words = [w for w in words if char_type(w[0]) != HANGUL]
    if "latin" in skip:
        words = [w for w in words if char_type(w[0]) != WORD]
    straddles = terms.straddles if grams else []
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
