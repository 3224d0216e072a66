"""The daemon does not go blind when its vault folder is replaced (issue 35
F3, ADR 0152): `rm -rf V` is reported in status (`watching: false` and
why), and when the folder is back — made again, or after `mv V V.old;
mkdir V` — it is watched and reindexed: new notes are found, notes that
went with the old folder leave search, and edits in V.old are not V's."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from .conftest import poll

pytestmark = pytest.mark.skipif(os.name != "posix", reason="inotify/FSEvents semantics of a replaced folder")


def _paths(c, q: str) -> set[str]:
    return {h["path"] for h in c.call("search", {"query": q, "limit": 50})["results"]}


def _old(paths: set[str]) -> set[str]:
    """The fixture's notes (projects/, journal/) among ``paths``."""
    return {p for p in paths if p.startswith(("projects/", "journal/"))}


def _not_watching(c) -> dict | None:
    st = c.index_status()
    return None if st["watching"] else st


def _write(p: Path, text: str) -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def test_a_deleted_vault_folder_is_reported_and_picked_up_again_when_it_returns(spawn) -> None:
    d = spawn(n=6)
    c = d.client()
    d.wait_idle(c)
    assert _paths(c, "coffee")
    toml = (d.vault / "groove.toml").read_text(encoding="utf-8")
    shutil.rmtree(d.vault)
    st = poll(lambda: _not_watching(c), 15, "watching: false")
    assert "is gone" in st["watch_problem"] and str(d.vault) in st["watch_problem"]
    _write(d.vault / "groove.toml", toml)
    _write(d.vault / "g" / "r1.md", "# Return\n\nThe zanzibarite returns after the folder was deleted.\n")
    poll(lambda: _paths(c, "zanzibarite") == {"g/r1.md"}, 30, "the note in the new folder to be found")
    st = c.index_status()
    assert st["watching"] is True and st["watch_problem"] is None
    assert _old(_paths(c, "coffee")) == set()  # the deleted notes left search
    # and the new folder is watched: a later note is picked up by the watcher
    _write(d.vault / "g" / "r2.md", "# Later\n\nA quixotrope written after the return.\n")
    poll(lambda: "g/r2.md" in _paths(c, "quixotrope"), 30, "a later note to be found")
    c.close()


def test_a_vault_moved_away_and_made_again_is_watched_anew(spawn) -> None:
    d = spawn(n=6)
    c = d.client()
    d.wait_idle(c)
    old = d.vault.with_name(d.vault.name + ".old")
    os.rename(d.vault, old)
    d.vault.mkdir()
    shutil.copy(old / "groove.toml", d.vault / "groove.toml")
    _write(d.vault / "fresh.md", "# Fresh\n\nA brand new vellichor note.\n")
    poll(lambda: _paths(c, "vellichor") == {"fresh.md"}, 30, "the new folder's note to be found")
    poll(lambda: not _old(_paths(c, "coffee")), 30, "the moved-away notes to leave search")
    # an edit in the old folder is not an edit of the vault
    _write(old / "projects" / "ghost.md", "# Ghost\n\nA phantasmagoric note in the old folder.\n")
    _write(d.vault / "after.md", "# After\n\nAn ombrophile note.\n")
    poll(lambda: "after.md" in _paths(c, "ombrophile"), 30, "an edit of the new folder to be found")
    assert not _old(_paths(c, "phantasmagoric")) and "after.md" in _paths(c, "phantasmagoric")
    st = c.index_status()
    assert st["watching"] is True and st["watch_problem"] is None and st["last_error"] is None
    c.close()
