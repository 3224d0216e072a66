"""A running daemon keeps canvases live (ADR 0195): an edited canvas is
re-indexed by the watcher, get_document reads its cards, and a canvas
broken while watched leaves search with its reason in index_status."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest

from helpers import canvas_node, obsidian_canvas, write_note
from helpers import quoted_hits as _found

from .conftest import poll

TIMEOUT = 30.0


@pytest.fixture(scope="module")
def daemon(module_home, tiny_model):
    from .conftest import new_daemon

    vault = Path(tempfile.mkdtemp(prefix="g", dir=module_home)) / "vault"
    write_note(vault, "Home.md", "# Home\n\nThe orchard.\n")
    write_note(vault, "Board.canvas", obsidian_canvas([
        canvas_node("g", "group", 0, 0, 600, 400, label="Spring"),
        canvas_node("a", "text", 20, 20, text="Graft the pearword trees."),
        canvas_node("b", "text", 20, 900, text="# Later\nHarvest in autumn."),
        canvas_node("f", "file", 300, 20, file="Home.md"),
    ]))
    write_note(vault, "groove.toml", "[watch]\ndebounce_ms = 150\n")
    d = new_daemon(module_home, tiny_model, vault=vault)
    d.start()
    yield d
    d.stop()


def test_get_document_reads_the_cards_in_reading_order_under_their_groups(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        doc = c.get_document("Board.canvas")
        assert doc["content"] == "## Spring\n\nGraft the pearword trees.\n\n![[Home.md]]\n\n# Later\nHarvest in autumn."
        assert doc["title"] == "Board" and doc["truncated"] is False
        assert [(ln["target"], ln["path"]) for ln in doc["links"]] == [("Home.md", "Home.md")]
        hit = next(h for h in c.search('"pearword"')["results"] if h["path"] == "Board.canvas")
        one = c.get_document("Board.canvas", line_start=hit["line_range"][0], line_end=hit["line_range"][1])
        assert one["content"] == "## Spring\n\nGraft the pearword trees."
        group = c.get_document("Board.canvas", heading="spring")  # a group's cards, file cards included
        assert group["content"] == "## Spring\n\nGraft the pearword trees.\n\n![[Home.md]]"
        assert [b["path"] for b in c.related_notes("Home.md")["backlinks"]] == ["Board.canvas"]


def test_an_edited_canvas_is_reindexed_and_a_broken_one_leaves_search_with_its_reason(daemon, groove_home):
    board = daemon.vault / "Board.canvas"
    with daemon.client() as c:
        daemon.wait_idle(c)
        assert _found(c, "pearword") == ["Board.canvas"]
        time.sleep(0.01)
        board.write_text(obsidian_canvas([canvas_node("a", "text", 0, 0, text="Graft the plumword trees.")]),
                         encoding="utf-8")
        poll(lambda: _found(c, "plumword") == ["Board.canvas"], TIMEOUT, "the edited card to be searchable")
        assert _found(c, "pearword") == []
        board.write_text('{"nodes": [', encoding="utf-8")
        poll(lambda: _found(c, "plumword") == [], TIMEOUT, "the broken canvas to leave search")
        skipped = {s["path"]: s["reason"] for s in c.index_status()["skipped"]}
        assert skipped["Board.canvas"].startswith("not valid JSON (line 1, column")
