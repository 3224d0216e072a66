"""The title leg of stage 1: notes whose title or alias the query names.

In a note vault the title is the author's own one-line summary of the note,
so a query that names it ("Themes", "マップビュー", "Obsidian CLI") should
find that note first — but a chunk-level leg dilutes that signal across the
note's sections. This leg ranks notes by how much of their title (or best
alias) the query's content words cover, and contributes one ranked list to
RRF, mapped to each note's best chunk (ADR-0072).

Content words: Latin/digit words of 2+ characters that are not English
function words, kanji/katakana runs of 2+ characters (hiragana runs are
mostly particles and inflections), and the stems of Korean words. The
compiler finds them (``QueryTerms.title_words``), only in the positive part
of the query; this module splits no query.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..index.notes import documents_signature, note_names
from ..query import KANJI, KATA, SEP, WORD, char_type, is_cjk
from ..query.terms import QueryTerms, name_key
from ..storage.chunks import ids_from
from ..storage.db import Index


def _pieces(word: str) -> list[str]:
    """A CJK run also matches by its 2-character pieces (表示言語 names 言語設定
    through 言語); Japanese compounds have no spaces to split them at."""
    if char_type(word[0]) in (KANJI, KATA) and len(word) > 2:
        return [word] + [word[i:i + 2] for i in range(len(word) - 1)]
    return [word]


def coverage(name: str, words: list[str]) -> float:
    """Share of the name's letters covered by the query's content words."""
    name = name.casefold()
    letters = [i for i, ch in enumerate(name) if char_type(ch) != SEP]
    if not letters or not words:
        return 0.0
    covered = bytearray(len(name))
    for w in words:
        for piece in _pieces(w):
            start = name.find(piece)
            while start != -1:
                covered[start:start + len(piece)] = b"\x01" * len(piece)
                start = name.find(piece, start + 1)
    hits = sum(1 for i in letters if covered[i])
    return hits / len(letters)


@dataclass(frozen=True)
class TitleHit:
    doc_id: int
    coverage: float


def _names(idx: Index) -> list[tuple[int, list[str]]]:
    """(doc id, casefolded title and aliases) of every note, cached on the
    index until a note is added, changed or removed."""
    key = documents_signature(idx)
    cached = idx.derived.get("title_names")
    if cached is not None and cached[0] == key:
        return cached[1]
    names = [(d.id, [n.casefold() for n in [d.title, *d.aliases] if n]) for d in note_names(idx)]
    idx.derived["title_names"] = (key, names)
    return names


def title_leg(idx: Index, words: Sequence[str], restrict_doc_sql: str | None,
              min_coverage: float) -> list[TitleHit]:
    """Notes ranked by title/alias coverage (best first) by the query's
    content words (``QueryTerms.title_words``), at least ``min_coverage``."""
    if not words:
        return []
    pieces = {p for w in words for p in _pieces(w)}
    # Latin words match whole words of the name (a prefix is fine for plurals:
    # "theme" ~ "themes"); CJK runs match anywhere.
    bounded = {w: re.compile(r"(?<![0-9a-z])" + re.escape(w)) for w in words if char_type(w[0]) == WORD}
    allowed = ids_from(idx, restrict_doc_sql) if restrict_doc_sql else None
    hits: list[TitleHit] = []
    for doc_id, names in _names(idx):
        if allowed is not None and doc_id not in allowed:
            continue
        best = 0.0
        for n in names:
            if not any(p in n for p in pieces):
                continue  # the common case: the query names nothing of this note
            ok = [w for w in words if w not in bounded or bounded[w].search(n)]
            best = max(best, coverage(n, ok))
        if best >= min_coverage:
            hits.append(TitleHit(doc_id, best))
    hits.sort(key=lambda h: -h.coverage)
    return hits


def _named_index(idx: Index) -> dict[str, list[int]]:
    """Name key -> doc ids, built from ``_names`` and cached with it, so a
    query costs one dict lookup however large the vault."""
    names = _names(idx)
    cached = idx.derived.get("name_keys")
    if cached is not None and cached[0] is names:
        return cached[1]
    keys: dict[str, list[int]] = {}
    for doc_id, ns in names:
        named = list(dict.fromkeys(name_key(n) for n in ns))
        # And its CJK names without their spaces, under keys no spaced name has.
        for k in named + list(dict.fromkeys(_unspaced(k) for k in named if _spacing_free(k))):
            keys.setdefault(k, []).append(doc_id)
    idx.derived["name_keys"] = (names, keys)
    return keys


def _spacing_free(key: str) -> bool:
    """A name with Chinese, Japanese or Korean letters, where a space between
    words is optional: Korean spacing is loose, and a space between Latin and
    CJK letters (Bases 简介, Obsidian Sync の設定) is often not typed."""
    return any(is_cjk(c) for c in key)


def _unspaced(key: str) -> str:
    return "\0" + key.replace(" ", "")  # a prefix no name key holds: the two maps never meet


def named_notes(idx: Index, terms: QueryTerms, restrict_doc_sql: str | None) -> list[int]:
    """Notes the whole (exclusion-free) query names exactly: its title or one
    of its aliases (ADR 0083). A query that is a note's name is a request to
    go to that note."""
    key = terms.name_key
    names = _named_index(idx)
    docs = names.get(key, []) if key else []
    if not docs and _spacing_free(key):
        # 사용자지정 for 사용자 지정, Bases简介 for Bases 简介: a CJK name also
        # answers to its letters without the spaces (ADR 0224).
        docs = names.get(_unspaced(key), [])
    if docs and restrict_doc_sql:
        allowed = ids_from(idx, restrict_doc_sql)
        docs = [d for d in docs if d in allowed]
    return list(docs)
