import os
from pathlib import Path

import pytest

from groove.errors import VaultError
from groove.vault.scan import scan_vault


def _touch(p: Path, text: str = "# x\n") -> None:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def test_scan_finds_markdown_and_skips_hidden_and_tool_folders(tmp_path):
    for rel in ["a.md", "sub/b.md", ".obsidian/c.md", ".trash/d.md", ".git/e.md", ".hidden/f.md", "sub/g.txt"]:
        _touch(tmp_path / rel)
    notes, skipped = scan_vault(tmp_path)
    assert [n.path for n in notes] == ["a.md", "sub/b.md"]
    assert skipped == []


def test_grooveignore_uses_gitignore_syntax(tmp_path):
    for rel in ["keep.md", "Archive/old.md", "x.draft.md", "deep/Archive/y.md"]:
        _touch(tmp_path / rel)
    (tmp_path / ".grooveignore").write_text("Archive/\n*.draft.md\n")
    notes, _ = scan_vault(tmp_path)
    assert [n.path for n in notes] == ["keep.md"]


def test_symlinks_pointing_outside_the_vault_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    _touch(outside / "secret.md")
    vault = tmp_path / "vault"
    _touch(vault / "a.md")
    os.symlink(outside, vault / "linked-dir")
    os.symlink(outside / "secret.md", vault / "linked.md")
    notes, skipped = scan_vault(vault)
    assert [n.path for n in notes] == ["a.md"]
    assert {s.path for s in skipped} == {"linked-dir", "linked.md"}
    assert all("outside the vault" in s.reason for s in skipped)


def test_missing_vault_is_a_clear_error(tmp_path):
    with pytest.raises(VaultError, match="vault not found"):
        scan_vault(tmp_path / "nope")


# --- only regular files, names that are not UTF-8 (issue 15: D1, D6, D16) -----------------------

POSIX = os.name == "posix"
needs_posix = pytest.mark.skipif(not POSIX, reason="FIFOs, sockets and byte file names are POSIX things")


@needs_posix
def test_a_fifo_in_the_vault_is_skipped_with_a_reason(tmp_path):
    _touch(tmp_path / "a.md")
    os.mkfifo(tmp_path / "x.md")
    notes, skipped = scan_vault(tmp_path)
    assert [n.path for n in notes] == ["a.md"]
    assert [(s.path, "named pipe" in s.reason) for s in skipped] == [("x.md", True)]


@needs_posix
def test_a_socket_named_like_a_note_is_skipped(tmp_path, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)  # a short relative path: unix socket paths are limited
    s = socket.socket(socket.AF_UNIX)
    s.bind("s.md")
    try:
        _, skipped = scan_vault(tmp_path)
    finally:
        s.close()
    assert [(k.path, "socket" in k.reason) for k in skipped] == [("s.md", True)]


@needs_posix
def test_a_file_swapped_for_a_fifo_after_the_scan_is_not_read(tmp_path):
    from groove.vault.scan import read_regular_file

    os.mkfifo(tmp_path / "x.md")
    data, _, reason = read_regular_file(tmp_path / "x.md", 1000)  # would block forever if opened plainly
    assert data is None and "named pipe" in reason


@needs_posix
def test_a_name_that_is_not_utf8_is_skipped_with_an_escaped_name_and_a_fix(tmp_path):
    _touch(tmp_path / "ok.md")
    sub = os.fsencode(tmp_path) + b"/" + "フォルダ".encode("cp932")
    os.mkdir(sub)
    for raw in (os.fsencode(tmp_path) + b"/" + "テスト.md".encode("cp932"), sub + b"/n.md"):
        with open(raw, "wb") as f:
            f.write(b"# x\n")
    notes, skipped = scan_vault(tmp_path)
    assert [n.path for n in notes] == ["ok.md"]
    reasons = {s.path: s.reason for s in skipped}
    assert set(reasons) == {r"\x83e\x83X\x83g.md", r"\x83t\x83H\x83\x8b\x83_/n.md"}
    for path, reason in reasons.items():
        path.encode("utf-8")  # storable and printable
        assert "not valid UTF-8" in reason and "rename" in reason
    assert "'テスト.md'" in reasons[r"\x83e\x83X\x83g.md"]


@needs_posix
def test_symlink_loops_and_dangling_links_are_reported_not_followed(tmp_path):
    _touch(tmp_path / "a.md")
    os.symlink("self.md", tmp_path / "self.md")
    os.symlink("gone.md", tmp_path / "dangling.md")
    os.symlink(".", tmp_path / "loopdir")
    notes, skipped = scan_vault(tmp_path)
    assert [n.path for n in notes] == ["a.md"]
    reasons = {s.path: s.reason for s in skipped}
    assert "symlink loop" in reasons["self.md"] and "broken symlink" in reasons["dangling.md"]


@needs_posix
def test_control_characters_in_names_are_indexed_as_they_are(tmp_path):
    for name in ("tab\there.md", "new\nline.md", "esc\x1b[31m.md"):
        _touch(tmp_path / name)
    notes, skipped = scan_vault(tmp_path)
    assert sorted(n.path for n in notes) == sorted(["tab\there.md", "new\nline.md", "esc\x1b[31m.md"])
    assert skipped == []
