"""The tiny-chunk prior (issue 49, ADR 0280): the chunk legs' votes scaled
by how much text of its own each chunk has (``index/own_words.py``).

A chunk with almost no words of its own (a bare URL, an embed, a heading
alone, a one-line note) is embedded as little more than its note's title,
and bm25 favours short rows, whose title and headings (the context column)
then match, so on a vault of short notes such chunks filled the first
ranks of queries they do not answer. Its vote in the vector leg weighs
``min(1, words / own_words)``; in the full-text leg too
(``own_words_fts``), unless its own words hold a query term: ``aka CERN.``
is real evidence for "cern", a title above a bare link is not. The note
leg and the named-note and sole-holder rules are untouched, so a note of
one line still ranks through its note vector, and a long note's tiny
section gives way to its sections with text. Computed from the stored
content at query time, for the legs' rows only; counts are kept per chunk
until a note changes.
"""

from __future__ import annotations

from ..index.notes import documents_signature
from ..index.own_words import own_text, own_weight, own_words
from ..storage import chunks
from ..storage.db import Index


def own_votes(idx: Index, ids: list[int], scale: float) -> dict[int, float]:
    """Each chunk's prior weight (1 for a chunk deleted meanwhile: no text
    read). Word counts are kept on the index until a note changes, counted
    up to the scale (the prior is 1 beyond); so is a tiny chunk's own text,
    casefolded, for ``holding_terms``."""
    words = _count(idx, ids, scale)
    return {cid: own_weight(words[cid], scale) if cid in words else 1.0 for cid in ids}


def holding_terms(idx: Index, scale: float, prior: dict[int, float], ids: list[int],
                  terms: list[str]) -> dict[int, float]:
    """``prior`` with the full-text leg's tiny rows whose own words hold one
    of ``terms`` (the query's phrases and short words) set back to 1. The
    rows' own text was kept when ``own_votes`` counted them: no second read."""
    folded = [t.casefold() for t in terms if t.strip()]
    if not folded:
        return prior
    texts = _kept(idx, scale)[1]
    out = dict(prior)
    for cid in ids:
        own = texts.get(cid)
        if own is not None and prior.get(cid, 1.0) < 1.0 and any(t in own for t in folded):
            out[cid] = 1.0
    return out


def _kept(idx: Index, scale: float) -> tuple[dict[int, float], dict[int, str]]:
    key = (documents_signature(idx), scale)
    cached = idx.derived.get("own_words")
    if cached is None or cached[0] != key:
        cached = (key, {}, {})
        idx.derived["own_words"] = cached
    return cached[1], cached[2]


def _count(idx: Index, ids: list[int], scale: float) -> dict[int, float]:
    """The kept word counts, with those of ``ids`` not counted yet added."""
    words, texts = _kept(idx, scale)
    todo = sorted({cid for cid in ids if cid not in words})
    for cid, text in chunks.contents(idx, todo).items():
        words[cid] = own_words(text, cap=scale)
        if words[cid] < scale:
            texts[cid] = own_text(text).casefold()
    return words


def scaled(votes: dict[int, float] | None, ids: list[int], prior: dict[int, float]) -> dict[int, float]:
    """A leg's votes (None: 1 each) times the prior."""
    return {cid: (1.0 if votes is None else votes.get(cid, 0.0)) * prior.get(cid, 1.0) for cid in ids}
