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
