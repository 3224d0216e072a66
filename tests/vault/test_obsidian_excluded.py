"""Obsidian's Excluded files (``.obsidian/app.json`` userIgnoreFilters) are
part of the vault's one rule (ADR 0150, 0190): the walk, the attachment and
note listings of the link resolver, and the read gate all leave them out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groove.errors import NoteNotFound
from groove.vault.gate import check_readable, safe_path
from groove.vault.scan import ignore_rules, note_paths, other_files, scan_vault

NOTES = ["Home.md", "Templates/Daily.md", "Templates/Sub/Weekly.md", "Templates 2/Keep.md",
         "Drawings/Plan.excalidraw.md", "Drawings/Plan.md", "Archive.md", "Archive/old.md"]


def _vault(tmp_path: Path, filters: object, raw: str | None = None) -> Path:
    v = tmp_path / "v"
    for rel in NOTES:
        (v / rel).parent.mkdir(parents=True, exist_ok=True)
        (v / rel).write_text(f"# {rel}\n", encoding="utf-8")
    (v / "Templates" / "logo.png").write_bytes(b"\x89PNG")
    (v / ".obsidian").mkdir()
    (v / ".obsidian" / "app.json").write_text(
        raw if raw is not None else json.dumps({"alwaysUpdateLinks": True, "userIgnoreFilters": filters}),
        encoding="utf-8")
    return v


def _walked(v: Path) -> list[str]:
    return sorted(f.path for f in scan_vault(v)[0])


def _refusal(v: Path, rel: str) -> str:
    full, rel = safe_path(v, rel)
    with pytest.raises(NoteNotFound) as e:
        check_readable(v, full, rel)
    return str(e.value)


def test_a_folder_entry_leaves_the_folder_out_of_the_walk_the_listings_and_the_gate(tmp_path):
    v = _vault(tmp_path, ["Templates/"])
    assert _walked(v) == sorted(set(NOTES) - {"Templates/Daily.md", "Templates/Sub/Weekly.md"})
    assert "Templates/Daily.md" not in note_paths(v)
    assert "Templates/logo.png" not in other_files(v)
    msg = _refusal(v, "Templates/Sub/Weekly.md")
    assert "excluded by Obsidian's Excluded files (userIgnoreFilters: Templates/)" in msg
    full, rel = safe_path(v, "Templates 2/Keep.md")
    check_readable(v, full, rel)  # a prefix with its slash does not reach 'Templates 2/'


def test_a_plain_entry_is_a_path_prefix_as_in_obsidian(tmp_path):
    # Obsidian tests `path.startsWith(entry)`: 'Archive' covers the note, the folder and 'Archive 2' alike.
    v = _vault(tmp_path, ["Archive", "Drawings/Plan.md"])
    assert _walked(v) == ["Drawings/Plan.excalidraw.md", "Home.md", "Templates 2/Keep.md",
                          "Templates/Daily.md", "Templates/Sub/Weekly.md"]
    assert "userIgnoreFilters: Drawings/Plan.md" in _refusal(v, "Drawings/Plan.md")


def test_a_regex_entry_is_searched_in_the_vault_relative_path(tmp_path):
    v = _vault(tmp_path, [r"/\.excalidraw\.md$/", "/^Templates/Sub/"])
    assert _walked(v) == sorted(set(NOTES) - {"Drawings/Plan.excalidraw.md", "Templates/Sub/Weekly.md"})
    assert r"(userIgnoreFilters: /\.excalidraw\.md$/)" in _refusal(v, "Drawings/Plan.excalidraw.md")
    rules = ignore_rules(v)
    assert rules.warnings == ()
    assert rules.rule_for("Templates/Sub/Weekly.md") == "excluded by Obsidian's Excluded files " \
                                                        "(userIgnoreFilters: /^Templates/Sub/)"


def test_a_javascript_named_group_is_read_and_a_regex_python_cannot_compile_is_a_warning(tmp_path):
    v = _vault(tmp_path, ["/(?<kind>Daily|Weekly)\\.md$/", "/Archive[/", 7, "Home.md"])
    assert _walked(v) == ["Archive.md", "Archive/old.md", "Drawings/Plan.excalidraw.md", "Drawings/Plan.md",
                          "Templates 2/Keep.md"]
    warnings = ignore_rules(v).warnings
    assert any("'/Archive[/'" in w and "not applied" in w for w in warnings), warnings
    assert any("entry 7 is not a string" in w for w in warnings), warnings


@pytest.mark.parametrize("raw", ['{"userIgnoreFilters": ["Templates/"', "\xff\xfe not json", "[1, 2]",
                                 '{"userIgnoreFilters": "Templates/"}'])
def test_a_malformed_app_json_is_a_warning_and_the_walk_goes_on(tmp_path, raw):
    v = _vault(tmp_path, None, raw=raw)
    assert _walked(v) == sorted(NOTES)
    rules = ignore_rules(v)
    if raw == "[1, 2]":  # valid JSON without the setting: nothing to apply, nothing to say
        assert rules.warnings == ()
    else:
        assert rules.warnings and ".obsidian/app.json" in rules.warnings[0], rules.warnings


def test_the_listings_follow_an_edit_of_app_json(tmp_path):
    v = _vault(tmp_path, ["Templates/"])
    assert "Templates/Daily.md" not in note_paths(v)
    (v / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Archive/"]}) + "\n",
                                              encoding="utf-8")
    paths = note_paths(v)
    assert "Templates/Daily.md" in paths and "Archive/old.md" not in paths


def test_grooveignore_keeps_its_own_reason_when_both_rules_match(tmp_path):
    v = _vault(tmp_path, ["Templates/"])
    (v / ".grooveignore").write_text("Templates/\n", encoding="utf-8")
    assert ".grooveignore" in ignore_rules(v).rule_for("Templates/Daily.md")
    assert "left out of the index by the vault's rules" in _refusal(v, "Templates/Daily.md")
    sources = [s["rule"] for s in ignore_rules(v).sources()]
    assert sources == ["hidden and tool folders", ".grooveignore",
                       "Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters)"]
