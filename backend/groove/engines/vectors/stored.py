"""A few rows of a vec0 table read by rowid, without its KNN.

sqlite-vec keeps a vec0 table's vectors in blobs of 1,024 rows each
(``<table>_vector_chunks00``), with each rowid's blob and slot in
``<table>_rowids``. Selecting ``embedding`` or ``vec_distance_l2`` by rowid
costs ~20 us a row here (150 rows: ~3 ms); reading each row's 1.5 kB
slot with SQLite's incremental blob I/O costs half that. When the layout is
not the one expected (another sqlite-vec), the rows are selected instead.
"""

from __future__ import annotations

import apsw
import numpy as np


def _layout(conn: apsw.Connection, table: str) -> bool:
    names = {f"{table}_rowids", f"{table}_vector_chunks00"}
    found = {n for (n,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE name IN (?, ?)", tuple(sorted(names)))}
    return found == names


# The most page cache a connection is given to hold the blobs it reads
# here: in a process that keeps vector copies (the daemon), enough for the
# tables of a vault below the copy's 10k rows (a bigger one is read from its
# copy); in a one-shot process, its one connection, enough for 80k chunks.
KEPT_CACHE_KIB = 32 * 1024
ONE_SHOT_CACHE_KIB = 128 * 1024


def _one(conn: apsw.Connection, sql: str, *args: int) -> int:
    row = conn.execute(sql, args).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else 0


def _room(conn: apsw.Connection, table: str, most_kib: int) -> None:
    """Let the connection's page cache hold the table's blobs (at most
    ``most_kib``). A slot deep in a blob is reached by walking the
    blob's overflow pages from its start; the KNN that came just before has
    read them all, but through SQLite's default 2 MB cache, which a
    vault of 2k chunks (4.5 MB of blobs) already cycles: 150 rows then cost
    ~9 ms, against ~1 ms held. Raised once, never lowered."""
    have = _one(conn, "PRAGMA cache_size")
    blobs = _one(conn, f"SELECT count(*) FROM {table}_vector_chunks00")
    current = -have if have < 0 else have * _one(conn, "PRAGMA page_size") // 1024
    want = min(most_kib, blobs * 1600 + 2048)  # 1.5 MB a blob of 1,024 e5-small rows, and the rest
    if want > current:
        conn.execute(f"PRAGMA cache_size = -{want}")


def rows(conn: apsw.Connection, table: str, ids: list[int],
         most_kib: int = KEPT_CACHE_KIB) -> tuple[list[int], np.ndarray]:
    """The rows of ``table`` among ``ids`` (ids the table lacks are left
    out) and their vectors as stored, one float32 row each; the page cache
    raised to at most ``most_kib`` to hold them."""
    if not ids:
        return [], np.zeros((0, 0), dtype=np.float32)
    marks = ",".join(str(int(i)) for i in ids)
    found: list[int] = []
    raw: list[bytes] = []
    if not _layout(conn, table):
        for rid, b in conn.execute(f"SELECT rowid, embedding FROM {table} WHERE rowid IN ({marks})"):
            found.append(int(rid))
            raw.append(bytes(b))
        return found, _matrix(raw)
    _room(conn, table, most_kib)
    slots = [(int(r), int(c), int(o)) for r, c, o in conn.execute(
        f"SELECT rowid, chunk_id, chunk_offset FROM {table}_rowids "
        f"WHERE rowid IN ({marks}) AND chunk_id IS NOT NULL ORDER BY chunk_id, chunk_offset")]
    at, size = -1, 0
    blob: apsw.Blob | None = None
    try:
        for rid, chunk, offset in slots:
            if blob is None or chunk != at:
                if blob is not None:
                    blob.close()
                blob = conn.blob_open("main", f"{table}_vector_chunks00", "vectors", chunk, False)
                at = chunk
                if not size:  # bytes a row: the blob holds ``size`` rows
                    size = blob.length() // max(1, _one(conn, f"SELECT size FROM {table}_chunks WHERE chunk_id = ?",
                                                        chunk))
            blob.seek(offset * size)
            found.append(rid)
            raw.append(blob.read(size))
    finally:
        if blob is not None:
            blob.close()
    return found, _matrix(raw)


def _matrix(raw: list[bytes]) -> np.ndarray:
    if not raw:
        return np.zeros((0, 0), dtype=np.float32)
    return np.frombuffer(b"".join(raw), dtype=np.float32).reshape(len(raw), -1)
