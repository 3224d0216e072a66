"""Keeping the index live: a single indexing thread fed by the file watcher
and by `reindex` requests.

* ``IndexWorker`` runs every index job on one thread, one job at a time.
  Requests that arrive while a job runs are merged into the *next* job (a
  set of paths, or "everything"), so a burst never queues N jobs.
* ``VaultWatcher`` reads native change events (``watchfiles``: inotify /
  FSEvents / ReadDirectoryChangesW, never polling) and turns them into
  vault-relative note paths. A batch is handed over once the vault has been
  quiet for ``[watch] debounce_ms`` (capped at ``MAX_WAIT_FACTOR`` × that
  after the first event), so a `git checkout` of hundreds of files or an
  editor's write-temp-then-rename is one batch.

Searches never wait for a batch: they read the last committed state (WAL).
"""

from __future__ import annotations

import logging
import os
import queue
import stat
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import operations
from ..errors import GrooveError
from ..indexer import IndexSummary
from ..pipeline.answer_vectors import SentenceWarmer
from ..runtime import Runtime
from ..vault.daily_notes import DAILY_NOTES_FILE
from ..vault.scan import IGNORE_FILE, OBSIDIAN_APP_FILE, SKIP_DIRS, is_note_name
from .startup_gap import CLOCK_SLACK_S, changed_since
from .watch_folders import folders_moved, real_folders, watched_folders

log = logging.getLogger("groove.daemon.watcher")

MAX_WAIT_FACTOR = 10  # a never-quiet vault still gets indexed every 10 × debounce
PROGRESS_INTERVAL_S = 0.1  # index.progress at most ~10/s (plus every phase change)
RESTART_MAX_WAIT_S = 30.0  # a watch that keeps failing is retried at least this often
ROOT_CHECK_S = 1.0  # a running watch checks this often that the vault folder is the one it watches
GONE_POLL_S = 1.0  # a vault folder that is gone is looked for this often
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
        self._warm_more = rt.config.index.answer_vectors and not rt.index.read_only
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
            self._warm_more = self.rt.config.index.answer_vectors and not self.rt.index.read_only
            self.on_changed(payload)


# ----------------------------------------------------------------------------- watcher


def _rel(vault: Path, abspath: str) -> str | None:
    try:
        rel = Path(abspath).relative_to(vault)
    except ValueError:
        return None
    parts = rel.parts
    if not parts:
        return None
    if rel.as_posix() in (OBSIDIAN_APP_FILE, DAILY_NOTES_FILE):
        # Obsidian's Excluded files (ADR 0190) and daily-notes settings (ADR 0191)
        return rel.as_posix()
    # Folders the scanner never indexes: skip their (frequent) churn early.
    for p in parts[:-1]:
        if p in SKIP_DIRS or p.startswith("."):
            return None
    return rel.as_posix()


class VaultWatcher:
    """Native file events → debounced batches of note paths → IndexWorker.

    The watch is on the vault folder as it was when the watch began: a
    folder deleted, or moved away and made again (a sync tool, `git
    checkout`, ``mv V V.old; mkdir V``), is noticed within ``ROOT_CHECK_S``.
    While it is gone, ``running`` is False and ``problem`` says why; it is
    looked for every ``GONE_POLL_S``, and once back it is watched again and
    rescanned, so notes deleted with the old folder leave search (ADR 0152)."""

    def __init__(self, rt: Runtime, worker: IndexWorker, *, debounce_ms: int | None = None) -> None:
        self.rt = rt
        self.vault = rt.vault
        self.worker = worker
        self.debounce_ms = rt.config.watch.debounce_ms if debounce_ms is None else debounce_ms
        self._events: queue.Queue = queue.Queue()
        self._stop = threading.Event()
        self.batches = 0  # path batches handed to the worker; read like IndexWorker.jobs_run
        self.watched = 0  # folders in the current native watch
        self.running = False
        self.problem: str | None = None  # why the vault is not watched now, or None
        self.up = threading.Event()  # the first native watch is registered (it has yielded once)
        self._linked: dict[str, set[tuple]] | None = None  # see _linked_notes
        self._linked_at = -1  # the worker's full_runs when _linked was made
        self._watch_thread = threading.Thread(target=self._watch, name="groove-watch", daemon=True)
        self._batch_thread = threading.Thread(target=self._batch, name="groove-batch", daemon=True)

    def start(self) -> None:
        self.running = True
        self._watch_thread.start()
        self._batch_thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._events.put(None)
        self.running = False

    def _folder(self) -> tuple[int, int] | None:
        """The vault folder's identity (device, inode), or None when there is no folder there."""
        try:
            st = os.stat(self.vault)
        except OSError:
            return None
        return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None

    def _lost(self, why: str) -> None:
        if self.problem != why:
            log.warning("%s", why)
        self.running = False
        self.problem = why

    def _watch(self) -> None:
        import watchfiles

        def keep(change: watchfiles.Change, path: str) -> bool:
            return _rel(self.vault, path) is not None

        failures = 0
        rescan = False  # after a failure or a lost folder: rescan once the new watch is known to be up
        first = True  # no watch has been up yet
        while not self._stop.is_set():
            folder = self._folder()
            if folder is None:
                self._lost(f"the vault folder {self.vault} is gone (deleted or moved); "
                           "it is watched and reindexed again as soon as it is back")
                rescan = True
                if self._stop.wait(GONE_POLL_S):
                    break
                continue
            replaced = moved = False
            folders = watched_folders(self.vault)
            self.watched = len(folders)
            watched = set(folders)
            try:
                # step: how long watchfiles waits for more events before yielding;
                # our own quiet-period debounce (in _batch) does the coalescing.
                # rust_timeout: an empty yield this often, to check the folder is still the one watched.
                for changes in watchfiles.watch(
                    *folders, recursive=False, watch_filter=keep, debounce=max(50, self.debounce_ms), step=20,
                    stop_event=self._stop, force_polling=False, raise_interrupt=False,
                    ignore_permission_denied=True, yield_on_timeout=True,
                    rust_timeout=int(ROOT_CHECK_S * 1000),
                ):
                    if self._folder() != folder:
                        replaced = True  # events from here on may be the old folder's
                        break
                    if first:
                        first = False
                        self.up.set()
                        began = self.worker.first_full_at
                        if began is not None and not rescan:
                            # The watch is up (it yielded). A note made, changed or
                            # deleted after the startup pass read it but before the
                            # watch was registered has no event: once that pass
                            # ends, compare what changed since it began.
                            threading.Thread(target=self._catch_up, args=(began,), name="groove-catch-up",
                                             daemon=True).start()
                    if rescan:  # the watch is up (it yielded): nothing from now on is missed
                        rescan = False
                        if self.problem:
                            log.info("watching %s again; rescanning it", self.vault)
                        self.running, self.problem = True, None
                        self.worker.submit_full()
                    if changes:
                        failures = 0
                        self._events.put(changes)
                        if folders_moved(changes, watched):
                            moved = True  # watch the new set of folders
                            break
                if moved:
                    # Files made in a new folder before its watch began have no
                    # event: the rescan once the new watch is up finds them.
                    rescan = True
                    continue
                if not replaced:
                    break
                if self._folder() is not None:  # gone: the loop's first check says so
                    self._lost(f"the vault folder {self.vault} was replaced (deleted or moved, and made again); "
                               "watching the new one and reindexing it")
                rescan = True
            except Exception as e:  # noqa: BLE001
                # One odd file must not end live indexing: watchfiles raises on
                # a name that is not UTF-8, for one. Watch again (backing off if
                # it keeps failing), then rescan, since events may have been lost.
                failures += 1
                wait = min(RESTART_MAX_WAIT_S, 0.1 * 2 ** min(failures, 10))
                log.warning("file watcher error (%s); watching again in %.1fs and rescanning the vault",
                            str(e)[:300].encode("unicode_escape").decode("ascii"), wait)
                rescan = True
                if self._stop.wait(wait):
                    break
        self.running = False

    def _batch(self) -> None:
        quiet = self.debounce_ms / 1000.0
        while not self._stop.is_set():
            first = self._events.get()
            if first is None:
                return
            raw = set(first)
            started = last = time.monotonic()
            while True:
                wait = min(quiet - (time.monotonic() - last), quiet * MAX_WAIT_FACTOR - (time.monotonic() - started))
                if wait <= 0:
                    break
                try:
                    more = self._events.get(timeout=wait)
                except queue.Empty:
                    break
                if more is None:
                    return
                raw |= more
                last = time.monotonic()
            try:
                paths = self.affected_paths(raw)
            except Exception as e:  # noqa: BLE001
                log.warning("could not map file events (%s); reindexing the vault", e)
                self.worker.submit_full()
                continue
            if paths is None:
                self.worker.submit_full()
            elif paths:
                self.batches += 1
                self.worker.submit_paths(paths)

    def affected_paths(self, raw: set) -> set[str] | None:
        """Note paths touched by these events; None = unsure, scan everything.

        A note event names the note. A folder event (created, deleted, moved
        — inotify reports a moved folder once, not per file) stands for the
        notes under it: those now on disk plus those the index had there.
        """
        notes: set[str] = set()
        self._linked_notes()  # before the events update it
        for _change, abspath in raw:
            rel = _rel(self.vault, abspath)
            if rel is None:
                continue
            name = rel.rsplit("/", 1)[-1]
            if rel in (IGNORE_FILE, OBSIDIAN_APP_FILE, DAILY_NOTES_FILE):
                return None  # what counts as a note, or a daily note's day, changed
            if is_note_name(name):
                notes.add(rel)
                self._note_links(rel)
                continue
            p = Path(abspath)
            if p.is_dir() and not p.is_symlink():  # a link made to a folder is not walked: it may leave the vault
                for folder in real_folders(p):
                    try:
                        names = os.listdir(folder)
                    except OSError:
                        continue
                    for f in names:
                        if is_note_name(f):
                            r = _rel(self.vault, os.path.join(folder, f))
                            if r:
                                notes.add(r)
            notes |= self._indexed_under(rel)
        return notes | self._same_files(notes)

    def _catch_up(self, began: float) -> None:
        while not self.worker.first_full_done.wait(0.5):
            if self._stop.is_set():
                return
        try:
            self.worker.submit_paths(changed_since(self.vault, self.rt.index, began - CLOCK_SLACK_S))
        except Exception as e:  # noqa: BLE001
            log.warning("could not compare the vault with the index after startup (%s); reindexing it", e)
            self.worker.submit_full()

    # -- notes that are one file under several names (issue 50 R9) ---------------
    def _keys(self, rel: str, *, own: bool = False) -> set[tuple]:
        """What identifies a note's file: the path a symlink resolves to (an
        editor's save-by-rename gives the target a new inode, not a new
        path) and the (device, inode) of a file with several hard links.
        ``own``: only the keys that let another name reach the file."""
        p = self.vault / rel
        try:
            lst = os.lstat(p)
            st = os.stat(p) if stat.S_ISLNK(lst.st_mode) else lst
        except OSError:
            return set()
        keys: set[tuple] = set()
        if stat.S_ISLNK(lst.st_mode) or not own:
            keys.add(("path", os.path.realpath(p)))
        if st.st_nlink > 1:
            keys.add(("inode", st.st_dev, st.st_ino))
        return keys

    def _linked_notes(self) -> dict[str, set[tuple]]:
        """The notes reachable under another name too (symlinks, hard links),
        by path: found from the index once (one lstat a note), then kept
        current by the events."""
        if self._linked is None or self._linked_at != self.worker.full_runs:
            # Again after each whole pass: it indexed names no event told of.
            self._linked_at = self.worker.full_runs
            linked: dict[str, set[tuple]] = {}
            for (rel,) in self.rt.index.conn.execute("SELECT path FROM documents"):
                if keys := self._keys(rel, own=True):
                    linked[rel] = keys
            self._linked = linked
        return self._linked

    def _note_links(self, rel: str) -> None:
        if self._linked is None:
            return  # found from the index on first use
        if keys := self._keys(rel, own=True):
            self._linked[rel] = keys
        else:
            self._linked.pop(rel, None)

    def _same_files(self, notes: set[str]) -> set[str]:
        """Every other name of the files behind ``notes``: an edit through
        one name (a symlink's target, one of its hard links) changes them
        all, and the event names only that one."""
        linked = self._linked_notes()
        if not linked:
            return set()
        keys = set().union(*(self._keys(rel) for rel in notes)) if notes else set()
        return {rel for rel, ks in linked.items() if ks & keys and rel not in notes}

    def _indexed_under(self, folder: str) -> set[str]:
        prefix = folder.rstrip("/") + "/"
        # '0' sorts right after '/', so [prefix, prefix0) is the folder's subtree.
        rows = self.rt.index.conn.execute(
            "SELECT path FROM documents WHERE path >= ? AND path < ?", (prefix, prefix[:-1] + "0")
        )
        return {r[0] for r in rows}
