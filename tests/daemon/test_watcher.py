"""The watcher keeps a running daemon's index live: edits, editors' atomic
saves, mass changes (one batch), folder moves and deletes. Every wait is a
poll with a timeout; the vault's debounce is 150 ms (conftest.make_vault)."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from groove.daemon import protocol

from .conftest import new_daemon

CHANGE_TIMEOUT = 30.0  # generous for a loaded CI box; typical is < 1 s


@pytest.fixture(scope="module")
def shared(module_home, tiny_model):
    d = new_daemon(module_home, tiny_model, n=20)
    d.start()
    yield d
    d.stop()


@pytest.fixture
def daemon(shared, groove_home):
    return shared


@pytest.fixture
def sub(daemon):
    c = daemon.client("watch-test")
    daemon.wait_idle(c)
    c.subscribe("index.changed", "index.progress")
    yield c
    c.close()


def changed_until(c, want: set[str], *, deleted: bool = False, timeout: float = CHANGE_TIMEOUT) -> list[dict]:
    """index.changed notifications until every path in ``want`` was reported."""
    seen: set[str] = set()
    got: list[dict] = []
    deadline = time.monotonic() + timeout
    while not want <= seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"index.changed never reported {sorted(want - seen)[:5]} (got {got})")
        ev = c.wait_notification("index.changed", left)
        protocol.validator("notification", "index.changed").validate(ev)
        got.append(ev)
        seen |= set(ev["deleted" if deleted else "paths"])
    return got


def paths_for(c, words: str) -> list[str]:
    """Notes whose returned text has the phrase (the vector leg also returns
    unrelated notes: with random tiny-model vectors, only the text tells)."""
    hits = c.search(f'"{words}"', limit=20)["results"]
    return [h["path"] for h in hits if words in h["content"]]


def test_edited_note_is_announced_and_searchable(daemon, sub):
    note = daemon.vault / "journal" / "note001.md"
    note.write_text("# Zebra crossing\n\nzyxwvut quokka migration notes\n", encoding="utf-8")
    changed_until(sub, {"journal/note001.md"})
    hits = sub.search('"quokka migration"')["results"]
    assert hits and hits[0]["path"] == "journal/note001.md"
    assert "quokka" in hits[0]["content"]


def test_atomic_save_via_temp_file_and_rename_indexes_only_the_note(daemon, sub):
    note = daemon.vault / "projects" / "note003.md"
    tmp = note.with_name(".note003.md.tmp-4242")
    tmp.write_text("# Atomic\n\nplatypus atomicity wombat\n", encoding="utf-8")
    os.replace(tmp, note)
    evs = changed_until(sub, {"projects/note003.md"})
    reported = {p for e in evs for p in e["paths"] + e["deleted"]}
    assert reported == {"projects/note003.md"}, "the temp file is not a note"
    assert paths_for(sub, "platypus atomicity")[:1] == ["projects/note003.md"]
    # An editor that writes "name.md~" / "name.md.swp" and renames over the note.
    tmp2 = note.with_name("note003.md~")
    tmp2.write_text("# Atomic\n\nsecond save capybara\n", encoding="utf-8")
    os.replace(tmp2, note)
    changed_until(sub, {"projects/note003.md"})
    assert paths_for(sub, "second save capybara")[:1] == ["projects/note003.md"]


def test_two_hundred_files_written_at_once_are_one_batch(daemon, sub):
    folder = daemon.vault / "mass"
    folder.mkdir()
    want = set()
    for i in range(200):
        (folder / f"m{i:03d}.md").write_text(f"# Mass {i}\n\nmass change number {i} checkout\n", encoding="utf-8")
        want.add(f"mass/m{i:03d}.md")
    evs = changed_until(sub, want, timeout=90)
    assert len(evs) == 1, f"expected one batch, got {len(evs)}: {[len(e['paths']) for e in evs]}"
    assert set(evs[0]["paths"]) == want
    st = sub.index_status()
    assert st["documents"] == evs[0]["documents"] and st["documents"] >= 220


def test_deleted_note_disappears_from_results(daemon, sub):
    note = daemon.vault / "journal" / "note004.md"
    note.write_text("# Doomed\n\nnarwhal ephemeral\n", encoding="utf-8")
    changed_until(sub, {"journal/note004.md"})
    assert paths_for(sub, "narwhal ephemeral")
    note.unlink()
    changed_until(sub, {"journal/note004.md"}, deleted=True)
    assert "journal/note004.md" not in paths_for(sub, "narwhal ephemeral")


def test_folder_move_and_folder_delete_follow_the_notes(daemon, sub):
    src = daemon.vault / "trip"
    src.mkdir()
    for i in range(5):
        (src / f"t{i}.md").write_text(f"# Trip {i}\n\naxolotl expedition {i}\n", encoding="utf-8")
    changed_until(sub, {f"trip/t{i}.md" for i in range(5)})
    (daemon.vault / "archive").mkdir()
    shutil.move(str(src), str(daemon.vault / "archive" / "trip"))
    moved = {f"archive/trip/t{i}.md" for i in range(5)}
    evs = changed_until(sub, moved)
    assert {p for e in evs for p in e["deleted"]} >= {f"trip/t{i}.md" for i in range(5)}
    assert set(paths_for(sub, "axolotl expedition")) == moved
    shutil.rmtree(daemon.vault / "archive")
    changed_until(sub, moved, deleted=True)
    assert paths_for(sub, "axolotl expedition") == []


def test_hidden_and_non_note_files_trigger_nothing(daemon, sub):
    (daemon.vault / ".obsidian").mkdir(exist_ok=True)
    (daemon.vault / ".obsidian" / "workspace.json").write_text("{}", encoding="utf-8")
    (daemon.vault / "image.png").write_bytes(b"\x89PNG")
    marker = daemon.vault / "marker.md"
    marker.write_text("# Marker\n\nsentinel okapi\n", encoding="utf-8")
    evs = changed_until(sub, {"marker.md"})
    assert {p for e in evs for p in e["paths"] + e["deleted"]} == {"marker.md"}


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and byte file names are POSIX things")
def test_hostile_files_appearing_while_serving_are_skipped_with_reasons_and_the_daemon_stays_up(daemon, sub):
    v = daemon.vault / "hostile"
    v.mkdir()
    # watchfiles itself fails on this name: the watcher must watch again, not stop.
    fd = os.open(os.fsencode(v) + b"/" + "テスト.md".encode("cp932"), os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(fd, b"# sjis\n")
    os.close(fd)
    os.mkfifo(v / "pipe.md")
    (v / "binary.md").write_bytes(b"\x89PNG\x00\x00\x00")
    (v / "deep.md").write_text("deepquoteword opens it\n\n" + ">" * 500 + " x", encoding="utf-8")
    bomb = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    (v / "bomb.md").write_text("---\n" + "\n".join(bomb) + "\n---\nbombbodyword\n", encoding="utf-8")
    time.sleep(0.5)
    (v / "after.md").write_text("# After\n\nafterwordz arrives last\n", encoding="utf-8")
    deadline = time.monotonic() + CHANGE_TIMEOUT
    while True:
        st = sub.index_status()
        reasons = {s["path"]: s["reason"] for s in st["skipped"]}
        found = {p: paths_for(sub, w) for p, w in
                 (("hostile/after.md", "afterwordz"), ("hostile/deep.md", "deepquoteword"),
                  ("hostile/bomb.md", "bombbodyword"))}
        if (all(p in hits for p, hits in found.items()) and {"hostile/pipe.md", "hostile/binary.md",
                                                             r"hostile/\x83e\x83X\x83g.md"} <= set(reasons)):
            break
        assert time.monotonic() < deadline, (reasons, found, st)
        time.sleep(0.1)
    assert "named pipe" in reasons["hostile/pipe.md"] and "binary" in reasons["hostile/binary.md"]
    assert "not valid UTF-8" in reasons[r"hostile/\x83e\x83X\x83g.md"]
    assert daemon.proc.poll() is None and st["watching"] is True and st["last_error"] is None
    shutil.rmtree(v)  # later tests of the module see an ordinary vault again
    daemon.wait_idle(sub)
