"""ADR 0081: the query is embedded on a worker thread while the full-text
leg runs on the caller's."""

from __future__ import annotations

import os
import threading

import pytest

from groove.engines.lexical import fts
from groove.pipeline import SearchParams, run_search
from stagekit import *  # noqa: F401,F403


class _Gated:
    """An embedder whose query embedding waits for the full-text leg."""

    def __init__(self, inner, gate: threading.Event):
        self._inner, self._gate = inner, gate
        self.threads: list[str] = []

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def embed_query(self, text):
        self.threads.append(threading.current_thread().name)
        assert self._gate.wait(10), "the full-text leg never ran while the query was being embedded"
        return self._inner.embed_query(text)


def test_the_full_text_leg_runs_while_the_query_is_embedded(small_rt, monkeypatch):
    import dataclasses

    gate = threading.Event()
    real = fts.fts_search

    def leg(*a, **kw):
        out = real(*a, **kw)
        gate.set()
        return out

    monkeypatch.setattr(fts, "fts_search", leg)
    gated = _Gated(small_rt.embedder, gate)
    rt = dataclasses.replace(small_rt, _embedder=gated)
    resp = run_search(rt, SearchParams("sync notes"))
    assert resp.results and gate.is_set()
    assert gated.threads and gated.threads[0] != threading.current_thread().name


def test_an_embedding_error_still_reaches_the_caller(small_rt):
    import dataclasses

    class Broken:
        def __getattr__(self, name):
            return getattr(small_rt.embedder, name)

        def embed_query(self, text):
            raise RuntimeError("model went away")

    with pytest.raises(RuntimeError, match="model went away"):
        run_search(dataclasses.replace(small_rt, _embedder=Broken()), SearchParams("sync notes"))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_can_still_search(small_rt):
    run_search(small_rt, SearchParams("sync notes"))  # the parent's pool exists now
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: its own index connection, a fresh pool
        try:
            small_rt.index._local = threading.local()
            ok = bool(run_search(small_rt, SearchParams("garden")).results)
            os.write(w, b"1" if ok else b"0")
        finally:
            os._exit(0)
    os.close(w)
    import select
    import signal

    got = os.read(r, 1) if select.select([r], [], [], 20)[0] else b""
    if not got:
        os.kill(pid, signal.SIGKILL)  # hung on a pool with no threads
    os.waitpid(pid, 0)
    assert got == b"1", "the forked child's search never finished"
