"""How much of a query's vocabulary the vault contains (ADR 0103).

``known_share`` is the IDF-weighted share of the query's words that occur
anywhere in the index. A question the vault cannot answer usually names
things the vault never mentions ("sourdough", "Nextcloud", 確定申告), while
a question it can answer is asked, mostly, in words the vault uses. The
embedding cannot tell these apart on its own: e5 puts "mitochondria" as close
to the Obsidian help as "URI".

Words, per Unicode character type (the query compiler's ``char_type``), of
the NFKC-folded query:

* Latin/digit runs of 3+ characters. A missing word is tried again without
  a plain English suffix (-s, -es, -ed, -ing, -ly) so "overwrote" stays
  unknown but "picked" finds "pick".
* Kanji runs and katakana runs of 2+ characters. A kanji run the vault lacks
  as a whole (Japanese runs several words together: 二段階認証) gets the share
  of its character bigrams the vault has; katakana loanwords do not, since
  their bigrams (コレ, クシ) occur in unrelated words.
* Hiragana runs are grammar (を, には, したい) and are skipped, unless the
  query has nothing else (ほげふが).

Presence is a ``LIMIT 1`` match in the trigram table (3+ characters) or the
short-CJK bigram table (2). A word weighs its IDF as bm25 does, from the
trigram vocabulary's upper bound on its document frequency (cheap, shared
with the full-text leg through ``memo``); an unknown word weighs the IDF of
df 0, the most a word can.
"""

from __future__ import annotations

import math
import unicodedata
from typing import TYPE_CHECKING

from . import fts, shortcjk

if TYPE_CHECKING:
    import apsw

SUFFIXES = ("ing", "ed", "es", "s", "ly")


def query_words(text: str) -> list[tuple[str, int]]:
    """(word, character type) of ``text``, deduplicated, in order."""
    # Imported here: the index must not import the pipeline package at load time.
    from ..pipeline.query import _HIRA, _KANJI, _KATA, _SEP, _WORD, char_type

    runs: list[tuple[str, int]] = []
    cur, kind = "", _SEP
    for ch in unicodedata.normalize("NFKC", text):
        t = char_type(ch)
        if t != kind and cur:
            if kind != _SEP:
                runs.append((cur, kind))
            cur = ""
        cur += ch
        kind = t
    if cur and kind != _SEP:
        runs.append((cur, kind))
    words = [(s, t) for s, t in runs if (t == _WORD and len(s) >= 3) or (t in (_KANJI, _KATA) and len(s) >= 2)]
    if not words:  # only kana grammar, or nothing checkable: hiragana runs, then nothing
        words = [(s, t) for s, t in runs if t == _HIRA and len(s) >= 2]
    return list(dict.fromkeys(words))


def _has(conn: apsw.Connection, table: str, phrase: str) -> bool:
    sql = f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1"
    return conn.execute(sql, (fts.fts_phrase(phrase),)).fetchone() is not None


def _credit(conn: apsw.Connection, word: str, kind: int, bigrams: bool) -> tuple[float, str | None]:
    """How far the vault holds ``word`` (0..1), and the form found (for its df)."""
    from ..pipeline.query import _KANJI, _WORD

    if len(word) >= 3 and _has(conn, fts.FTS_TABLE, word):
        return 1.0, word
    if kind == _WORD:
        low = word.lower()
        for suf in SUFFIXES:
            stem = word[: -len(suf)]
            if low.endswith(suf) and len(stem) >= 3 and _has(conn, fts.FTS_TABLE, stem):
                return 1.0, stem
        return 0.0, None
    if not bigrams or (kind != _KANJI and len(word) >= 3):
        return 0.0, None
    pairs = [word[i:i + 2] for i in range(len(word) - 1)]
    held = sum(_has(conn, shortcjk.TABLE, p) for p in pairs)
    if held == len(pairs) and len(word) == 2:
        return 1.0, word
    return held / len(pairs), None


def known_share(conn: apsw.Connection, text: str, memo: dict[str, int] | None = None) -> float:
    """The IDF-weighted share of ``text``'s words the index contains, in [0, 1];
    1.0 for a query with no words (no evidence either way)."""
    words = query_words(text)
    if not words:
        return 1.0
    n = fts.fts_row_count(conn)
    bigrams = shortcjk.exists(conn)
    total = held = 0.0
    for word, kind in words:
        credit, found = _credit(conn, word, kind, bigrams)
        if found is None:
            df = 0
        elif len(found) >= 3:
            df = fts.phrase_df_bounds(conn, [found], memo)[0]
        else:
            df = fts.phrase_df(conn, found, shortcjk.TABLE)
        weight = max(math.log((n - df + 0.5) / (df + 0.5)), 1e-2)
        total += weight
        held += credit * weight
    return held / total if total else 1.0
