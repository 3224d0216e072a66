"""Sets of chunk ids as numpy holds them, for a big vault: a ``ChunkSet``
(one flag per id, for exclusions) and lookups in a sorted id array.

A note-wide exclusion of a common word names most chunks of a big vault
(54k of 100k chunks in ``bench/scale.py``'s). As a Python set it cost a
search ~1.5 ms to build from the word index's arrays and ~2 ms more to hand
back to numpy for the vector scan. Held as flags indexed by chunk id, it is
made and read by numpy in ~0.1 ms, and the legs' membership checks (a few
hundred to a few thousand ids) stay as cheap as a set's: one byte looked up.
"""

from __future__ import annotations

from collections.abc import Iterator, Set

import numpy as np


class ChunkSet(Set[int]):
    """Read-only; equal to any set holding the same ids."""

    __slots__ = ("_flags", "_bytes", "_n")

    def __init__(self, ids: np.ndarray) -> None:
        ids = np.asarray(ids, dtype=np.int64)
        if len(ids) and int(ids.min()) < 0:
            raise ValueError("chunk ids are never negative")
        flags = np.zeros(int(ids.max()) + 1 if len(ids) else 0, dtype=np.bool_)
        flags[ids] = True
        self._flags = flags
        self._bytes = flags.tobytes()  # bytes indexing is the cheapest lookup Python has
        self._n = int(flags.sum())

    def __contains__(self, x: object) -> bool:
        if not isinstance(x, (int, np.integer)):  # a str or float is never a chunk id
            return False
        i = int(x)
        return 0 <= i < len(self._bytes) and self._bytes[i] != 0

    def __iter__(self) -> Iterator[int]:
        return iter(np.flatnonzero(self._flags).tolist())

    def __len__(self) -> int:
        return self._n

    def __repr__(self) -> str:
        return f"ChunkSet({len(self)} ids)"

    def holds(self, ids: np.ndarray) -> np.ndarray:
        """bool per entry of ``ids``: whether it is in the set."""
        ids = np.asarray(ids, dtype=np.int64)
        inside = (ids >= 0) & (ids < len(self._flags))
        out = np.zeros(len(ids), dtype=np.bool_)
        out[inside] = self._flags[ids[inside]]
        return out


def holds(excluded: Set[int], ids: np.ndarray) -> np.ndarray:
    """bool per entry of ``ids``: whether ``excluded`` (any set) holds it."""
    if isinstance(excluded, ChunkSet):
        return excluded.holds(ids)
    return np.isin(ids, np.fromiter(excluded, dtype=np.int64, count=len(excluded)))


def find_sorted(sorted_ids: np.ndarray, want: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each of ``want`` sits in the ascending ``sorted_ids``, and
    whether it is there at all (positions of the missing ones are arbitrary)."""
    if not len(sorted_ids):
        return np.zeros(len(want), dtype=np.intp), np.zeros(len(want), dtype=bool)
    at = np.minimum(np.searchsorted(sorted_ids, want), len(sorted_ids) - 1)
    return at, sorted_ids[at] == want
