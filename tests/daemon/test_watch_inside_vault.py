"""The watcher watches only the vault (issue 50 R10, ADR 0238): a symlink to
a big tree outside it (``ext -> /usr``) or to the vault itself (``loop ->
.``) adds no native watches, and changes out there start no index job; a
folder made while watching is watched from then on. Watches are counted
from the kernel's own list (/proc/self/fdinfo of the inotify descriptors)."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from groove import operations
from groove.daemon.index_worker import IndexWorker
from groove.daemon.watcher import VaultWatcher
from helpers import make_runtime, write_note

from .conftest import poll

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts inotify watches in /proc")


def inotify_watches() -> int:
    """Watches held by this process's inotify descriptors."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") != "anon_inode:inotify":
                continue
            with open(f"/proc/self/fdinfo/{fd}", encoding="ascii") as f:
                n += sum(line.startswith("inotify wd:") for line in f)
        except OSError:
            continue
    return n


def test_symlinks_out_of_the_vault_add_no_watches_and_no_jobs(tmp_path: Path, tiny_embedder) -> None:
    outside = tmp_path / "outside"
    for i in range(300):
        (outside / f"pkg{i}" / "lib").mkdir(parents=True)
    vault = tmp_path / "vault"
    write_note(vault, "a/one.md", "# One\n")
    write_note(vault, "b/two.md", "# Two\n")
    (vault / ".git" / "objects").mkdir(parents=True)
    (vault / "ext").symlink_to(outside, target_is_directory=True)
    (vault / "loop").symlink_to(".", target_is_directory=True)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    worker = IndexWorker(rt)
    worker.start()
    watcher = VaultWatcher(rt, worker, debounce_ms=100)
    base = inotify_watches()
    watcher.start()
    try:
        poll(lambda: watcher.running and inotify_watches() > base, 30, "the watch to start")
        time.sleep(0.5)
        # The vault, a/ and b/: not .git, not the 600 folders out there, not the loop.
        assert inotify_watches() - base == 3

        for i in range(20):
            (outside / f"pkg{i}" / "lib" / f"n{i}.md").write_text("# Outside\n", encoding="utf-8")
        time.sleep(1.5)
        assert (worker.jobs_run, watcher.batches) == (0, 0)
        (vault / "ext2").symlink_to(outside, target_is_directory=True)  # a link made while watching
        time.sleep(1.0)
        for i in range(20, 40):
            (outside / f"pkg{i}" / "lib" / f"n{i}.md").write_text("# Outside\n", encoding="utf-8")
        time.sleep(1.5)
        assert (worker.jobs_run, watcher.batches) == (0, 0) and inotify_watches() - base == 3

        # A change inside is seen (the test can fail): a note in a new folder too.
        write_note(vault, "c/three.md", "# Three\n\nwombatword inside\n")
        poll(lambda: operations.call(rt, "list_notes", {"folder": "c"})["total"] == 1, 30, "the new note")
        poll(lambda: inotify_watches() - base == 4, 30, "the new folder to be watched")
        (vault / "c" / "four.md").write_text("# Four\n", encoding="utf-8")
        poll(lambda: operations.call(rt, "list_notes", {"folder": "c"})["total"] == 2, 30, "a note in the new folder")
    finally:
        watcher.stop()
        worker.stop()
        rt.close()
