"""The short-CJK lexical index: 2-character kanji/kana and Hangul words found by FTS5.

Trigram cannot match a 2-character phrase (``脚注``, ``タグ``). This auxiliary
FTS5 table stores, per chunk and per column, every overlapping bigram of each
run of CJK letters as a space-separated token ("脚注を見る" -> "脚注 注を を見
見る"). The stock ``unicode61`` tokenizer splits that at the spaces, so no
custom tokenizer has to be registered on every connection, and a short term
is one token lookup. Contentless (``content=''``) with ``contentless_delete``
so the bigram text is not stored twice. See docs/adr/0011.

rowid = chunks.id, like fts_chunks; columns mirror fts_chunks so the same bm25
column weights apply.

Version 2 (ADR 0161) adds Hangul: a Korean two-syllable word (태그, 검색) is
as invisible to trigram as a Japanese one. An index written before holds no
Hangul bigrams; storage's migration 008 rewrites the rows of chunks that
contain Hangul (the only rows whose bigrams changed). The table itself is
created by storage's migration 007 (storage/migrations.py).
"""

from __future__ import annotations

import functools
import re

import apsw

from ...query import is_cjk

TABLE = "fts_cjk_bigrams"
VERSION = "2"  # 1: kanji and kana; 2: and Hangul (ADR 0161)
META_KEY = "shortcjk_version"
# The letters query.char_type calls HANGUL: rows holding none kept their bigrams.
HANGUL_GLOB = "\uac00-\ud7a3\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\ud7b0-\ud7ff"


def bigrams(text: str) -> str:
    """Overlapping 2-character tokens of each maximal run of CJK letters."""
    if text.isascii():
        return ""  # most chunks of a Latin-script vault: no per-character walk (~1 % of indexing)
    toks: list[str] = []
    prev = ""
    for ch in text:
        if is_cjk(ch):
            if prev:
                toks.append(prev + ch)
            prev = ch
        else:
            prev = ""
    return " ".join(toks)


@functools.cache
def _cjk_run() -> re.Pattern[str]:
    """Runs of 2+ characters ``is_cjk`` accepts, as one regex class: a walk
    of a big vault's text character by character would take seconds. Its
    letters lie in U+1100..U+3FFFF (a test checks the class against every
    code point)."""
    ranges: list[list[int]] = []
    for cp in range(0x1100, 0x40000):
        if 0xD800 <= cp < 0xE000 or not is_cjk(chr(cp)):
            continue
        if ranges and ranges[-1][1] == cp - 1:
            ranges[-1][1] = cp
        else:
            ranges.append([cp, cp])
    cls = "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)
    return re.compile(f"[{cls}]{{2,}}")


def chains(text: str) -> list[str]:
    """``bigrams(text)``'s tokens as strings whose overlapping bigrams they are.

    The table sees one token stream per column: each run's bigrams, run
    after run. A one-character run adds none, and two runs whose tokens meet
    read as one string where the first ends with the character the second
    starts with (``ab`` then ``bc`` give ``ab bc``, the tokens of ``abc``).
    Chains are the runs of 2+ characters glued there, so a term's phrase
    (``as_bigrams``) occurs in the column exactly as often as the term occurs
    in its chains, overlaps counted (ADR 0163). Elsewhere two tokens in a row
    share no character, as no term's consecutive bigrams do.
    """
    if text.isascii():
        return []
    out: list[str] = []
    for run in _cjk_run().findall(text):
        if out and out[-1][-1] == run[0]:
            out[-1] += run[1:]
        else:
            out.append(run)
    return out


def as_bigrams(term: str) -> str:
    """A short term as the table's tokens: a 2-character word is one token, a
    longer Korean stem (보관함) the phrase of its bigrams (보관 관함), which
    matches the word wherever it is written, particles after it or not."""
    return bigrams(term) if len(term) > 2 else term


VOCAB = "temp.groove_cjk_vocab"  # per connection; index/vocabulary.py reads the same view


def doc_counts(conn: apsw.Connection, terms: list[str]) -> dict[str, int]:
    """Rows holding each single-token term (a 2-character word), from FTS5's
    vocabulary: one indexed lookup instead of a count over each term's
    matches, and the same number (deleted rows included, a test checks)."""
    if not terms:
        return {}
    conn.execute(f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB} USING fts5vocab(main, {TABLE}, row)")
    marks = ",".join("?" * len(terms))
    found = dict(conn.execute(f"SELECT term, doc FROM {VOCAB} WHERE term IN ({marks})", terms))
    return {t: int(found.get(t, 0)) for t in terms}


def upsert(conn: apsw.Connection, chunk_id: int, heading: str, context: str, content: str) -> None:
    delete(conn, chunk_id)
    cols = (bigrams(heading), bigrams(context), bigrams(content))
    if any(cols):  # chunks without CJK cost nothing
        conn.execute(
            f"INSERT INTO {TABLE}(rowid, heading, context, content) VALUES (?, ?, ?, ?)",
            (chunk_id, *cols),
        )


def delete(conn: apsw.Connection, chunk_id: int) -> None:
    conn.execute(f"DELETE FROM {TABLE} WHERE rowid = ?", (chunk_id,))


def exists(conn: apsw.Connection) -> bool:
    return conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (TABLE,)
    ).fetchone() is not None
