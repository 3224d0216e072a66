"""One BLAS thread for a search's small vector products (ADR 0222).

numpy's OpenBLAS splits a product of a few thousand rows over every core.
Its other threads sleep between calls (ADR 0135), and on a busy machine one
is woken late: the note leg's 6.8k x 384 product took 0.7 ms on one thread
and 5.7 ms p50 on two, under load (ADR 0221). A search's small products run
on one thread instead; each row's dot product is computed the same way
either way, so the results are the same bits.

The setting is the process's (OpenBLAS has no per-call one): while any
search holds it, a product elsewhere in the process runs on one thread too.
Held by several threads at once, it is set by the first and restored by the
last. Without ``threadpoolctl`` or a BLAS it knows, nothing changes.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_saved: list[tuple[Callable[[int], object], int]] = []
_libs: list[tuple[Callable[[], int], Callable[[int], object]]] | None = None


def _blas_libs() -> list[tuple[Callable[[], int], Callable[[int], object]]]:
    """(get, set) of each loaded OpenBLAS whose threads are its own pool
    (numpy's wheels): found once, by threadpoolctl. Its own setter answers
    only the first thread that called it, and a search runs on any thread,
    so the library's functions are called directly. An OpenMP build keeps
    a setting per thread, which a count across threads cannot restore: left
    as it is."""
    global _libs
    if _libs is None:
        _libs = []
        try:
            import numpy  # noqa: F401 - loads the BLAS the controller looks for
            from threadpoolctl import ThreadpoolController

            found = ThreadpoolController().select(internal_api="openblas").lib_controllers
        except Exception:  # noqa: BLE001 - no threadpoolctl, or a BLAS it cannot read: products as they were
            found = []
        for lib in found:
            if getattr(lib, "threading_layer", None) != "pthreads":
                continue
            for pre, suf in itertools.product(("", "scipy_"), ("", "64_", "_64")):
                get = getattr(lib.dynlib, f"{pre}openblas_get_num_threads{suf}", None)
                put = getattr(lib.dynlib, f"{pre}openblas_set_num_threads{suf}", None)
                if get is not None and put is not None:
                    _libs.append((get, put))
                    break
    return _libs


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block's BLAS products on one thread (see the module)."""
    global _holders, _saved
    libs = _blas_libs()
    if not libs:
        yield
        return
    with _lock:
        if _holders == 0:
            _saved = [(put, get()) for get, put in libs]
            for put, _ in _saved:
                put(1)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                for put, n in _saved:
                    put(n)
                _saved = []
