"""Nearest vectors from an in-memory copy of a vec0 table, for big vaults
(ADR 0121, ADR 0133, ADR 0222).

sqlite-vec's exact KNN scans every row in C at ~12x the cost of numpy's
``X @ q`` (100k chunks: 60 ms against 5 ms), and a search runs more than one
KNN. Above ``MIN_ROWS`` rows the table is copied once into a float32 matrix
and searched there; distances are computed from the same float32 values
(cosines equal to sqlite-vec's within float rounding, ~1e-6). Only
long-lived processes keep a copy, loaded on a thread of its own (ADR 0134):
a stale one is never read, sqlite-vec answers until the next lands. SQLite stays the
source of truth: the copy is dropped when ``meta.rows_version`` (bumped by
triggers on every chunk and note change, schema m003) moves. Below
``MIN_ROWS`` the KNN is cheap and memory is worth more: sqlite-vec answers.

Past ``HEAD_MIN_ROWS`` even numpy's scan costs more than the query
embedding, and it is bound by memory traffic, not arithmetic. There the
copy is held in the table's principal axes, split by columns into
contiguous *parts* (the same bytes in all): a *lead* of the ``LEAD_DIMS``
strongest coordinates, the rest of the ``HEAD_DIMS`` *head*, and the
*tail* (below ``LEAD_MIN_ROWS``, head and tail only). A KNN scans the
lead only, a third of the matrix (ADR 0222),
keeps the ``LEAD_OVERSAMPLE`` x ``OVERSAMPLE`` x k most promising rows,
adds the rest of their head (ADR 0133), re-scores the ``OVERSAMPLE`` x k
best of those on their full vectors, and keeps the k best. Real
embeddings put most of their weight on the leading axes, so what it
misses is mostly a row near the k-th score, rarely one of the first ten.

The size that counts is the vault's chunks, for the note table too: a vault
of 100k chunks has only ~8k notes, yet sqlite-vec's note KNN and the
note-aware leg's per-note lookups cost it ~12 ms a search, against ~1 ms in
memory for 12 MB.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING

import apsw
import numpy as np

from ..chunk_set import find_sorted, holds
from ..rows import rows_version

if TYPE_CHECKING:
    from ...wire.status_types import VectorCopyState, VectorCopyStatus

log = logging.getLogger(__name__)

MIN_ROWS = 10_000
HEAD_MIN_ROWS = 40_000  # below this a full scan takes ~2 ms: not worth approximating
LEAD_MIN_ROWS = 80_000  # below this the lead's gathers cost what its narrower pass saves (ADR 0222)
HEAD_DIMS = 192  # of e5-small's 384: half the matrix
LEAD_DIMS = 128  # of e5-small's 384: the one pass over every row reads a third of the matrix
OVERSAMPLE = 8  # rows re-scored in full per row wanted
LEAD_OVERSAMPLE = 3  # rows given their whole head per row re-scored in full
TAIL_SIGMAS = 3.0  # how far a tail may lift a row's head score: three standard deviations
SLACK = 16  # extra rows ordered by distance, far beyond float32 rounding between score and distance
_BLOCK = 8192  # rows rotated at a time while loading: the rotation needs no second copy


@dataclass
class _Matrix:
    version: str | None
    rowids: np.ndarray  # int64, row i of the matrix
    # Column blocks of the rows, each contiguous: one, the vectors as stored
    # (exact scan); in a big table the principal coordinates as lead, rest of
    # the head, tail. Empty: the table is small, sqlite-vec answers.
    parts: tuple[np.ndarray, ...] = ()
    basis: np.ndarray | None = None  # (dim, dim) float32, orthonormal columns: coordinates = x @ basis
    norms2: np.ndarray | None = None  # float64 squared length of each row, for the distance
    rest_norms: tuple[np.ndarray, ...] = ()  # per part but the last: float32 length of each row past it
    reach: tuple[float, ...] = ()  # per part but the last: TAIL_SIGMAS spreads of a cosine past it
    docs: np.ndarray | None = None  # vec_chunks: the note of each row
    order: np.ndarray | None = None  # argsort of ``rowids``: finds a rowid's row
    sorted_ids: np.ndarray | None = None  # ``rowids[order]``, kept: the gather cost 0.14 ms a lookup at 100k

    @property
    def held(self) -> bool:
        return bool(self.parts)

    @property
    def staged(self) -> bool:
        """Scanned on its leading axes, then narrowed (ADR 0133, 0222)."""
        return len(self.parts) > 1

    def rows_of(self, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
        """The rows holding ``ids``, and which of ``ids`` were found."""
        if self.order is None or self.sorted_ids is None:
            self.order = np.argsort(self.rowids, kind="stable")
            self.sorted_ids = self.rowids[self.order]
        at, hit = find_sorted(self.sorted_ids, np.asarray(ids, dtype=np.int64))
        return self.order[at[hit]], hit

    def split(self, q: np.ndarray) -> list[np.ndarray]:
        """The query in the matrix's coordinates, cut as its parts are."""
        r = q if self.basis is None else q @ self.basis
        cuts = np.cumsum([p.shape[1] for p in self.parts])[:-1]
        return [np.ascontiguousarray(x) for x in np.split(r, cuts)]

    def narrow(self, scores: np.ndarray, rows: np.ndarray | None, i: int, qs: list[np.ndarray],
               n: int) -> np.ndarray:
        """Which n of ``rows`` (None: every row), scored on parts up to i, to
        carry on. A row's later parts add q' . x' to its score, unknown here
        but within |q'| |x'|; between unrelated directions that cosine has a
        spread of ~1/sqrt(d), d the effective dimension of the axes past part
        i. A row is ranked by its score plus ``reach[i]`` = TAIL_SIGMAS such
        spreads of |q'| |x'|: rows long past part i, whose score so far says
        least, get the benefit of the doubt. Positions into ``scores``, in
        order: the next part's rows are then gathered walking memory forward
        (a few per cent of a KNN after a query embedding left the caches cold)."""
        rest = float(np.sqrt(sum(float(np.dot(x, x)) for x in qs[i + 1:])))
        norms = self.rest_norms[i] if rows is None else self.rest_norms[i][rows]
        pick = _best(scores + np.float32(self.reach[i] * rest) * norms, n)
        pick.sort()
        return pick

    def scores(self, rows: np.ndarray, qs: list[np.ndarray]) -> np.ndarray:
        """Exact dot products of ``rows`` with the query."""
        s = self.parts[0][rows] @ qs[0]
        for p, x in zip(self.parts[1:], qs[1:]):
            s += p[rows] @ x
        return s

    def distances(self, rows: np.ndarray, s: np.ndarray, q: np.ndarray) -> list[tuple[int, float]]:
        """(rowid, L2 distance) from the dot products ``s`` of ``rows``."""
        assert self.norms2 is not None
        qq = float(np.dot(q.astype(np.float64), q.astype(np.float64)))
        d = np.sqrt(np.maximum(self.norms2[rows] + qq - 2.0 * s.astype(np.float64), 0.0))
        return [(int(self.rowids[i]), float(x)) for i, x in zip(rows, d)]


class VectorCache:
    """One per index, shared by the reader threads (each has its own
    connection). Only a long-lived process keeps copies (``keep``): the copy
    is loaded on a thread of its own, and until it matches the rows every
    KNN goes to sqlite-vec. A one-shot run never loads one: at 100k chunks
    the load (~2 s) costs more than its few sqlite-vec scans."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _Matrix] = {}
        self._open: Callable[[], apsw.Connection] | None = None
        self._done: Callable[[], None] | None = None
        self._loading = False
        self._next_load_at = 0.0
        self.took: float | None = None  # the last load's seconds

    def keep(self, open_conn: Callable[[], apsw.Connection] | None, done: Callable[[], None] | None = None) -> None:
        """Keep copies, loading them with ``open_conn()`` on a thread (``done()``
        after); None stops keeping them and drops what is held."""
        with self._lock:
            self._open, self._done = open_conn, done
            if open_conn is None:
                self._tables = {}

    @property
    def kept(self) -> bool:
        return self._open is not None

    def status(self, conn: apsw.Connection) -> VectorCopyStatus:
        """What ``index_status`` reports: ``state`` is ``off`` (this process
        keeps none: a one-shot run, or ``vector_copy = false``), ``small``
        (under MIN_ROWS chunks: sqlite-vec scans), ``ready``, ``loading`` or
        ``stale`` (rows changed: sqlite-vec scans until the next load), with
        the copy's rows, size and last load time, and whether it is scanned
        on its leading axes (ADR 0133)."""
        version = rows_version(conn)
        with self._lock:
            m, loading, took, kept = self._tables.get("vec_chunks"), self._loading, self.took, self._open is not None
        current = m is not None and m.version == version
        state: VectorCopyState
        if current and m is not None and not m.held:
            state = "small"
        elif current:
            state = "ready"
        elif loading:
            state = "loading"
        elif not kept:
            state = "off"
        else:
            state = "stale"
        held = [t for t in self._tables.values() if t.held] if state == "ready" else []
        size = sum(a.nbytes for t in held for a in (*t.parts, *t.rest_norms, t.norms2, t.docs, t.rowids)
                   if a is not None)
        return {"state": state, "min_rows": MIN_ROWS,
                "rows": len(m.rowids) if state == "ready" and m is not None else None,
                "megabytes": round(size / 1e6, 1) if held else None,
                "load_seconds": round(took, 2) if took is not None and state == "ready" else None,
                "head_scan": bool(state == "ready" and m is not None and m.staged)}

    def load_if_stale(self, conn: apsw.Connection) -> None:
        """Start loading the copies if this process keeps them and they are stale."""
        self._matrix(conn, "vec_chunks")

    def warm(self, conn: apsw.Connection) -> None:
        """Load the copies now, on this thread (benchmarks, tests)."""
        self._store(_load_all(conn))

    def nearest(self, conn: apsw.Connection, table: str, blob: bytes, k: int,
                allowed_sql: str | None, excluded: AbstractSet[int] | None = None,
                allowed_docs: np.ndarray | None = None) -> list[tuple[int, float]] | None:
        """Top-k (rowid, L2 distance) of ``table`` by distance, then rowid,
        rows of ``allowed_sql`` only and none of ``excluded``; or None: no
        current copy (ask sqlite-vec). ``allowed_docs``, when given, is what
        ``allowed_sql`` allows as note ids (a chunk's note in ``vec_chunks``,
        the row itself in ``vec_notes``): masked here without asking SQLite."""
        m = self._matrix(conn, table)
        if m is None or not m.held or k <= 0:
            return None
        q = np.frombuffer(blob, dtype=np.float32)
        qs = m.split(q)
        s = m.parts[0] @ qs[0]  # exact with one part; the lead's share of each score with more
        if allowed_docs is not None and (table == "vec_notes" or m.docs is not None):
            notes = m.rowids if table == "vec_notes" or m.docs is None else m.docs
            s = np.where(np.isin(notes, allowed_docs), s, -np.inf)
        elif allowed_sql is not None:
            allowed = np.fromiter((r[0] for r in conn.execute(allowed_sql)), dtype=np.int64)
            s = np.where(np.isin(m.rowids, allowed), s, -np.inf)
        if excluded:
            s = np.where(holds(excluded, m.rowids), -np.inf, s)
        want = min(k + SLACK, len(s))
        rows: np.ndarray | None = None  # every row, until the first narrowing
        for i in range(1, len(m.parts)):
            # Each pass keeps fewer rows: OVERSAMPLE x want before the last part,
            # LEAD_OVERSAMPLE times as many before each earlier one.
            n = min(OVERSAMPLE * want * LEAD_OVERSAMPLE ** (len(m.parts) - 1 - i), len(s))
            pick = m.narrow(s, rows, i - 1, qs, n)
            rows = pick if rows is None else rows[pick]
            s = s[pick] + m.parts[i][rows] @ qs[i]  # a row masked out stays at -inf
        keep = _best(s, want)
        rows, s = (keep if rows is None else rows[keep]), s[keep]
        live = np.isfinite(s)
        hits = m.distances(rows[live], s[live], q)
        return sorted(hits, key=lambda r: (r[1], r[0]))[:k]

    def distances(self, conn: apsw.Connection, table: str, blob: bytes,
                  ids: list[int]) -> list[tuple[int, float]] | None:
        """(rowid, L2 distance) of the rows ``ids`` (ids not in the table are
        left out), or None: no current copy (ask sqlite-vec). vec0 reads a
        chunk of its storage per looked-up rowid: 150 notes cost ~8 ms at
        100k chunks."""
        m = self._matrix(conn, table)
        if m is None or not m.held:
            return None
        if not ids:
            return []
        q = np.frombuffer(blob, dtype=np.float32)
        rows, _ = m.rows_of(ids)
        return m.distances(rows, m.scores(rows, m.split(q)), q)

    def vectors_of(self, conn: apsw.Connection, table: str, ids: list[int], *,
                   as_stored: bool = False) -> np.ndarray | None:
        """The rows ``ids`` as (len(ids), dim) float32, a zero row for an id
        the table lacks; or None: no current copy (ask sqlite-vec). In a big
        table they are in the copy's principal axes, not as stored: an
        orthonormal rotation, so dot products and lengths are the stored
        vectors' (within float rounding), which is all MMR reads; with
        ``as_stored`` they are rotated back (to query the table with). vec0's
        per-rowid reads cost ~30 ms for MMR's pool of 50 at 100k chunks."""
        m = self._matrix(conn, table)
        if m is None or not m.held:
            return None
        out = np.zeros((len(ids), sum(p.shape[1] for p in m.parts)), dtype=np.float32)
        if not ids:
            return out
        rows, hit = m.rows_of(ids)
        out[hit] = np.hstack([p[rows] for p in m.parts])
        if as_stored and m.basis is not None:
            out = out @ m.basis.T  # the basis is orthonormal: its transpose undoes it
        return out

    def notes_of(self, conn: apsw.Connection, ids: list[int]) -> dict[int, int] | None:
        """chunk id -> note id for the chunks ``ids`` that have a vector, from
        the copy of ``vec_chunks``; None: no current copy (ask SQLite)."""
        m = self._matrix(conn, "vec_chunks")
        if m is None or not m.held or m.docs is None:
            return None
        rows, hit = m.rows_of(ids)
        return dict(zip(np.asarray(ids, dtype=np.int64)[hit].tolist(), m.docs[rows].tolist()))

    def _matrix(self, conn: apsw.Connection, table: str) -> _Matrix | None:
        """The copy of ``table`` for the connection's rows, or None; a stale
        or missing copy starts a load when this process keeps copies."""
        version = rows_version(conn)
        with self._lock:
            m = self._tables.get(table)
            if m is not None and version is not None and m.version == version:
                return m
            opener, done = self._open, self._done
            start = (opener is not None and version is not None and not self._loading
                     and time.monotonic() >= self._next_load_at)
            if start:
                self._loading = True
                self._tables = {}  # stale: never read again, so not held through the load
        if start:
            assert opener is not None
            threading.Thread(target=self._load_on_thread, args=(opener, done), name="groove-vectors",
                             daemon=True).start()
        return None

    def _load_on_thread(self, opener: Callable[[], apsw.Connection], done: Callable[[], None] | None) -> None:
        t = time.monotonic()
        tables: dict[str, _Matrix] = {}
        try:
            tables = _load_all(opener())
        except Exception as e:  # a failed load leaves sqlite-vec answering
            log.warning("vector copy failed to load, KNNs use sqlite-vec: %s", e)
        finally:
            if done is not None:
                done()
        took = time.monotonic() - t
        with self._lock:
            self._loading = False
            # Writes while a vault is edited would reload back to back: wait
            # twice the last load (at most a third of a core on it).
            self._next_load_at = time.monotonic() + 2 * took
            self.took = took
        if self._open is not None:
            self._store(tables)

    def _store(self, tables: dict[str, _Matrix]) -> None:
        with self._lock:
            self._tables = tables


def _load_all(conn: apsw.Connection) -> dict[str, _Matrix]:
    """Copies of both vector tables as one read transaction sees them."""
    with conn:
        present = {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE name IN ('vec_chunks', 'vec_notes')")}
        version = rows_version(conn)
        # A table not made yet (a vault never indexed) is held as small: nothing to load.
        tables = {t: _load(conn, t, version) if t in present else _Matrix(version, np.zeros(0, dtype=np.int64))
                  for t in ("vec_chunks", "vec_notes")}
    return tables


def _best(scores: np.ndarray, n: int) -> np.ndarray:
    """Positions of the n highest ``scores`` (any order)."""
    if n >= len(scores):
        return np.arange(len(scores))
    return np.argpartition(-scores, n - 1)[:n]


def _load(conn: apsw.Connection, table: str, version: str | None) -> _Matrix:
    # Read in one transaction, so the rows and the version agree.
    with conn:
        version = rows_version(conn)
        (n,) = conn.execute(f"SELECT count(*) FROM {table}").fetchone() or (0,)
        vault_rows = n
        if table != "vec_chunks":
            (vault_rows,) = conn.execute("SELECT count(*) FROM chunks").fetchone() or (0,)
        if version is None or vault_rows < MIN_ROWS or n == 0:
            return _Matrix(version, np.zeros(0, dtype=np.int64))
        rows = conn.execute(f"SELECT rowid, embedding FROM {table}")
        first = next(rows)
        dim = len(first[1]) // 4
        bounds = _bounds(n, dim)
        # Read straight into the parts: never a second copy of the matrix.
        parts = tuple(np.empty((n, b - a), dtype=np.float32) for a, b in zip((0, *bounds), bounds))
        rowids = np.empty(n, dtype=np.int64)
        block = np.empty((_BLOCK, dim), dtype=np.float32)
        got = 0
        for i, (rid, emb) in enumerate(_chain(first, rows)):
            if i >= n:
                break
            rowids[i] = rid
            block[i % _BLOCK] = np.frombuffer(emb, dtype=np.float32)
            if i % _BLOCK == _BLOCK - 1 or i == n - 1:
                s = i - i % _BLOCK
                for part, a, b in zip(parts, (0, *bounds), bounds):
                    part[s:i + 1] = block[:i + 1 - s, a:b]
            got = i + 1
        parts, rowids = tuple(part[:got] for part in parts), rowids[:got]
        docs = None
        if table == "vec_chunks":
            doc_of = dict(conn.execute("SELECT id, doc_id FROM chunks"))
            docs = np.fromiter((doc_of.get(int(r), -1) for r in rowids), dtype=np.int64, count=len(rowids))
    sq = [np.einsum("ij,ij->i", part, part, dtype=np.float64) for part in parts]
    norms2 = np.sum(sq, axis=0)
    if len(parts) == 1:
        return _Matrix(version, rowids, parts, norms2=norms2, docs=docs)
    basis, weights = _principal_axes(parts)
    for s in range(0, got, _BLOCK):
        rotated = np.hstack([part[s:s + _BLOCK] for part in parts]) @ basis
        for part, a, b in zip(parts, (0, *bounds), bounds):
            part[s:s + _BLOCK] = rotated[:, a:b]
    sq = [np.einsum("ij,ij->i", part, part) for part in parts]  # rotated: each row's weight per part
    rest_norms = tuple(np.sqrt(np.sum(sq[i + 1:], axis=0)).astype(np.float32) for i in range(len(parts) - 1))
    return _Matrix(version, rowids, parts, basis=basis, norms2=norms2, docs=docs, rest_norms=rest_norms,
                   reach=tuple(TAIL_SIGMAS / np.sqrt(_effective_dims(weights[b:])) for b in bounds[:-1]))


def _bounds(n: int, dim: int) -> tuple[int, ...]:
    """Where the parts of an n x dim table end: one part below HEAD_MIN_ROWS
    (an exact scan), head and tail below LEAD_MIN_ROWS, else lead, rest of
    the head, tail (those that fit)."""
    if n < HEAD_MIN_ROWS or dim <= HEAD_DIMS:
        return (dim,)
    lead = (LEAD_DIMS,) if n >= LEAD_MIN_ROWS else ()
    return tuple(sorted({b for b in (*lead, HEAD_DIMS) if 0 < b < dim} | {dim}))


def _effective_dims(weights: np.ndarray) -> float:
    """The participation ratio of the axes' weights: how many axes they
    spread over, as the reach of a cosine across them needs it."""
    t = np.maximum(weights, 0.0)
    return max(float(t.sum() ** 2 / max(float((t ** 2).sum()), 1e-30)), 1.0)


def _chain(first, rest):
    yield first
    yield from rest


def _principal_axes(parts: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Orthonormal axes of the rows' uncentred second moment, the strongest
    first (the mean direction, which e5 vectors share, leads), and their
    weights. float32 is plenty: the axes decide only which rows the staged
    scan carries on, never a score."""
    gram = np.block([[a.T @ b for b in parts] for a in parts])
    weights, axes = np.linalg.eigh(gram.astype(np.float64))
    return np.ascontiguousarray(axes[:, ::-1], dtype=np.float32), weights[::-1]
