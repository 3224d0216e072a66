"""Korean typed without spaces, split by the words the vault holds (ADR 0224).

Korean users often leave the spaces out of a search: 태그검색 for 태그 검색,
동기화충돌, 노트를동기화하려면. The compiler reads a Hangul run as one word
and searches its stem (ADR 0160), here 태그검색 or 노트를동기화, which no page
contains: the lexical leg finds nothing and ``known_share`` calls every
word unknown, so "nothing here" fires on a question the vault answers.

A stem of 4+ syllables that the bigram table does not hold is cut, left
to right, into the longest pieces some word of the vault begins with (a
space or a line break, then the piece: one trigram match, ``LIMIT 1``). The vault is the
dictionary, and a word's start is what marks a word: 자로 is inside
사용자로 but starts no word, so 노트를책자로인쇄 does not lend it its
letters. Syllables no word starts with stay together as a remainder:
an unknown word, searched as written and counted as unknown by
``known_share``. Each piece then goes through the compiler's own rules
(``hangul_terms``: its particle cut, a function word dropped), so
노트를동기화 searches 노트 and 동기화, as the spaced question does. A stem
the vault holds, or one no piece of which starts a word, is left as it
was: a query the vault reads today reads the same.
"""

from __future__ import annotations

import dataclasses

import apsw

from ..engines.lexical import fts, shortcjk
from ..query import HANGUL, ParsedQuery, char_type, fts_phrase, hangul_terms

MIN_SYLLABLES = 4  # a 3-syllable stem the vault lacks is a word it lacks, not two words
MAX_SYLLABLES = 24  # beyond this a run is not a typed query word; leave it alone
MAX_PIECE = 8  # syllables: a word and its particles; bounds the lookups a long run makes


def _holds(conn: apsw.Connection, term: str) -> bool:
    return fts.matches_any(conn, fts_phrase(shortcjk.as_bigrams(term)), shortcjk.TABLE)


def _starts_word(conn: apsw.Connection, piece: str) -> bool:
    """Whether some passage has a word (after a space or a line break)
    beginning with ``piece``: the trigram table indexes both."""
    return fts.matches_any(conn, f"{fts_phrase(' ' + piece)} OR {fts_phrase(chr(10) + piece)}")


def _splittable(term: str) -> bool:
    return MIN_SYLLABLES <= len(term) <= MAX_SYLLABLES and all(char_type(c) == HANGUL for c in term)


def pieces(conn: apsw.Connection, term: str) -> list[str] | None:
    """``term`` cut into the longest pieces a word of the vault begins with,
    left to right, and the remainders between them; None when the vault
    holds ``term`` whole or no word begins with any piece of it."""
    if _holds(conn, term):
        return None
    out: list[str] = []
    rest = ""
    found = False
    i = 0
    while i < len(term):
        # Grown one syllable at a time: no word begins with a piece whose
        # start no word begins with, so the first miss ends the search.
        j = i + 2 if i + 2 <= len(term) and _starts_word(conn, term[i:i + 2]) else None
        while j is not None and j < min(len(term), i + MAX_PIECE) and _starts_word(conn, term[i:j + 1]):
            j += 1
        if j is None:
            rest += term[i]
            i += 1
            continue
        out += [rest, term[i:j]] if rest else [term[i:j]]
        rest, found, i = "", True, j
    return (out + [rest] if rest else out) if found else None


def split_terms(conn: apsw.Connection, terms: list[str], memo: dict[str, list[str]] | None = None) -> list[str]:
    """``terms`` with each long Hangul stem the vault lacks replaced by the
    stems of its pieces and remainders (deduplicated, in order); every other
    term as is. ``memo`` keeps each term's split for the rest of one search
    (the known-word share asks for the same words)."""
    if not any(map(_splittable, terms)) or not shortcjk.exists(conn):
        return terms
    memo = {} if memo is None else memo
    out: list[str] = []
    for t in terms:
        if t not in memo:
            found = pieces(conn, t) if _splittable(t) else None
            memo[t] = [s for p in found for s in hangul_terms(p)[1]] if found else [t]
        out += memo[t]
    return list(dict.fromkeys(out))


def with_vault_words(conn: apsw.Connection, parsed: ParsedQuery,
                     memo: dict[str, list[str]] | None = None) -> ParsedQuery:
    """``parsed`` with its Korean short terms split by the vault's words.
    Exclusions are not split: an unknown word excludes nothing, and its
    pieces would exclude far more than the user named."""
    shorts = split_terms(conn, parsed.short_terms, memo)
    return parsed if shorts == parsed.short_terms else dataclasses.replace(parsed, short_terms=shorts)
