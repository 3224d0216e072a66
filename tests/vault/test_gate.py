"""The read gate and the indexer apply one set of rules: every Markdown file
the walk takes is readable, every one it leaves out is refused."""

from __future__ import annotations

import os
import unicodedata
from pathlib import Path

import pytest

from groove.errors import NoteNotFound
from groove.vault.gate import check_readable, on_disk_spelling, safe_path
from groove.vault.scan import scan_vault

FILES = [
    "a.md", "sub/b.md", "sub/deep/c.md", ".obsidian/d.md", ".trash/e.md", ".git/f.md", "node_modules/g.md",
    ".hidden/h.md", "sub/.dot.md", "Archive/i.md", "Archive/keep/j.md", "drafts/k.draft.md", "drafts/l.md",
    "x/private/m.md", "Private/n.md", "日記/o.md",
]
IGNORE = "Archive/\n!Archive/keep/\n*.draft.md\nprivate/\n日記/\n"


def test_the_gate_refuses_exactly_what_the_indexer_leaves_out(tmp_path: Path) -> None:
    for rel in FILES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("# x\n", encoding="utf-8")
    (tmp_path / ".grooveignore").write_text(IGNORE, encoding="utf-8")
    indexed = {n.path for n in scan_vault(tmp_path)[0]}
    assert "a.md" in indexed and "Archive/i.md" not in indexed  # the fixture means what it says
    readable = set()
    for dirpath, _dirs, files in os.walk(tmp_path):
        for f in files:
            rel = (Path(dirpath) / f).relative_to(tmp_path).as_posix()
            if not rel.endswith(".md"):
                continue
            full, r = safe_path(tmp_path, rel)
            try:
                check_readable(tmp_path, full, r)
                readable.add(rel)
            except NoteNotFound:
                pass
    assert readable == indexed


def test_on_disk_spelling_finds_the_name_the_folder_holds(tmp_path: Path) -> None:
    (tmp_path / "Private").mkdir()
    nfc = unicodedata.normalize("NFC", "Café.md")
    (tmp_path / "Private" / nfc).write_text("x", encoding="utf-8")
    assert on_disk_spelling(tmp_path, "PRIVATE/café.md") == f"Private/{nfc}"
    assert on_disk_spelling(tmp_path, "private/" + unicodedata.normalize("NFD", "Café.md")) == f"Private/{nfc}"
    assert on_disk_spelling(tmp_path, "nowhere/x.md") == "nowhere/x.md"


@pytest.mark.parametrize("name", ["Private/n.md", "pub/n.md"])
def test_a_symlink_into_an_excluded_folder_is_refused(tmp_path: Path, name: str) -> None:
    (tmp_path / "Private").mkdir()
    (tmp_path / "Private" / "n.md").write_text("secret", encoding="utf-8")
    (tmp_path / "pub").symlink_to(tmp_path / "Private", target_is_directory=True)
    (tmp_path / ".grooveignore").write_text("Private/\n", encoding="utf-8")
    full, rel = safe_path(tmp_path, name)
    with pytest.raises(NoteNotFound, match="left out of the index"):
        check_readable(tmp_path, full, rel)


def test_a_grooveignore_line_pathspec_cannot_read_is_skipped_and_the_others_apply(tmp_path: Path) -> None:
    """Issue 50 R4 (ADR 0236): one bad line no longer fails every read; the
    lines around it still guard the gate."""
    (tmp_path / "a.md").write_text("# a\n", encoding="utf-8")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "b.md").write_text("# b\n", encoding="utf-8")
    (tmp_path / ".grooveignore").write_text("private/\n!\n", encoding="utf-8")
    full, rel = safe_path(tmp_path, "a.md")
    check_readable(tmp_path, full, rel)
    full, rel = safe_path(tmp_path, "private/b.md")
    with pytest.raises(NoteNotFound, match="left out of the index"):
        check_readable(tmp_path, full, rel)
