"""The daemon's only index writer: one thread, one job at a time.

Requests that arrive while a job runs are merged into the *next* job (a set
of paths, or "everything"), so a burst never queues N jobs. When nothing
has been asked of the daemon for a while, the same thread does idle work:
it stores the vault's sentence vectors for answer spans (ADR 0281).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

from .. import operations
from ..errors import GrooveError
from ..indexer import IndexSummary
from ..pipeline.answer_vectors import SentenceWarmer
from ..runtime import Runtime

log = logging.getLogger("groove.daemon.watcher")  # one logger name for the indexing thread and the watch

PROGRESS_INTERVAL_S = 0.1  # index.progress at most ~10/s (plus every phase change)
ANSWER_VECTORS_IDLE_S = 15.0  # idle work starts after this long without a request or a job


@dataclass
class _Job:
    paths: set[str] = field(default_factory=set)
    full: bool = False
    force: bool = False
    waiters: list[Future] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.paths or self.full or self.force or self.waiters)


def changed_payload(summary: IndexSummary, counts: tuple[int, int]) -> dict:
    """The ``index.changed`` params for one finished job."""
    paths = list(summary.indexed) + [new for _, new in summary.renamed]
    deleted = list(summary.deleted) + [old for old, _ in summary.renamed]
    return {"paths": sorted(set(paths)), "deleted": sorted(set(deleted)),
            "documents": counts[0], "chunks": counts[1]}


class IndexWorker:
    """The daemon's only index writer."""

    def __init__(
        self,
        rt: Runtime,
        *,
        on_progress: Callable[[dict], None] | None = None,
        on_changed: Callable[[dict], None] | None = None,
    ) -> None:
        self.rt = rt
        self.on_progress = on_progress or (lambda ev: None)
        self.on_changed = on_changed or (lambda ev: None)
        self._cv = threading.Condition()
        self._next = _Job()
        self._busy = False
        self._stop = False
        self.jobs_run = 0  # jobs done; read by the test that no change outside the vault starts one
        self.full_runs = 0  # whole-vault passes done (the watcher re-reads its linked notes after one)
        self.first_full_at: float | None = None  # when the first whole-vault pass began (wall clock, as file times)
        self.first_full_done = threading.Event()  # ... and that it ended (the watcher's catch-up waits for it)
        self.last_error: str | None = None
        # Idle work (ADR 0281): sentence vectors for answer_spans, a few at a
        # time, once nothing was asked of the daemon for ANSWER_VECTORS_IDLE_S.
        self.warmer: SentenceWarmer | None = None
        self._warm_more = self.stores_answer_vectors
        self._touched = time.monotonic()
        self._thread = threading.Thread(target=self._loop, name="groove-indexer", daemon=True)

    def start(self) -> None:
        self._thread.start()

    # -- submitting ------------------------------------------------------------
    def submit_paths(self, paths: set[str]) -> None:
        """Index these vault-relative paths (new, changed or deleted notes)."""
        if not paths:
            return
        with self._cv:
            self._next.paths |= paths
            self._cv.notify()

    def submit_full(self, *, force: bool = False) -> Future:
        """An incremental pass over the whole vault (or a re-embed, ``force``);
        the future gets that job's IndexSummary."""
        fut: Future = Future()
        with self._cv:
            self._next.full = True
            self._next.force |= force
            self._next.waiters.append(fut)
            self._cv.notify()
        return fut

    @property
    def busy(self) -> bool:
        with self._cv:
            return self._busy or not self._next.empty()

    def pending_paths(self) -> int:
        with self._cv:
            return len(self._next.paths)

    def touch(self) -> None:
        """A request came in: idle work waits until the daemon is quiet again."""
        self._touched = time.monotonic()

    def _idle_wait(self) -> float | None:
        """Seconds until idle work may run (0: now), None when there is none."""
        if not self._warm_more:
            return None
        return max(0.0, ANSWER_VECTORS_IDLE_S - (time.monotonic() - self._touched))

    def _warm(self) -> None:
        """One step of idle work; off until the next job when it has no more."""
        if self.warmer is None:
            self.warmer = SentenceWarmer(self.rt.index, self.rt.embedder)
        if not self.warmer.step():
            self._warm_more = False
            if self.warmer.stored:
                log.info("sentence vectors stored: %d", self.warmer.stored)

    @property
    def stores_answer_vectors(self) -> bool:
        return self.rt.config.index.answer_vectors and not self.rt.index.read_only

    def answer_vectors_to_store(self) -> int | None:
        """Sentences idle work has still to store (0: all stored), None before it has looked."""
        return None if self.warmer is None else self.warmer.pending

    def wait_idle(self, timeout: float | None = None) -> bool:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cv:
            while self._busy or not self._next.empty():
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cv.wait(left)
        return True

    def stop(self, timeout: float = 5.0) -> bool:
        """Stop after the current job; True if the thread ended in time."""
        with self._cv:
            self._stop = True
            self._cv.notify_all()
        if self._thread.is_alive():
            self._thread.join(timeout)
        return not self._thread.is_alive()

    # -- the thread --------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._cv:
                while self._next.empty() and not self._stop:
                    wait = self._idle_wait()
                    if wait == 0:
                        break
                    self._cv.wait(wait)
                if self._stop:
                    for w in self._next.waiters:
                        w.cancel()
                    return
                idle = self._next.empty()
            if idle:
                self._warm()
                continue
            with self._cv:
                job, self._next = self._next, _Job()
                self._busy = True
                if job.full and self.first_full_at is None:
                    self.first_full_at = time.time()
            try:
                self._run(job)
            finally:
                self._touched = time.monotonic()  # idle work waits for the quiet after a job too
                if job.full:
                    self.first_full_done.set()
                with self._cv:
                    self._busy = False
                    self._cv.notify_all()

    def _run(self, job: _Job) -> None:
        only = None if job.full else set(job.paths)
        last: list[Any] = [0.0, ""]  # when and which phase the last event went out

        def progress(ev: dict) -> None:
            # Throttled: a 10 000-note reindex must not flood the editors.
            now = time.monotonic()
            if ev.get("phase") != last[1] or now - last[0] >= PROGRESS_INTERVAL_S or ev.get("phase") == "done":
                last[0], last[1] = now, str(ev.get("phase"))
                self.on_progress({k: ev[k] for k in ("phase", "done", "total", "path") if k in ev})

        t0 = time.perf_counter()
        try:
            summary = operations.reindex(self.rt, force=job.force, only=only, progress=progress)
        except BaseException as e:  # noqa: BLE001 - reported to waiters and the log
            self.last_error = f"{type(e).__name__}: {e}"
            log.error("index job failed (%s): %s", "full" if only is None else f"{len(only)} paths", e,
                      exc_info=not isinstance(e, GrooveError))
            for w in job.waiters:
                if not w.cancelled():
                    w.set_exception(e)
            return
        self.last_error = None
        self.jobs_run += 1
        self.full_runs += only is None
        payload = changed_payload(summary, self.rt.index.counts())
        log.info("indexed %s: %d changed, %d deleted, %d unchanged in %.2fs",
                 "vault" if only is None else f"{len(only)} paths", len(payload["paths"]),
                 len(payload["deleted"]), summary.unchanged, time.perf_counter() - t0)
        for w in job.waiters:
            if not w.cancelled():
                w.set_result(summary)
        if payload["paths"] or payload["deleted"]:
            if self.warmer is not None:
                self.warmer.invalidate()  # the chunks changed: their new sentences are to store
            self._warm_more = self.stores_answer_vectors
            self.on_changed(payload)
