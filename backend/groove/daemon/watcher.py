"""Keeping the index live: a single indexing thread fed by the file watcher
and by `reindex` requests.

* ``IndexWorker`` (``index_worker.py``) runs every index job on one
  thread, one job at a time, merging requests into the next job.
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
from pathlib import Path

from ..runtime import Runtime
from ..vault.daily_notes import DAILY_NOTES_FILE
from ..vault.scan import IGNORE_FILE, OBSIDIAN_APP_FILE, SKIP_DIRS, is_note_name
from .index_worker import IndexWorker
from .startup_gap import CLOCK_SLACK_S, changed_since
from .watch_folders import folders_moved, real_folders, watched_folders

log = logging.getLogger("groove.daemon.watcher")

MAX_WAIT_FACTOR = 10  # a never-quiet vault still gets indexed every 10 × debounce
RESTART_MAX_WAIT_S = 30.0  # a watch that keeps failing is retried at least this often
ROOT_CHECK_S = 1.0  # a running watch checks this often that the vault folder is the one it watches
GONE_POLL_S = 1.0  # a vault folder that is gone is looked for this often


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
