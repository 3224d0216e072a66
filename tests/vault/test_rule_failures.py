"""Every rule and scan failure is local (issue 50 R3, R4, R7; ADR 0236, 0237):
a bad .grooveignore line or userIgnoreFilters entry is named and skipped,
the other lines apply; an app.json or .grooveignore that cannot be used
keeps the last good rules (in this process and, through the index, in the
next one) and says so; a folder nested hundreds deep is walked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groove.index.rules_now import attach, keep
from groove.storage.db import Index
from groove.vault import folders
from groove.vault.gate import check_readable, safe_path
from groove.vault.scan import ignore_rules, note_paths, other_files, scan_vault
from helpers import write_note


def _vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    write_note(v, "Home.md", "# Home\n")
    write_note(v, "Private/p1.md", "# P1\n")
    write_note(v, "Secret/s1.md", "# S1\n")
    write_note(v, "Drafts/d1.md", "# D1\n")
    return v


@pytest.mark.parametrize("bad", ["!", "Private\\", "[z-a]", "\\", "Docs/[9-0]*.md"])
def test_one_bad_ignore_line_is_named_and_skipped(tmp_path: Path, bad: str) -> None:
    v = _vault(tmp_path)
    (v / ".grooveignore").write_text(f"# mine\nSecret/\n{bad}\nDrafts/\n", encoding="utf-8")
    notes, _ = scan_vault(v)
    assert {n.path for n in notes} == {"Home.md", "Private/p1.md"}  # lines 2 and 4 still apply
    rules = ignore_rules(v)
    assert [f for f, _ in rules.warned] == [".grooveignore"]
    assert rules.warnings[0].startswith(f".grooveignore line 3 ({bad!r}) cannot be read"), rules.warnings
    assert note_paths(v) == ["Home.md", "Private/p1.md"]
    other_files(v)


def test_a_bad_regex_entry_is_named_and_the_others_apply(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    (v / ".obsidian").mkdir()
    (v / ".obsidian" / "app.json").write_text(json.dumps(
        {"userIgnoreFilters": ["/[z-a]/", "/(?<=a+)b/", 7, "Secret/", "/^Drafts//"]}), encoding="utf-8")
    assert {n.path for n in scan_vault(v)[0]} == {"Home.md", "Private/p1.md"}
    said = ignore_rules(v).warnings
    assert len(said) == 3 and "'/[z-a]/'" in said[0] and "'/(?<=a+)b/'" in said[1] and "7" in said[2]


@pytest.mark.parametrize("broken", ['{"userIgnoreFilters": ["Private/"],}', '{"userIgnoreFilters": ["Priv',
                                    '{"userIgnoreFilters": "Private/"}', "\xff\xfe", ""])
def test_a_broken_app_json_keeps_the_last_good_entries(tmp_path: Path, broken: str) -> None:
    v = _vault(tmp_path)
    (v / ".obsidian").mkdir()
    app = v / ".obsidian" / "app.json"
    app.write_text(json.dumps({"userIgnoreFilters": ["Private/"]}), encoding="utf-8")
    assert "Private/p1.md" not in {n.path for n in scan_vault(v)[0]}
    app.write_bytes(broken.encode("latin-1"))
    assert "Private/p1.md" not in {n.path for n in scan_vault(v)[0]}
    said = ignore_rules(v).warnings
    assert len(said) == 1 and "the last good Obsidian's Excluded files (1 entries) still apply" in said[0], said
    full, rel = safe_path(v, "Private/p1.md")
    with pytest.raises(Exception, match="excluded by Obsidian's Excluded files"):
        check_readable(v, full, rel)


def test_never_good_is_said_loudly(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    (v / ".obsidian").mkdir()
    (v / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ["Private/"],}', encoding="utf-8")
    assert "Private/p1.md" in {n.path for n in scan_vault(v)[0]}
    assert "NO earlier good copy is known" in ignore_rules(v).warnings[0]


def test_a_fresh_process_gets_the_last_good_rules_from_the_index(tmp_path: Path) -> None:
    """What one process read good is kept in the index; another process
    (here: the memory of this one forgotten) falls back on it."""
    from groove.vault import rules as vault_rules

    v = _vault(tmp_path)
    (v / ".obsidian").mkdir()
    app = v / ".obsidian" / "app.json"
    app.write_text(json.dumps({"userIgnoreFilters": ["Private/"]}), encoding="utf-8")
    (v / ".grooveignore").write_text("Secret/\n", encoding="utf-8")
    idx = Index(tmp_path / "i.sqlite")
    ignore_rules(v)
    keep(idx, v)
    vault_rules._memory.clear()  # a new process knows nothing
    vault_rules._answers.clear()
    app.write_text('{"userIgnoreFilters": ["Private/"],}', encoding="utf-8")
    (v / ".grooveignore").unlink()
    (v / ".grooveignore").mkdir()  # cannot be read as a file (a mode-0 file would be readable as root)
    assert {n.path for n in scan_vault(v)[0]} == {"Home.md", "Secret/s1.md", "Private/p1.md", "Drafts/d1.md"}
    vault_rules._answers.clear()
    attach(idx, v)
    assert {n.path for n in scan_vault(v)[0]} == {"Home.md", "Drafts/d1.md"}
    said = " ".join(ignore_rules(v).warnings)
    assert ".grooveignore is a folder" in said and "last good .grooveignore still applies" in said
    assert "last good Obsidian's Excluded files" in said
    idx.close()


def test_a_folder_nested_hundreds_deep_is_walked(tmp_path: Path) -> None:
    v = _vault(tmp_path)
    deep = v.joinpath(*["d"] * 600)
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text("# Bottom\n", encoding="utf-8")
    bottom = "d/" * 600 + "bottom.md"
    notes, skipped = scan_vault(v)
    assert bottom in {n.path for n in notes} and skipped == []
    assert bottom in note_paths(v)
    assert [p for p, _ in folders.walk(v, lambda rel: False).dirs][:3] == ["", "Drafts/", "Private/"]


def test_the_walk_order_is_unchanged(tmp_path: Path) -> None:
    """Depth-first, each folder's entries by name, as the recursive walk was."""
    v = tmp_path / "v"
    for rel in ("b.md", "a/z.md", "a/b/c.md", "a/a.md", "c/x.md", "A.md"):
        write_note(v, rel, "# x\n")
    assert [n.path for n in scan_vault(v)[0]] == ["A.md", "a/a.md", "a/b/c.md", "a/z.md", "b.md", "c/x.md"]
