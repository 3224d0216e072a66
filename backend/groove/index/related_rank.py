"""Related notes ranked by meaning, corrected for hubs, and by the link
graph (ADR 0276, issue 49).

Plain nearest neighbours of a note's mean chunk vector
(``notes.nearest_notes_to``, still the fallback) let notes close to
everything (hubs) and chunks with no words of their own (a bare URL, an
embed, a heading alone: their vector is little more than the title's) fill
the list on a vault of short notes, and their cosines all sit in e5's narrow
0.8-0.9 band, so the scores said nothing. Here, over the exact in-memory
vectors of ``space.py``, with the defaults of ``RelatedLevers``:

* each note is one vector, the mean of its chunks with words of their own;
  a note without a word of its own is never a similar note (links still
  list it);
* a candidate's cosine loses half its local density (CSLS: the mean cosine
  of its ``CSLS_K`` nearest notes), so a note near everything must be nearer
  to rank;
* it is then read as a z-score against this note's similarities to the
  whole vault (how unusual the closeness is, not the raw cosine): the
  ``relevance`` on the wire;
* a link either way adds ``LINK_BONUS``; sharing neighbours adds up to
  ``TWO_HOP_BONUS`` (Adamic-Adar: a neighbour linking to hundreds of notes
  says little).

Measured and left off (``bench/related_quality.py``, docs/eval.md): shrinking
a short note's z-score by its length, weighting chunks by their length, the
best chunk as a note's evidence, and the vault-mean hub correction.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..storage.db import Index
from ..storage.migrations import rows_version
from .own_words import own_letters
from .space import Space, space_of

CSLS_K = 10
SHRINK_LETTERS = 60  # about one sentence: a note this long counts half
LINK_BONUS = 1.0  # in standard deviations of the note's similarities
TWO_HOP_BONUS = 0.5


@dataclass(frozen=True)
class RelatedLevers:
    """Which corrections apply (the bench turns each off to measure it)."""

    weigh: bool = True  # empty chunks weigh nothing in a note's vector
    by_length: bool = False  # ... and the others weigh their own letters (else 1 each)
    csls: bool = True
    global_hub: bool = False  # subtract half the mean similarity to the vault instead (cheaper, cruder)
    sections: bool = False  # a candidate as close as its best non-empty chunk; measured: loses
    shrink: bool = False  # measured: loses on both judged sets (ADR 0276)
    shrink_letters: float = SHRINK_LETTERS
    links: bool = True
    two_hop: bool = True


@dataclass(frozen=True)
class RankedNote:
    doc_id: int
    cosine: float  # plain cosine of the two note vectors
    relevance: float  # the ranking score: z-score (corrected) plus link evidence


@dataclass
class _Notes:
    """One vector per note, which of them have words, and the link graph."""

    ids: np.ndarray  # note ids, int64
    vecs: np.ndarray  # (n, d) unit rows, empty chunks left out
    plain: np.ndarray  # (n, d) unit rows of the unweighted chunk mean
    worded: np.ndarray  # bool: the note has a chunk with words of its own
    held: np.ndarray  # rows of ``space.chunks`` that belong to a note
    inv: np.ndarray  # the row in ``ids`` of each held chunk
    density: dict[str, np.ndarray]  # CSLS density per row of each kind of vector; NaN until computed
    neighbours: dict[int, set[int]]
    # Measured levers only (by_length, shrink): own letters, read from the chunks' text on first use.
    letters: np.ndarray | None = None
    by_length: np.ndarray | None = None


Resolve = Callable[[str, str], "int | None"]


def _means(raw: np.ndarray, inv: np.ndarray, w: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """(sum of rows weighted by w, total weight) per note."""
    out = np.zeros((n, raw.shape[1] if raw.ndim == 2 else 1))
    np.add.at(out, inv, raw * w[:, None].astype(np.float32))
    return out, np.bincount(inv, weights=w, minlength=n)


def _build(idx: Index, space: Space, resolve: Resolve) -> _Notes:
    """Reads only what ``space`` holds (the empty flags are its own), so the
    default ranking costs no second pass over the chunks' text."""
    ch = space.chunks
    held = np.flatnonzero(ch.docs >= 0)
    ids, inv = np.unique(ch.docs[held], return_inverse=True)
    raw = ch.raw[held]
    worded = ~ch.empty[held] if ch.empty is not None else np.ones(len(held), dtype=bool)
    plain, _ = _means(raw, inv, np.ones(len(held)), len(ids))
    vecs, total = _means(raw, inv, worded.astype(np.float64), len(ids))
    # A note of empty chunks only keeps its plain mean (it is never listed, but can be asked about).
    vecs = np.where(total[:, None] > 0, vecs, plain)
    return _Notes(ids.astype(np.int64), _unit(vecs), _unit(plain), total > 0, held, inv, {}, _graph(idx, resolve))


def with_letters(idx: Index, space: Space, n: _Notes) -> _Notes:
    """Fill the own-letter counts and the length-weighted vectors (once)."""
    if n.letters is None:
        letters_of = {cid: own_letters(text) for cid, text in idx.conn.execute("SELECT id, content FROM chunks")}
        ch = space.chunks
        w = np.fromiter((letters_of.get(int(ch.rowids[i]), 0) for i in n.held), dtype=np.float64, count=len(n.held))
        weighted, total = _means(ch.raw[n.held], n.inv, w, len(n.ids))
        n.by_length = _unit(np.where(total[:, None] > 0, weighted, n.plain))
        n.letters = total
    return n


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)).astype(np.float32)


def _graph(idx: Index, resolve: Resolve) -> dict[int, set[int]]:
    """Notes joined by a link either way (embeds of notes count; attachments resolve to nothing)."""
    out: dict[int, set[int]] = {}
    rows = idx.conn.execute("SELECT d.id, d.path, l.target FROM links l JOIN documents d ON d.id = l.doc_id")
    for src, path, target in rows:
        if not target.strip():
            continue
        dst = resolve(target, path)
        if dst is not None and dst != src:
            out.setdefault(src, set()).add(dst)
            out.setdefault(dst, set()).add(src)
    return out


def _notes(idx: Index, resolve: Resolve) -> _Notes | None:
    space = space_of(idx)
    if space is None or not len(space.chunks.rowids):
        return None
    key = rows_version(idx.conn)
    hit = idx.derived.get("related_rank")
    if hit is not None and hit[0] == key and key is not None:
        return hit[1]
    built = _build(idx, space, resolve)
    idx.derived["related_rank"] = (key, built)
    return built


def _density(n: _Notes, kind: str, vecs: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Each row's mean cosine to its CSLS_K nearest other notes, computed
    only for the rows asked (a shortlist) and kept."""
    density = n.density.setdefault(kind, np.full(len(vecs), np.nan, dtype=np.float32))
    todo = rows[np.isnan(density[rows])]
    if len(todo):
        sims = vecs[todo] @ vecs.T
        sims[np.arange(len(todo)), todo] = -np.inf
        k = min(CSLS_K, max(len(vecs) - 1, 1))
        top = np.partition(sims, sims.shape[1] - k, axis=1)[:, -k:]
        density[todo] = np.where(np.isfinite(top), top, 0).mean(axis=1)
    return density[rows]


def rank_related(idx: Index, doc_id: int, chunk_id: int | None, resolve: Resolve,
                 lv: RelatedLevers = RelatedLevers(), limit: int | None = None) -> list[RankedNote] | None:
    """The ``limit`` (or all) other notes with a vector, best first, under
    ``lv``; None when the index has no vectors for it (the caller falls back
    to plain KNN)."""
    n = _notes(idx, resolve)
    if n is None:
        return None
    space = space_of(idx)
    if space is None:
        return None
    if lv.by_length or lv.shrink:
        with_letters(idx, space, n)
    kind = ("by_length" if lv.by_length else "vecs") if lv.weigh else "plain"
    vecs = {"by_length": n.by_length, "vecs": n.vecs, "plain": n.plain}[kind]
    assert vecs is not None
    if chunk_id is not None:
        at = np.flatnonzero(space.chunks.rowids == chunk_id)
        if not len(at):
            return None
        q = space.chunks.raw[at[0]].astype(np.float32)
    else:
        own = np.flatnonzero(n.ids == doc_id)
        if not len(own):
            return None
        q = vecs[own[0]]
    cos = vecs @ q
    if lv.sections:
        ok = ~space.chunks.empty[n.held] if space.chunks.empty is not None else np.ones(len(n.held), bool)
        best = np.full(len(cos), -np.inf, dtype=np.float32)
        np.maximum.at(best, n.inv[ok], space.chunks.raw[n.held[ok]] @ q)
        cos = np.maximum(cos, best)
    others = np.flatnonzero(n.ids != doc_id)
    if not len(others):
        return []
    adj = cos.astype(np.float64)
    if lv.csls:
        # Only a shortlist can rank; density elsewhere would cost O(n^2).
        short = others[np.argsort(-cos[others], kind="stable")[:300]]
        adj = np.full(len(cos), -np.inf)
        dens = _density(n, kind, vecs, short)
        adj[short] = cos[short] - dens / 2.0
        base = cos[others] - float(dens.mean()) / 2.0  # the vault's scale, for the z-score
    elif lv.global_hub:
        adj = cos - (vecs @ vecs.mean(axis=0)) / 2.0
        base = adj[others]
    else:
        base = cos[others]
    mu, sd = float(base.mean()), float(base.std()) or 1.0
    z = (adj - mu) / sd
    if lv.shrink and n.letters is not None:
        with np.errstate(invalid="ignore"):  # -inf (off the shortlist) times 0
            z = z * (n.letters / (n.letters + lv.shrink_letters))
    if lv.weigh:  # no word of its own: nothing to be similar by (links still list it)
        z = np.where(n.worded, z, -np.inf)
    if lv.links or lv.two_hop:
        z = z + _link_evidence(n, doc_id, lv)
    order = others[np.lexsort((n.ids[others], -z[others]))]
    order = order[np.isfinite(z[order])][:limit]
    return [RankedNote(int(n.ids[i]), float(cos[i]), float(z[i])) for i in order]


def _link_evidence(n: _Notes, doc_id: int, lv: RelatedLevers) -> np.ndarray:
    out = np.zeros(len(n.ids))
    pos = {int(d): i for i, d in enumerate(n.ids)}
    near = n.neighbours.get(doc_id, set())
    if lv.links:
        for d in near:
            if d in pos:
                out[pos[d]] += LINK_BONUS
    if lv.two_hop:
        aa: dict[int, float] = {}
        for w in near:
            deg = len(n.neighbours.get(w, ()))
            for d in n.neighbours.get(w, ()):
                if d != doc_id:
                    aa[d] = aa.get(d, 0.0) + 1.0 / math.log2(1 + deg)
        for d, s in aa.items():
            if d in pos:
                out[pos[d]] += TWO_HOP_BONUS * min(1.0, s)
    return out
