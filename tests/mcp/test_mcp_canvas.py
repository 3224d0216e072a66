"""An MCP client reads canvases as notes (ADR 0195): search names the
canvas, get_document returns its cards' text (by lines or by group), and a
canvas that is not JSON Canvas is refused with the reason the index gave."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import canvas_node, obsidian_canvas, write_note
from mcp_support import SyncSession, groove_index, inproc_session, text_of


@pytest.fixture(scope="module")
def s(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict):
    vault = tmp_path_factory.mktemp("canvas-vault")
    write_note(vault, "Recipes/Jam.md", "# Jam\n\n## Set point\n\nBoil to 105 C.\n")
    write_note(vault, "Kitchen.canvas", obsidian_canvas([
        canvas_node("g", "group", 0, 0, 700, 500, label="Preserves"),
        canvas_node("a", "text", 20, 20, text="Quincewordjam needs **pectin**; see [[Jam#Set point]]."),
        canvas_node("f", "file", 320, 20, file="Recipes/Jam.md"),
        canvas_node("u", "link", 20, 600, url="https://example.com/pectin"),
    ]))
    write_note(vault, "Broken.canvas", "not json at all")
    index = tmp_path_factory.mktemp("canvas-index") / "index.sqlite"
    out = groove_index(vault, index, tiny_model, server_env)
    assert out["indexed"] == 2 and [sk["path"] for sk in out["skipped"]] == ["Broken.canvas"]
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


def test_search_names_the_canvas_and_get_document_reads_its_cards(s) -> None:
    res = s.call("search", {"query": '"Quincewordjam"'}).structured_content
    hit = next(h for h in res["results"] if h["path"] == "Kitchen.canvas")
    assert hit["heading_path"] == ["Preserves"]
    assert hit["content"] == "Quincewordjam needs **pectin**; see [[Jam#Set point]].\n"
    doc = s.call("get_document", {"path": "Kitchen.canvas", "line_start": hit["line_range"][0],
                                  "line_end": hit["line_range"][1]}).structured_content
    assert doc["content"] == "## Preserves\n\nQuincewordjam needs **pectin**; see [[Jam#Set point]]."
    whole = s.call("get_document", {"path": "Kitchen.canvas"}).structured_content
    assert whole["content"].endswith("![[Recipes/Jam.md]]\n\nhttps://example.com/pectin")
    assert {(ln["path"], ln["heading"]) for ln in whole["links"]} == {("Recipes/Jam.md", "Set point"),
                                                                     ("Recipes/Jam.md", None)}
    back = s.call("related_notes", {"path": "Recipes/Jam.md"}).structured_content["backlinks"]
    assert [(b["path"], b["occurrences"]) for b in back] == [("Kitchen.canvas", 2)]


def test_a_broken_canvas_is_refused_with_its_reason(s) -> None:
    r = s.call("get_document", {"path": "Broken.canvas"})
    assert r.is_error
    assert "cannot be read as a canvas: not valid JSON (line 1, column 1" in text_of(r)
    r = s.call("get_document", {"path": "Kitchen.canvas", "heading": "Pickles"})
    assert r.is_error and "its groups are: 'Preserves'" in text_of(r)
