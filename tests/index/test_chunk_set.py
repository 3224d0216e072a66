"""The exclusion set held as flags (engines/chunk_set.py) behaves as the set
of the same ids wherever the legs read it."""

from __future__ import annotations

import numpy as np
import pytest

from groove.engines.chunk_set import ChunkSet, holds


def test_it_equals_the_python_set_of_its_ids_and_answers_membership_alike():
    ids = np.array([3, 7, 8, 1000], dtype=np.int64)
    s = ChunkSet(ids)
    assert s == {3, 7, 8, 1000} and {3, 7, 8, 1000} == s
    assert len(s) == 4 and list(s) == [3, 7, 8, 1000] and bool(s)
    for x in (3, np.int64(7), 1000):
        assert x in s
    for x in (0, 4, 999, 1001, -1, 10**12, "3", 3.5, None):
        assert x not in s
    assert not ChunkSet(np.zeros(0, dtype=np.int64)) and len(ChunkSet(np.zeros(0, dtype=np.int64))) == 0


def test_repeated_ids_count_once():
    assert len(ChunkSet(np.array([5, 5, 2], dtype=np.int64))) == 2


def test_holds_marks_the_same_rows_for_a_chunk_set_and_a_plain_set():
    rng = np.random.default_rng(1)
    ids = np.unique(rng.integers(0, 5000, 800))
    rows = rng.permutation(np.arange(0, 7000, dtype=np.int64))  # ids past the set's largest too
    want = np.isin(rows, ids)
    assert (holds(ChunkSet(ids), rows) == want).all()
    assert (holds(set(ids.tolist()), rows) == want).all()


def test_a_negative_id_is_refused():
    with pytest.raises(ValueError):
        ChunkSet(np.array([-1, 2], dtype=np.int64))


def test_find_sorted_says_where_each_id_is_and_whether_it_is_there():
    from groove.engines.chunk_set import find_sorted

    at, hit = find_sorted(np.array([2, 5, 9], dtype=np.int64), np.array([5, 1, 9, 10, 2], dtype=np.int64))
    assert hit.tolist() == [True, False, True, False, True] and at[hit].tolist() == [1, 2, 0]
    at, hit = find_sorted(np.zeros(0, dtype=np.int64), np.array([3], dtype=np.int64))
    assert hit.tolist() == [False]
