"""`groove index`, `groove search` and `groove status` with Obsidian's
Excluded files (ADR 0190), in subprocesses with the tiny model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_groove as _groove


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    notes = {
        "Home.md": "# Home\n\nThe garden and the orchard.\n",
        "Templates/Daily.md": "# {{date}}\n\n## Tasks\n\nscaffoldword boilerplate for every day\n",
        "Journal/2026-12-05.md": "# 5 December\n\nPlanted quinceword trees in the orchard.\n",
        "Journal/board.excalidraw.md": "# Board\n\nexcalidrawword drawing data\n",
    }
    for rel, text in notes.items():
        (v / rel).parent.mkdir(parents=True, exist_ok=True)
        (v / rel).write_text(text, encoding="utf-8")
    (v / ".obsidian").mkdir()
    (v / ".obsidian" / "app.json").write_text(json.dumps(
        {"userIgnoreFilters": ["Templates/", r"/\.excalidraw\.md$/", "/bad(/"]}), encoding="utf-8")
    return v


def _search(vault: Path, index: Path, model: Path, words: str) -> list[str]:
    r = _groove("search", f'"{words}"', "--vault", str(vault), "--index", str(index), "--model", str(model),
                "--json", "--no-daemon")
    assert r.returncode == 0, r.stderr
    return [h["path"] for h in json.loads(r.stdout)["results"] if words in h["content"]]


def test_excluded_files_are_not_indexed_and_a_bad_entry_is_a_warning(vault, tmp_path, tiny_model_path):
    index = tmp_path / "i.sqlite"
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    assert "indexed 2" in r.stdout, r.stdout
    assert "warning .obsidian/app.json" in r.stdout and "'/bad(/'" in r.stdout, r.stdout
    assert _search(vault, index, tiny_model_path, "quinceword") == ["Journal/2026-12-05.md"]
    assert _search(vault, index, tiny_model_path, "scaffoldword") == []
    assert _search(vault, index, tiny_model_path, "excalidrawword") == []

    st = _groove("status", "--vault", str(vault), "--index", str(index), "--why", "Templates/Daily.md")
    assert st.returncode == 0, st.stderr
    assert ("Templates/Daily.md is excluded by Obsidian's Excluded files (userIgnoreFilters: Templates/)"
            in st.stdout), st.stdout
    assert "Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters), 2 entries" in st.stdout
    assert "'/bad(/'" in st.stderr  # the warning

    js = json.loads(_groove("status", "--vault", str(vault), "--index", str(index), "--json",
                            "--why", "Home.md").stdout)
    assert js["why"] == {"path": "Home.md", "excluded_by": None}
    assert js["stale_files"] == 0


def test_removing_an_entry_brings_its_notes_back_on_the_next_index(vault, tmp_path, tiny_model_path):
    index = tmp_path / "i.sqlite"
    assert _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    (vault / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ["Journal/"]}', encoding="utf-8")
    st = json.loads(_groove("status", "--vault", str(vault), "--index", str(index), "--json").stdout)
    assert st["stale_files"] == 2  # the template comes in, the journal note goes out
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    assert _search(vault, index, tiny_model_path, "scaffoldword") == ["Templates/Daily.md"]
    assert _search(vault, index, tiny_model_path, "quinceword") == []


def test_a_broken_app_json_never_fails_the_index(vault, tmp_path, tiny_model_path):
    (vault / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ["Templates/"', encoding="utf-8")
    index = tmp_path / "i.sqlite"
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    assert "warning .obsidian/app.json: .obsidian/app.json is not valid JSON" in r.stdout, r.stdout
    assert "indexed 4" in r.stdout
