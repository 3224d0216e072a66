"""The short-CJK lexical index: 2-character kanji/kana words found by FTS5.

Trigram cannot match a 2-character phrase (``脚注``, ``タグ``). This auxiliary
FTS5 table stores, per chunk and per column, every overlapping bigram of each
run of CJK letters as a space-separated token ("脚注を見る" -> "脚注 注を を見
見る"). The stock ``unicode61`` tokenizer splits that at the spaces, so no
custom tokenizer has to be registered on every connection, and a short term
is one token lookup. Contentless (``content=''``) with ``contentless_delete``
so the bigram text is not stored twice. See docs/adr/0011.

rowid = chunks.id, like fts_chunks; columns mirror fts_chunks so the same bm25
column weights apply.
"""

from __future__ import annotations

import apsw

from ..query import is_cjk

TABLE = "fts_cjk_bigrams"


def create(conn: apsw.Connection) -> None:
    # remove_diacritics 0: never fold kana (グ must not become ク).
    conn.execute(
        f"""CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(
            heading, context, content,
            tokenize = 'unicode61 remove_diacritics 0',
            content = '', contentless_delete = 1
        )"""
    )


def bigrams(text: str) -> str:
    """Overlapping 2-character tokens of each maximal run of CJK letters."""
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
