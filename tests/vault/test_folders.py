"""The kept vault listing (vault/folders.py): the same names as a fresh
os.walk, re-read only where a directory changed."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from groove.vault import folders, scan
from groove.vault.scan import _inside, ignore_rules, note_paths, other_files


def _walked(vault: Path, *, notes: bool) -> list[str]:
    """What ``_files`` answered before the listing was kept: os.walk, one lstat per file."""
    vault = vault.resolve()
    rules = ignore_rules(vault)
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(vault):
        rel_dir = Path(dirpath).relative_to(vault).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if not rules.skips_dir(prefix + d))
        for f in sorted(filenames):
            rel = prefix + f
            if f.lower().endswith(".md") != notes or rules.skips_file(rel):
                continue
            if os.path.islink(os.path.join(dirpath, f)) and not _inside(vault, Path(dirpath) / f):
                continue
            out.append(rel)
    return out


def _age(root: Path, seconds: float = 60) -> None:
    """Every directory's mtime well in the past: old enough to be trusted."""
    t = time.time() - seconds
    for d, _, _ in os.walk(root):
        os.utime(d, (t, t))


def _count_reads(monkeypatch) -> list[str]:
    """The folders read from now on (os.scandir is patched for everyone:
    compare with os.walk only after looking at this)."""
    read: list[str] = []
    real = os.scandir

    def scandir(path):
        read.append(str(path))
        return real(path)

    monkeypatch.setattr(folders.os, "scandir", scandir)
    return read


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    for rel in ["a.md", "b.txt", "Zeta.md", "sub/c.md", "sub/img.png", "sub/deep/d.md", ".hidden.md",
                ".obsidian/app.md", ".trash/old.md", "ignored/x.md", "keep/ignored.md", "keep/y.md",
                "日本語/ノート.md", "node_modules/pkg.md"]:
        p = v / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("# x\n", encoding="utf-8")
    (v / ".grooveignore").write_text("ignored/\nkeep/ignored.md\n", encoding="utf-8")
    outside = tmp_path / "outside.md"
    outside.write_text("# out\n", encoding="utf-8")
    (v / "link-out.md").symlink_to(outside)
    (v / "link-in.md").symlink_to(v / "a.md")
    (v / "dangling.md").symlink_to(v / "nowhere.md")
    (v / "linked-dir").symlink_to(v / "sub", target_is_directory=True)
    return v


def test_the_kept_listing_gives_what_os_walk_gave(vault: Path) -> None:
    for _ in range(2):  # read, then served from what is kept
        assert note_paths(vault) == _walked(vault, notes=True)
        assert other_files(vault) == _walked(vault, notes=False)
    assert "link-out.md" not in note_paths(vault) and "link-in.md" in note_paths(vault)
    assert not any(p.startswith("linked-dir/") for p in note_paths(vault))  # a symlinked folder is not entered


def test_an_unchanged_vault_is_not_read_again(vault: Path, monkeypatch) -> None:
    _age(vault)
    note_paths(vault)
    read = _count_reads(monkeypatch)
    got = note_paths(vault)
    assert read == []
    assert got == _walked(vault, notes=True)


def test_a_note_added_deep_down_is_listed_and_only_its_folder_is_read(vault: Path, monkeypatch) -> None:
    _age(vault)
    note_paths(vault)
    read = _count_reads(monkeypatch)
    (vault / "sub" / "deep" / "new.md").write_text("# new\n", encoding="utf-8")
    got = note_paths(vault)
    assert read == [str(vault.resolve() / "sub" / "deep")]
    assert "sub/deep/new.md" in got and got == _walked(vault, notes=True)


def test_removed_renamed_and_new_folders_show_at_once(vault: Path) -> None:
    _age(vault)
    note_paths(vault)
    (vault / "sub" / "c.md").rename(vault / "sub" / "c2.md")
    (vault / "Zeta.md").unlink()
    (vault / "fresh" / "inner").mkdir(parents=True)
    (vault / "fresh" / "inner" / "e.md").write_text("# e\n", encoding="utf-8")
    got = note_paths(vault)
    assert got == _walked(vault, notes=True)
    assert "sub/c2.md" in got and "sub/c.md" not in got and "Zeta.md" not in got and "fresh/inner/e.md" in got
    for p in sorted((vault / "sub" / "deep").iterdir()):
        p.unlink()
    (vault / "sub" / "deep").rmdir()
    assert note_paths(vault) == _walked(vault, notes=True)


def test_a_change_in_the_ignore_file_applies_to_the_next_answer(vault: Path) -> None:
    _age(vault)
    assert "keep/ignored.md" not in note_paths(vault)
    (vault / ".grooveignore").write_text("ignored/\n", encoding="utf-8")
    got = note_paths(vault)
    assert "keep/ignored.md" in got and got == _walked(vault, notes=True)
    (vault / ".grooveignore").write_text("ignored/\nsub/\n", encoding="utf-8")
    got = note_paths(vault)
    assert not any(p.startswith("sub/") for p in got) and got == _walked(vault, notes=True)


def test_a_change_seen_by_one_kind_of_listing_reaches_the_other(vault: Path) -> None:
    """Notes and attachments share the kept directories: a change the
    attachments' walk read first must still reach the notes' answer."""
    _age(vault)
    note_paths(vault)
    other_files(vault)
    (vault / "sub" / "late.md").write_text("# late\n", encoding="utf-8")
    other_files(vault)  # reads sub/ again: the change is now in the kept listing
    assert "sub/late.md" in note_paths(vault)


def test_a_folder_changed_just_before_it_was_read_is_read_again(vault: Path, monkeypatch) -> None:
    """A name added in the same clock tick as a read leaves the folder's
    mtime as it was: a folder that recent is not trusted."""
    _age(vault)
    os.utime(vault / "sub", None)  # changed just now
    note_paths(vault)
    read = _count_reads(monkeypatch)
    note_paths(vault)
    assert read == [str(vault.resolve() / "sub")]


def test_an_unreadable_folder_is_left_out_as_os_walk_leaves_it(vault: Path, monkeypatch) -> None:
    # chmod 0 does not stop root: the refusal comes from scandir itself, for
    # the kept listing and os.walk alike.
    real = os.scandir
    refused = str(vault.resolve() / "sub")

    def scandir(path):
        if str(path) == refused:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(folders.os, "scandir", scandir)
    got = note_paths(vault)
    assert got == _walked(vault, notes=True)
    assert not any(p.startswith("sub/") for p in got) and "a.md" in got


def test_many_vaults_keep_only_the_latest_listings(tmp_path: Path) -> None:
    for i in range(folders.MAX_VAULTS + 3):
        v = tmp_path / f"v{i}"
        v.mkdir()
        (v / "n.md").write_text("# n\n", encoding="utf-8")
        assert note_paths(v) == ["n.md"]
    assert len(folders._vaults) <= folders.MAX_VAULTS
    assert len(scan._answers) <= 2 * folders.MAX_VAULTS
