"""Sentence vectors kept in the index for answer_spans (ADR 0281).

A cold answer_spans embeds every sentence of the hits it marks, ~30 query
embeddings a search. The daemon embeds the vault's sentences while it is
idle and keeps them here; a search then reads them. Keyed by the text the
model reads, so an edit anywhere else in a note keeps its sentences' rows.
Stored as float16: half the bytes, a cosine off by ~1e-4, and the search
rounds the vectors it computes itself the same way, so an answer does not
depend on where a vector came from. Rows are of one model, named in meta;
another model's are dropped before any is written.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from itertools import islice

import numpy as np

from .db import Index

TABLE = "sentence_vectors"
META_MODEL = "sentence_vectors_model"
_IN_BATCH = 500  # keys per SELECT ... IN (...)


def sentence_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def as_stored(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` as they come back from the table (float16, read as float32)."""
    return np.asarray(vectors, dtype=np.float32).astype(np.float16).astype(np.float32)


class SentenceVectors:
    """The table's reads and writes, for the model ``model``."""

    def __init__(self, index: Index, model: str) -> None:
        self.index = index
        self.model = model

    def _usable(self) -> bool:
        c = self.index.conn
        if c.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (TABLE,)).fetchone() is None:
            return False  # a read-only file from before the table
        return self.index.get_meta(META_MODEL) == self.model

    def get(self, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The stored vectors of ``keys`` (those stored; none of another model's)."""
        if not keys or not self._usable():
            return {}
        out: dict[bytes, np.ndarray] = {}
        it = iter(dict.fromkeys(keys))
        while batch := list(islice(it, _IN_BATCH)):
            marks = ",".join("?" * len(batch))
            for k, blob in self.index.conn.execute(f"SELECT key, vector FROM {TABLE} WHERE key IN ({marks})", batch):
                out[bytes(k)] = np.frombuffer(blob, dtype=np.float16).astype(np.float32)
        return out

    def count(self) -> int:
        if not self._usable():
            return 0
        row = self.index.conn.execute(f"SELECT count(*) FROM {TABLE}").fetchone()
        return int(row[0]) if row else 0

    def stored_keys(self) -> set[bytes]:
        if not self._usable():
            return set()
        return {bytes(k) for (k,) in self.index.conn.execute(f"SELECT key FROM {TABLE}")}

    def put(self, items: Iterable[tuple[bytes, np.ndarray]]) -> None:
        """Store vectors (unit length, float32 in); another model's rows go first."""
        rows = [(k, np.asarray(v, dtype=np.float32).astype(np.float16).tobytes()) for k, v in items]
        with self.index.atomic() as c:
            if self.index.get_meta(META_MODEL) != self.model:
                c.execute(f"DELETE FROM {TABLE}")
                self.index.set_meta(META_MODEL, self.model)
            c.executemany(f"INSERT OR REPLACE INTO {TABLE}(key, vector) VALUES (?, ?)", rows)

    def drop(self, keys: Iterable[bytes]) -> None:
        """Drop these rows (sentences no chunk holds any more)."""
        gone = [(k,) for k in keys]
        if gone:
            with self.index.atomic() as c:
                c.executemany(f"DELETE FROM {TABLE} WHERE key = ?", gone)
