"""one_blas_thread (ADR 0222): one BLAS thread while held, the process's
setting back when the last holder leaves, and the same bits either way."""

from __future__ import annotations

import random
import threading
import time

import numpy as np
import pytest

from groove.blas_threads import _blas_libs, one_blas_thread

threadpoolctl = pytest.importorskip("threadpoolctl")


def _threads() -> list[int]:
    return [get() for get, _ in _blas_libs()]


@pytest.fixture(autouse=True)
def _needs_a_blas():
    if not _blas_libs():
        pytest.skip("no OpenBLAS with its own thread pool here (numpy built with another BLAS)")


def test_one_thread_while_held_and_the_setting_back_after():
    before = _threads()
    with one_blas_thread():
        assert _threads() == [1] * len(before)
        with one_blas_thread():  # nested: still one
            assert _threads() == [1] * len(before)
        assert _threads() == [1] * len(before)
    assert _threads() == before


def test_many_threads_holding_it_at_once_leave_the_setting_as_it_was():
    before = _threads()
    seen: list[list[int]] = []
    rng = random.Random(7)
    pauses = [rng.random() / 500 for _ in range(400)]

    def work(i: int) -> None:
        for p in pauses[i::8]:
            with one_blas_thread():
                seen.append(_threads())
                time.sleep(p)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen and all(s == [1] * len(before) for s in seen)
    assert _threads() == before


def test_a_note_sized_product_is_the_same_bits_on_one_thread():
    x = np.random.default_rng(0).standard_normal((6800, 384)).astype(np.float32)
    q = x[5].copy()
    both = x @ q
    with one_blas_thread():
        one = x @ q
    assert np.array_equal(both, one)
