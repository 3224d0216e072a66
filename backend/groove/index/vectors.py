"""Nearest vectors from an in-memory copy of a vec0 table, for big vaults
(ADR 0121).

sqlite-vec's exact KNN scans every row in C at ~12x the cost of numpy's
``X @ q`` (100k chunks: 60 ms against 5 ms), and a search runs more than one
KNN. Above ``MIN_ROWS`` rows the table is copied once into a float32 matrix;
a query takes the ``k + SLACK`` best by dot product there, then sqlite-vec
re-scores just those rows, so the distances, and hence the order, are
sqlite-vec's own: the same hits as its KNN. SQLite stays the source of truth:
the copy is dropped when ``meta.rows_version`` (bumped by triggers on every
chunk and note change, schema m003) moves. Below ``MIN_ROWS`` the KNN is
cheap and memory is worth more: sqlite-vec answers.

The size that counts is the vault's chunks, for the note table too: a vault
of 100k chunks has only ~8k notes, yet sqlite-vec's note KNN and the
note-aware leg's per-note lookups cost it ~12 ms a search, against ~1 ms in
memory for 12 MB.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import apsw
import numpy as np

from .schema import rows_version

MIN_ROWS = 10_000
SLACK = 16  # extra rows re-scored exactly, far beyond float32 rounding between the two


@dataclass
class _Matrix:
    version: str | None
    rowids: np.ndarray  # int64, row i of ``vectors``
    vectors: np.ndarray | None  # (n, dim) float32; None when the table is small
    order: np.ndarray | None = None  # argsort of ``rowids``: finds a rowid's row

    def rows_of(self, ids: list[int]) -> np.ndarray:
        """The rows holding ``ids`` (ids not in the table are left out)."""
        if self.order is None:
            self.order = np.argsort(self.rowids, kind="stable")
        sorted_ids = self.rowids[self.order]
        want = np.asarray(ids, dtype=np.int64)
        at = np.clip(np.searchsorted(sorted_ids, want), 0, max(len(sorted_ids) - 1, 0))
        hit = sorted_ids[at] == want if len(sorted_ids) else np.zeros(len(want), dtype=bool)
        return self.order[at[hit]]


class VectorCache:
    """One per index, shared by the reader threads (each has its own connection)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _Matrix] = {}

    def nearest(self, conn: apsw.Connection, table: str, blob: bytes, k: int,
                allowed_sql: str | None, excluded: set[int] | None = None) -> list[tuple[int, float]] | None:
        """Top-k (rowid, L2 distance) of ``table`` ordered as sqlite-vec's KNN
        orders them, rows of ``allowed_sql`` only and none of ``excluded``;
        or None when the table is small (ask sqlite-vec)."""
        m = self._matrix(conn, table)
        if m.vectors is None or k <= 0:
            return None
        scores = m.vectors @ np.frombuffer(blob, dtype=np.float32)
        if allowed_sql is not None:
            allowed = np.fromiter((r[0] for r in conn.execute(allowed_sql)), dtype=np.int64)
            scores = np.where(np.isin(m.rowids, allowed), scores, -np.inf)
        if excluded:
            scores = np.where(np.isin(m.rowids, np.fromiter(excluded, dtype=np.int64)), -np.inf, scores)
        want = min(k + SLACK, len(scores))
        top = [i for i in np.argpartition(-scores, want - 1)[:want] if scores[i] != -np.inf]
        return sorted(_rescore(conn, m, blob, top), key=lambda r: (r[1], r[0]))[:k]

    def distances(self, conn: apsw.Connection, table: str, blob: bytes,
                  ids: list[int]) -> list[tuple[int, float]] | None:
        """(rowid, L2 distance) of the rows ``ids`` (sqlite-vec's own values),
        or None when the table is small (ask sqlite-vec). vec0 reads a chunk
        of its storage per looked-up rowid: 150 notes cost ~8 ms at 100k chunks."""
        m = self._matrix(conn, table)
        if m.vectors is None:
            return None
        return _rescore(conn, m, blob, [int(i) for i in m.rows_of(ids)]) if ids else []

    def _matrix(self, conn: apsw.Connection, table: str) -> _Matrix:
        version = rows_version(conn)
        with self._lock:
            m = self._tables.get(table)
            if m is not None and version is not None and m.version == version:
                return m
        m = _load(conn, table, version)
        with self._lock:
            self._tables[table] = m
        return m


def _rescore(conn: apsw.Connection, m: _Matrix, blob: bytes, rows: list[int]) -> list[tuple[int, float]]:
    """sqlite-vec's own distance on the stored bytes of matrix ``rows``."""
    if not rows:
        return []
    assert m.vectors is not None
    values = ",".join("(?,?)" for _ in rows)
    args: list[object] = [blob]
    for i in rows:
        args += [int(m.rowids[i]), m.vectors[i].tobytes()]
    return [(r[0], r[1]) for r in conn.execute(
        f"SELECT column1, vec_distance_l2(column2, ?1) FROM (VALUES {values})", args)]


def _load(conn: apsw.Connection, table: str, version: str | None) -> _Matrix:
    # Read in one transaction, so the rows and the version agree.
    with conn:
        version = rows_version(conn)
        n = conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        vault_rows = n if table == "vec_chunks" else conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        if version is None or vault_rows < MIN_ROWS or n == 0:
            return _Matrix(version, np.zeros(0, dtype=np.int64), None)
        rowids = np.empty(n, dtype=np.int64)
        first = True
        vectors = np.empty((0, 0), dtype=np.float32)
        for i, (rid, emb) in enumerate(conn.execute(f"SELECT rowid, embedding FROM {table}")):
            if first:
                vectors = np.empty((n, len(emb) // 4), dtype=np.float32)
                first = False
            if i >= n:
                break
            rowids[i] = rid
            vectors[i] = np.frombuffer(emb, dtype=np.float32)
        return _Matrix(version, rowids, vectors)
