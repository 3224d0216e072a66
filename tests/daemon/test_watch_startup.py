"""A note made while the daemon starts is indexed: the startup pass may list
its folder before the note exists, and the native watch may be registered
only after the note was written, so the note has no event. The watcher
passes over the vault again once its watch is up whenever a pass began
before then (a CI run lost such a note for good)."""

from __future__ import annotations

from pathlib import Path

from groove import operations
from groove.daemon.watcher import IndexWorker, VaultWatcher
from helpers import make_runtime, write_note

from .conftest import poll


def _titles(rt) -> set[str]:
    return {n["path"] for n in operations.call(rt, "list_notes", {})["notes"]}


def test_a_note_made_between_the_startup_pass_and_the_watch_is_indexed(tmp_path: Path, tiny_embedder) -> None:
    vault = tmp_path / "vault"
    write_note(vault, "one.md", "# One\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    worker = IndexWorker(rt)
    worker.start()
    watcher = VaultWatcher(rt, worker, debounce_ms=100)
    try:
        worker.submit_full().result(timeout=60)  # the startup pass, done before the watch exists
        write_note(vault, "late.md", "# Late\n\nmade before the watch began\n")  # no event will name it
        watcher.start()
        poll(lambda: "late.md" in _titles(rt), 30, "the note made before the watch to be indexed")
    finally:
        watcher.stop()
        worker.stop()
        rt.close()


def test_a_watch_with_no_pass_before_it_starts_none(tmp_path: Path, tiny_embedder) -> None:
    vault = tmp_path / "vault"
    write_note(vault, "one.md", "# One\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    worker = IndexWorker(rt)
    worker.start()
    watcher = VaultWatcher(rt, worker, debounce_ms=100)
    try:
        watcher.start()
        poll(lambda: watcher.running, 30, "the watch to start")
        write_note(vault, "two.md", "# Two\n")  # an event: indexed by path, not by a whole pass
        poll(lambda: "two.md" in _titles(rt), 30, "the new note")
        assert worker.full_started == 0
    finally:
        watcher.stop()
        worker.stop()
        rt.close()
