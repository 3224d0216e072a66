"""`.canvas` files through the command line (ADR 0195), in subprocesses with
the tiny model: a card's text is found by search under its canvas's path,
the notes a canvas places list it among their backlinks, and a canvas that
is not JSON Canvas is skipped with its reason, never a failed index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import canvas_node, obsidian_canvas, write_note
from helpers import run_groove as _groove

node = canvas_node


BOARD = [
    node("g", "group", -50, -50, 800, 600, label="Orchard ideas"),
    node("t1", "text", 0, 0, text="## Pruning\nCut quinceword branches in \"late\" winter.\n\nSee [[Tools]]."),
    node("f1", "file", 300, 0, file="Garden/Plan.md", subpath="#Beds"),
    node("l1", "link", 0, 900, url="https://example.com/Plan"),
    node("t2", "text", 0, 1000, text="A loose card about marmaladeword."),
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    write_note(v, "Garden/Plan.md", "# Plan\n\n## Beds\n\nThe raised beds.\n")
    write_note(v, "Tools.md", "# Tools\n\nSaws and shears.\n")
    write_note(v, "Boards/Orchard.canvas", obsidian_canvas(BOARD, [{"id": "e", "fromNode": "t1", "toNode": "f1"}]))
    write_note(v, "Boards/Broken.canvas", '{"nodes": [{"id": "a", "type": "text", "x": 0}')
    write_note(v, "Boards/Untitled.canvas", "")
    write_note(v, "Private/Secret.canvas", obsidian_canvas([node("s", "text", 0, 0, text="secretword card")]))
    write_note(v, ".grooveignore", "Private/\n")
    return v


def _search(vault: Path, index: Path, model: Path, words: str) -> list[dict]:
    r = _groove("search", f'"{words}"', "--vault", str(vault), "--index", str(index), "--model", str(model),
                "--json", "--no-daemon")
    assert r.returncode == 0, r.stderr
    return [h for h in json.loads(r.stdout)["results"] if words in h["content"]]


def test_a_cards_text_is_found_under_its_canvas_with_its_group_as_heading(vault, tmp_path, tiny_model_path):
    index = tmp_path / "i.sqlite"
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    [hit] = _search(vault, index, tiny_model_path, "quinceword")
    assert hit["path"] == "Boards/Orchard.canvas"
    assert hit["heading_path"] == ["Orchard ideas", "Pruning"]
    assert hit["content"] == '## Pruning\nCut quinceword branches in "late" winter.\n\nSee [[Tools]].\n'
    # match_spans are UTF-8 offsets into content, as for a note
    raw = hit["content"].encode("utf-8")
    assert [raw[a:b].decode() for a, b in hit["match_spans"]] == ["quinceword"]
    # byte_range/line_range: where the card's text is written in the file (inside its JSON string)
    data = (vault / "Boards/Orchard.canvas").read_bytes()
    written = data[hit["byte_range"][0]:hit["byte_range"][1]].decode()
    assert json.loads('"' + written + '"') == hit["content"].rstrip("\n")
    line = data.decode().split("\n")[hit["line_range"][0] - 1]
    assert hit["line_range"][0] == hit["line_range"][1] and '"id":"t1"' in line
    assert [h["path"] for h in _search(vault, index, tiny_model_path, "marmaladeword")] == ["Boards/Orchard.canvas"]
    # .grooveignore covers canvases as it covers notes
    assert _search(vault, index, tiny_model_path, "secretword") == []


def test_the_notes_a_canvas_places_or_links_list_it_as_a_backlink(vault, tmp_path, tiny_model_path):
    index = tmp_path / "i.sqlite"
    assert _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    for note in ("Garden/Plan.md", "Tools.md"):
        r = _groove("related", note, "--vault", str(vault), "--index", str(index), "--json", "--no-daemon")
        assert r.returncode == 0, r.stderr
        assert [b["path"] for b in json.loads(r.stdout)["backlinks"]] == ["Boards/Orchard.canvas"], r.stdout
    r = _groove("related", "Boards/Orchard.canvas", "--vault", str(vault), "--index", str(index), "--json",
                "--no-daemon")
    out = json.loads(r.stdout)["outgoing"]
    assert {(o["path"], o["heading"]) for o in out} == {("Garden/Plan.md", "Beds"), ("Tools.md", None)}


def test_a_broken_canvas_is_skipped_with_its_reason_and_an_empty_one_is_indexed(vault, tmp_path, tiny_model_path):
    index = tmp_path / "i.sqlite"
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    assert "indexed 4" in r.stdout, r.stdout  # two notes, the board, the empty canvas
    assert "Boards/Broken.canvas" in r.stdout and "not valid JSON (line 1, column" in r.stdout, r.stdout
    st = _groove("status", "--vault", str(vault), "--index", str(index), "--json")
    assert st.returncode == 0, st.stderr
    skipped = {s["path"]: s["reason"] for s in json.loads(st.stdout)["skipped"]}
    assert skipped["Boards/Broken.canvas"].startswith("not valid JSON (line 1, column")
    assert "jsoncanvas.org" in skipped["Boards/Broken.canvas"]
    # fixed, it is indexed on the next run
    write_note(vault, "Boards/Broken.canvas", obsidian_canvas([node("a", "text", 0, 0, text="mendedword")]))
    assert _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    assert [h["path"] for h in _search(vault, index, tiny_model_path, "mendedword")] == ["Boards/Broken.canvas"]
