"""The vault's vectors seen through the hubness remedies of issue 49
(ADR 0265): centring, CSLS-style local scaling, section evidence for
notes and pseudo-relevance feedback, each a switch of ``[search.fusion]``.

Some notes sit close to everything in an embedding space ("hubs") and
absorb questions they do not answer. The standard remedies all need the
whole table at hand (a mean, each row's neighbourhood, every section's
similarity), so when any of them is on the vector legs are answered here,
from an exact in-memory copy of ``vec_chunks`` and ``vec_notes`` (loaded
once per index version, like ``vectors.py``'s copy), instead of by
sqlite-vec's KNN. With every switch off nothing here runs, nor with
section evidence alone: ``pipeline/sections.py`` applies it on the normal
vector path to the notes the legs found (``section_exact`` asks for this
scan instead, the reference it is measured against).

* centring: ``cos(q - mu, x - mu)``, mu the table's mean row (chunks and
  notes each their own), rows and query renormalised after the subtraction;
* CSLS (Conneau et al. 2018): a row's score is ``cos - r(x) / 2``, r(x) the
  mean cosine of x to its ``CSLS_K`` nearest rows of other notes: a row in a
  dense neighbourhood must be closer to the query to rank (halved so the
  score stays on the cosine's scale, which the note-aware sum relies on);
* section evidence: a note's score is ``(1 - w) * summary + w * best
  section``, the max over the note's chunks;
* feedback (Rocchio, alpha 1, beta 0.75, no negatives): the query moves
  toward the mean of its ``PRF_DEPTH`` nearest chunks, then is searched again;
* empty chunks: a chunk with no letter of its own once URLs, embeds, images
  and heading lines are taken out (a bare link, an image-only note) does not
  rank in the vector leg; its note still can, through its other evidence.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ..storage.migrations import rows_version
from .own_words import is_empty

if TYPE_CHECKING:
    from ..storage.db import Index

CSLS_K = 10  # neighbours averaged for a row's local density (the CSLS paper's k)
PRF_DEPTH = 10  # nearest chunks the query is moved toward
PRF_ALPHA, PRF_BETA = 1.0, 0.75  # Rocchio's standard weights
_BLOCK = 2048  # rows of the neighbour scan at a time


@dataclass(frozen=True)
class Levers:
    """Which remedies a search asks for (all off: this module is not used)."""

    centre: bool = False
    csls: bool = False
    section_weight: float = 0.0
    prf: bool = False
    skip_empty: bool = False
    # Centre the question with the questions' own mean (the vault's titles
    # embedded as questions) rather than the rows': e5 puts questions and
    # passages in different regions (docs/eval.md, hubness).
    question_mean: bool = False

    @property
    def any(self) -> bool:
        return self.centre or self.csls or self.section_weight > 0 or self.prf or self.skip_empty


def _unit(x: np.ndarray) -> np.ndarray:
    n = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.maximum(n, 1e-12)


@dataclass
class _Table:
    rowids: np.ndarray  # int64
    raw: np.ndarray  # float32 (n, d), unit rows as stored
    docs: np.ndarray  # the note of each row (vec_notes: the row itself)
    empty: np.ndarray | None = None  # vec_chunks: rows with no words of their own
    _views: dict[tuple[bool, bool], tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    def view(self, centre: bool, csls: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, mean, penalty): the rows as searched (centred or not), the
        mean subtracted from a query, and each row's CSLS penalty (zeros)."""
        key = (centre, csls)
        if key not in self._views:
            mean = self.raw.mean(axis=0) if centre else np.zeros(self.raw.shape[1], dtype=np.float32)
            rows = _unit(self.raw - mean).astype(np.float32) if centre else self.raw
            pen = _density(rows, self.docs) / 2.0 if csls else np.zeros(len(rows), dtype=np.float32)
            self._views[key] = (rows, mean.astype(np.float32), pen.astype(np.float32))
        return self._views[key]


def _density(rows: np.ndarray, docs: np.ndarray) -> np.ndarray:
    """Each row's mean cosine to its CSLS_K nearest rows of other notes."""
    n = len(rows)
    k = min(CSLS_K, max(n - 1, 1))
    out = np.zeros(n, dtype=np.float32)
    for s in range(0, n, _BLOCK):
        sims = rows[s:s + _BLOCK] @ rows.T
        sims[docs[s:s + _BLOCK, None] == docs[None, :]] = -np.inf  # itself and its own note's sections
        top = np.partition(sims, n - k, axis=1)[:, n - k:] if n > k else sims
        top = np.where(np.isfinite(top), top, np.nan)
        out[s:s + _BLOCK] = np.nan_to_num(np.nanmean(top, axis=1))
    return out


@dataclass
class Space:
    version: str | None
    chunks: _Table
    notes: _Table
    _doc_index: dict[int, int] = field(default_factory=dict)
    _question_mean: np.ndarray | None = None

    def question_mean(self, conn, embed) -> np.ndarray:
        """The mean of the vault's note titles embedded as questions (once)."""
        if self._question_mean is None:
            titles = [t for (t,) in conn.execute("SELECT title FROM documents WHERE title != ''")]
            vecs = [np.asarray(embed(t), dtype=np.float32) for t in titles]
            self._question_mean = np.mean(vecs, axis=0).astype(np.float32) if vecs else np.zeros(
                self.chunks.raw.shape[1], dtype=np.float32)
        return self._question_mean

    def note_row(self, doc: int) -> int | None:
        if not self._doc_index:
            self._doc_index = {int(d): i for i, d in enumerate(self.notes.rowids)}
        return self._doc_index.get(doc)


@dataclass
class Scored:
    """One query's scores over every row, under the levers."""

    chunk_ids: np.ndarray
    chunk_docs: np.ndarray
    chunk_scores: np.ndarray  # lever-adjusted
    chunk_cos: np.ndarray  # plain cosine to the original query (low_confidence reads these)
    note_ids: np.ndarray
    note_scores: np.ndarray
    skip: np.ndarray | None = None  # chunks that may not rank (empty ones, when asked)

    def top_chunks(self, n: int, allowed_docs: np.ndarray | None,
                   excluded: AbstractSet[int]) -> list[tuple[int, float, float, int]]:
        """(chunk id, score, plain cosine, note id), best first."""
        mask = _allowed(self.chunk_docs, allowed_docs)
        if self.skip is not None:
            mask &= ~self.skip
        if excluded:
            mask &= ~np.isin(self.chunk_ids, np.fromiter(excluded, dtype=np.int64, count=len(excluded)))
        return [(int(self.chunk_ids[i]), float(self.chunk_scores[i]), float(self.chunk_cos[i]),
                 int(self.chunk_docs[i])) for i in _order(self.chunk_scores, mask, n)]

    def top_notes(self, n: int, allowed_docs: np.ndarray | None) -> list[tuple[int, float]]:
        mask = _allowed(self.note_ids, allowed_docs)
        return [(int(self.note_ids[i]), float(self.note_scores[i])) for i in _order(self.note_scores, mask, n)]

    def note_scores_of(self, space: Space, docs: list[int]) -> dict[int, float]:
        out = {}
        for d in docs:
            i = space.note_row(d)
            if i is not None:
                out[d] = float(self.note_scores[i])
        return out


def _allowed(ids: np.ndarray, allowed_docs: np.ndarray | None) -> np.ndarray:
    if allowed_docs is None:
        return np.ones(len(ids), dtype=bool)
    return np.isin(ids, allowed_docs)


def _order(scores: np.ndarray, mask: np.ndarray, n: int) -> np.ndarray:
    idx = np.flatnonzero(mask)
    if len(idx) > n:
        idx = idx[np.argpartition(-scores[idx], n - 1)[:n]]
    return idx[np.lexsort((idx, -scores[idx]))]


def score(space: Space, q: np.ndarray, lv: Levers, q_mean: np.ndarray | None = None) -> Scored:
    """Every chunk and note scored for query vector ``q`` under ``lv``;
    ``q_mean``: the questions' mean, subtracted from ``q`` instead of the
    rows' mean when centring."""
    q = np.asarray(q, dtype=np.float32)
    cos = space.chunks.raw @ q
    if lv.prf:
        top = np.argpartition(-cos, min(PRF_DEPTH, len(cos)) - 1)[:PRF_DEPTH] if len(cos) else np.zeros(0, int)
        if len(top):
            q = _unit(PRF_ALPHA * q + PRF_BETA * space.chunks.raw[top].mean(axis=0)).astype(np.float32)
    c_rows, c_mean, c_pen = space.chunks.view(lv.centre, lv.csls)
    n_rows, n_mean, n_pen = space.notes.view(lv.centre, lv.csls)
    if lv.centre and q_mean is not None:
        c_mean = n_mean = q_mean
    cs = c_rows @ _unit(q - c_mean) - c_pen
    ns = n_rows @ _unit(q - n_mean) - n_pen
    skip = space.chunks.empty if lv.skip_empty else None
    if lv.section_weight > 0 and len(ns):
        best = np.full(len(ns), -np.inf, dtype=np.float32)
        at = np.searchsorted(space.notes.rowids, space.chunks.docs)
        ok = (at < len(ns)) & (space.notes.rowids[np.minimum(at, len(ns) - 1)] == space.chunks.docs)
        if skip is not None:
            ok &= ~skip
        np.maximum.at(best, at[ok], cs[ok])
        has = np.isfinite(best)
        ns = np.where(has, (1 - lv.section_weight) * ns + lv.section_weight * np.where(has, best, 0), ns)
    return Scored(space.chunks.rowids, space.chunks.docs, cs, cos, space.notes.rowids, ns.astype(np.float32), skip)


_cache: weakref.WeakKeyDictionary[Index, Space] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def space_of(idx: Index) -> Space | None:
    """The index's vectors in memory (loaded once per rows version); None
    for an index without note vectors."""
    conn = idx.conn
    version = rows_version(conn)
    with _lock:
        s = _cache.get(idx)
        if s is not None and s.version == version and version is not None:
            return s
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_notes'").fetchone():
        return None
    with conn:
        version = rows_version(conn)
        chunks = _read(conn, "vec_chunks", dict(conn.execute("SELECT id, doc_id FROM chunks")))
        notes = _read(conn, "vec_notes", None)
        empty = {i for i, content in conn.execute("SELECT id, content FROM chunks") if is_empty(content)}
    chunks.empty = np.isin(chunks.rowids, np.fromiter(empty, dtype=np.int64, count=len(empty)))
    s = Space(version, chunks, notes)
    with _lock:
        _cache[idx] = s
    return s


def _read(conn, table: str, doc_of: dict[int, int] | None) -> _Table:
    ids, vecs = [], []
    for rid, emb in conn.execute(f"SELECT rowid, embedding FROM {table} ORDER BY rowid"):
        ids.append(rid)
        vecs.append(np.frombuffer(emb, dtype=np.float32))
    rowids = np.asarray(ids, dtype=np.int64)
    raw = np.vstack(vecs) if vecs else np.zeros((0, 1), dtype=np.float32)
    docs = rowids if doc_of is None else np.fromiter((doc_of.get(int(r), -1) for r in rowids),
                                                     dtype=np.int64, count=len(rowids))
    return _Table(rowids, raw, docs)
