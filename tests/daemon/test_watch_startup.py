"""A note made while the daemon starts is indexed: the startup pass may list
its folder before the note exists, and the native watch may be registered
only after the note was written, so the note has no event (a CI run lost
such a note for good). Once its watch is up, the watcher hands the worker
the notes changed since that pass began, and indexed notes gone from disk;
when there are none, no job runs (no second "indexing" in the panels)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from groove import operations
from groove.daemon.index_worker import IndexWorker
from groove.daemon.startup_gap import CLOCK_SLACK_S, changed_since
from groove.daemon.watcher import VaultWatcher
from helpers import make_runtime, write_note

from .conftest import poll


def _paths(rt) -> set[str]:
    return {n["path"] for n in operations.call(rt, "list_notes", {})["notes"]}


class _Started:
    def __init__(self, tmp_path: Path, embedder) -> None:
        self.vault = tmp_path / "vault"
        write_note(self.vault, "one.md", "# One\n")
        write_note(self.vault, "old.md", "# Old\n\nto be deleted\n")
        self.rt = make_runtime(self.vault, embedder, tmp_path)
        self.worker = IndexWorker(self.rt)
        self.worker.start()
        self.watcher = VaultWatcher(self.rt, self.worker, debounce_ms=100)

    def close(self) -> None:
        self.watcher.stop()
        self.worker.stop()
        self.rt.close()


def test_notes_changed_between_the_startup_pass_and_the_watch_are_indexed(tmp_path: Path, tiny_embedder) -> None:
    s = _Started(tmp_path, tiny_embedder)
    try:
        s.worker.submit_full().result(timeout=60)  # the startup pass, done before the watch exists
        assert _paths(s.rt) == {"one.md", "old.md"}
        write_note(s.vault, "late.md", "# Late\n\nmade before the watch began\n")  # no event will name it
        (s.vault / "old.md").unlink()
        s.watcher.start()
        poll(lambda: _paths(s.rt) == {"one.md", "late.md"}, 30, "the new note indexed and the deleted one gone")
        assert s.worker.full_runs == 1  # by path, not a second whole pass
    finally:
        s.close()


def test_with_nothing_changed_no_job_follows_the_startup_pass(tmp_path: Path, tiny_embedder) -> None:
    s = _Started(tmp_path, tiny_embedder)
    try:
        # The notes were written just now, within the clock slack of the pass:
        # they are read again and found to be what the index holds.
        s.worker.submit_full().result(timeout=60)
        began = s.worker.first_full_at
        assert began is not None and changed_since(s.vault, s.rt.index, began - CLOCK_SLACK_S) == set()
        s.watcher.start()
        assert s.watcher.up.wait(30)
        time.sleep(1.0)  # the catch-up's turn
        assert s.worker.jobs_run == 1
    finally:
        s.close()


def test_an_edit_keeping_size_and_mtime_is_found_by_its_bytes(tmp_path: Path, tiny_embedder) -> None:
    s = _Started(tmp_path, tiny_embedder)
    try:
        s.worker.submit_full().result(timeout=60)
        began = s.worker.first_full_at
        note = s.vault / "one.md"
        st = note.stat()
        note.write_text("# Two\n", encoding="utf-8")  # same length
        os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))
        assert changed_since(s.vault, s.rt.index, began - CLOCK_SLACK_S) == {"one.md"}
    finally:
        s.close()


def test_a_watch_with_no_pass_before_it_starts_none(tmp_path: Path, tiny_embedder) -> None:
    s = _Started(tmp_path, tiny_embedder)
    try:
        s.watcher.start()
        assert s.watcher.up.wait(30)  # registered: from here on every change has an event
        write_note(s.vault, "two.md", "# Two\n")  # an event: indexed by path, not by a whole pass
        poll(lambda: "two.md" in _paths(s.rt), 30, "the new note")
        assert s.worker.first_full_at is None and s.worker.full_runs == 0
    finally:
        s.close()
