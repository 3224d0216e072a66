"""JSON Canvas parsing (vault/canvas.py, ADR 0195): cards become chunks
under their groups, positions point at the card text as written in the
file, file cards and card wikilinks become links, wrong shapes a reason."""

from __future__ import annotations

import json
import re

import pytest

from groove.vault.canvas import BadCanvas, parse_canvas, read_canvas
from helpers import canvas_node as node
from helpers import obsidian_canvas


def _written(data: bytes, ch) -> str:
    """The chunk's bytes in the file, decoded as the JSON string they are part of."""
    return json.loads('"' + data[ch.byte_start:ch.byte_end].decode("utf-8") + '"')


@pytest.mark.parametrize("style", ["obsidian", "indented-ascii"])
def test_byte_ranges_hold_each_chunk_as_written_in_the_json_even_for_split_cards(style):
    text = "# Café ☕\n" + "".join(f"Line {i} about \"pour-over\" 😀 brewing.\n\n" for i in range(40)) + "## Tail\nend"
    nodes = [node("t", "text", 0, 0, text=text), node("u", "text", 0, 500, text="second card")]
    raw = obsidian_canvas(nodes) if style == "obsidian" else json.dumps({"nodes": nodes}, indent=2)
    data = raw.encode("utf-8")
    note = parse_canvas("Board.canvas", data, chunk_tokens=60)
    assert len(note.chunks) > 3
    for ch in note.chunks:
        assert _written(data, ch) + "\n" == ch.content or _written(data, ch) == ch.content
        line = raw.split("\n")[ch.line_start - 1]
        assert ch.line_end == ch.line_start and data[ch.byte_start:ch.byte_end].decode() in line
    at = 0  # the pieces of the first card, in order (blank lines between pieces belong to nobody, as in notes)
    for ch in note.chunks[:-1]:
        at = text.index(ch.content.rstrip("\n"), at) + len(ch.content.rstrip("\n"))
    assert at == len(text)
    assert [c.ordinal for c in note.chunks] == list(range(len(note.chunks)))
    assert note.chunks[-2].heading_path == ["Café ☕", "Tail"]


def test_group_labels_outermost_first_and_only_groups_that_hold_the_whole_card():
    nodes = [
        node("inner", "group", 50, 50, 300, 300, label="Inner"),
        node("outer", "group", 0, 0, 1000, 1000, label="Outer"),
        node("nolabel", "group", 60, 60, 280, 280),
        node("a", "text", 100, 100, 50, 50, text="deep card"),
        node("b", "text", 900, 900, 200, 200, text="straddles the outer edge"),
    ]
    note = parse_canvas("B.canvas", obsidian_canvas(nodes).encode())
    by_text = {ch.content: ch for ch in note.chunks}
    assert by_text["deep card\n"].heading_path == ["Outer", "Inner"]
    assert by_text["deep card\n"].context == "B > Outer > Inner"
    assert by_text["straddles the outer edge\n"].heading_path == []


def test_file_cards_and_card_wikilinks_are_links_and_link_cards_are_not():
    nodes = [
        node("f", "file", 0, 0, file="Notes/X.md", subpath="#^abc"),
        node("g", "file", 0, 100, file="Notes/Y.md", subpath="#Part#Sub"),
        node("u", "link", 0, 200, url="https://example.com/X"),
        node("t", "text", 0, 300, text="first line\nsee [[Z|zed]] and #tagged"),
    ]
    raw = obsidian_canvas(nodes)
    note = parse_canvas("B.canvas", raw.encode())
    got = [(ln.target, ln.heading, ln.block, ln.alias, ln.embed) for ln in note.links]
    assert got == [("Notes/X.md", None, "abc", None, True), ("Notes/Y.md", "Part#Sub", None, None, True),
                   ("Z", None, None, "zed", False)]
    lines = raw.split("\n")
    assert ['"id":"f"' in lines[ln.line - 1] for ln in note.links] == [True, False, False]
    assert '"id":"t"' in lines[note.links[2].line - 1]
    assert note.tags == ["tagged"]


@pytest.mark.parametrize("text, reason", [
    ("{", "not valid JSON (line 1, column 2"),
    ("[1, 2]", "the top level is a JSON list"),
    ('{"nodes": {}}', "'nodes' is not a list"),
    ('{"edges": [{"fromNode": "a"}]}', "edge 1 is not an object with string 'fromNode' and 'toNode'"),
    ('{"nodes": [3]}', "node 1 is not an object"),
    ('{"nodes": [{"id": "a", "type": "text", "x": 0, "y": "0", "width": 1, "height": 1, "text": ""}]}',
     "node 1 (id 'a') has no numeric 'y'"),
    ('{"nodes": [{"id": "a", "type": "file", "x": 0, "y": 0, "width": 1, "height": 1}]}',
     "is a file node without a string 'file'"),
    ('{"nodes": [{"id": "a", "type": "group", "x": 0, "y": 0, "width": 1, "height": 1, "label": 5}]}',
     "has a 'label' that is not a string"),
])
def test_wrong_shapes_are_a_reason_that_says_what_and_how_to_fix(text, reason):
    with pytest.raises(BadCanvas) as e:
        parse_canvas("B.canvas", text.encode())
    assert reason in str(e.value) and "jsoncanvas.org" in str(e.value)


def test_not_utf8_is_a_reason_too():
    with pytest.raises(BadCanvas, match="not UTF-8"):
        parse_canvas("B.canvas", b'{"nodes": [], "x": "\xff"}')


@pytest.mark.parametrize("text", ["", "  \n", "{}", '{"nodes": [], "edges": []}'])
def test_an_empty_canvas_is_a_note_without_chunks(text):
    note = parse_canvas("Empty.canvas", text.encode())
    assert note.chunks == [] and note.links == [] and note.title == "Empty"


def test_an_unknown_node_type_is_left_out_with_a_warning_and_a_lone_surrogate_is_stored():
    raw = ('{"nodes": [{"id": "p", "type": "plugin-thing", "x": 0, "y": 0, "width": 1, "height": 1},'
           ' {"id": "t", "type": "text", "x": 0, "y": 9, "width": 1, "height": 1, "text": "odd \\ud83d end"}]}')
    note = parse_canvas("B.canvas", raw.encode())
    assert note.warnings == ["node 1 (id 'p') has the type 'plugin-thing', which JSON Canvas does not define: left out"]
    [ch] = note.chunks
    assert ch.content == "odd ? end\n"
    ch.content.encode("utf-8")  # storable


def test_reading_order_keeps_a_groups_cards_together():
    nodes = [
        node("free", "text", 2000, 10, text="free card"),
        node("g", "group", 0, 0, 500, 500, label="G"),
        node("low", "text", 10, 300, text="low in G"),
        node("high", "text", 10, 20, text="high in G"),
    ]
    assert [c.id for c in read_canvas(obsidian_canvas(nodes).encode()).cards] == ["high", "low", "free"]


def test_reading_text_pages_by_file_lines_so_the_next_line_gives_the_rest():
    from groove.vault.canvas import reading_text

    # Reading order (by y) is the reverse of file order here: pages must still lose and repeat nothing.
    nodes = [node(f"c{i}", "text", 0, 1000 - 100 * i, text=f"card {i} " + "words " * 20) for i in range(6)]
    raw = obsidian_canvas(nodes)
    total = len(raw.split("\n"))
    canvas = read_canvas(raw.encode())
    seen: list[str] = []
    start = None
    for _ in range(6):
        content, (a, b), truncated = reading_text(canvas, "B.canvas", total, start, None, None, 300)
        seen += re.findall(r"card (\d)", content)
        if not truncated:
            break
        assert f"ask for the rest with line_start={b + 1}" in content and len(content) < 300 + 200
        start = b + 1
    assert not truncated and start is not None  # it did take more than one page
    assert sorted(seen) == [str(i) for i in range(6)]
    first, _, _ = reading_text(canvas, "B.canvas", total, None, None, None, 10_000)
    assert re.findall(r"card (\d)", first) == ["5", "4", "3", "2", "1", "0"]  # reading order
