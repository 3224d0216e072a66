"""The note, browse and reindex operations return the types their schemas
are generated from (issue 38): every object each one builds, nested ones
too, has the keys its TypedDict (``note_types``, ``status_types``) declares,
in that order, with the values it declares, and is what protocol.json says;
the MCP tools publish those same types."""

from __future__ import annotations

import json
import types
import typing
from pathlib import Path

import jsonschema
import pytest
from pydantic import TypeAdapter
from typing_extensions import NotRequired, is_typeddict

from groove import operations
from groove.wire import note_types, status_types
from groove.wire.generate import PATH as PROTOCOL_JSON
from helpers import canvas_node, make_runtime, obsidian_canvas, write_note


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_model_path):
    from groove.models.llama_embedder import LlamaEmbedder

    tmp = tmp_path_factory.mktemp("note-types")
    vault = tmp / "vault"
    write_note(vault, "Home.md", "---\ntags: [project]\naliases: [Start]\ndate: 2026-01-02\n---\n# Home\n\n"
               "See [[Plan#Goals|goals]], [[Missing]], ![[pic.png]] and [[Plan]] again.\n")
    write_note(vault, "Plan.md", "# Plan\n\n## Goals\n\nship it #project/alpha\n\nA block ^blk1\n\n"
               "## Later\n\n[[Home]] and [[Home]]\n")
    write_note(vault, "a/Dup.md", "# Dup\n\napples\n")
    write_note(vault, "b/Dup.md", "# Dup\n\napples and pears #x\n")
    write_note(vault, "Big.md", "# Big\n" + "".join(f"line {i} about apples and pears\n" for i in range(50)))
    write_note(vault, "Board.canvas", obsidian_canvas([canvas_node("n1", "text", 0, 0, text="# Card\n\n[[Plan]]"),
                                                       canvas_node("n2", "file", 300, 0, file="Home.md")]))
    (vault / "pic.png").write_bytes(b"PNG")
    r = make_runtime(vault, LlamaEmbedder(tiny_model_path, max_tokens=256), tmp)
    operations.reindex(r)
    yield r
    r.close()


def _protocol() -> dict:
    return json.loads(PROTOCOL_JSON.read_text(encoding="utf-8"))


def wire_schema(method: str) -> dict:
    doc = _protocol()
    return {**doc["methods"][method]["result"], "$defs": doc["$defs"]}


def check(value: object, t: object, where: str = "") -> int:
    """Assert ``value`` is ``t`` key for key, in order, all the way down; the number of objects checked."""
    if is_typeddict(t):
        assert isinstance(value, dict), where
        hints = typing.get_type_hints(t)
        assert list(value) == [k for k in hints if k in value], f"{where}: a key {t.__name__} does not declare, " \
                                                                 f"or out of its order: {list(value)}"
        required = {k for k, h in typing.get_type_hints(t, include_extras=True).items()
                    if typing.get_origin(h) is not NotRequired}  # __required_keys__ cannot read string annotations
        assert required <= set(value), f"{where}: {t.__name__} misses {required - set(value)}"
        return 1 + sum(check(v, hints[k], f"{where}.{k}") for k, v in value.items())
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin in (types.UnionType, typing.Union):
        if value is None:
            return 0
        return check(value, next(a for a in args if a is not type(None)), where)
    if origin is list:
        return sum(check(v, args[0], f"{where}[{i}]") for i, v in enumerate(value))
    return 0


def _is(method: str, value: object, t: type) -> int:
    n = check(value, t, method)
    TypeAdapter(t).validate_python(value)
    jsonschema.validate(value, wire_schema(method))
    return n


@pytest.mark.parametrize("params", [
    {"path": "Home.md"}, {"path": "Plan.md", "heading": "Goals"}, {"path": "Plan.md", "line_start": 2, "line_end": 3},
    {"path": "Big.md", "max_chars": 100}, {"path": "Board.canvas"},
], ids=["whole", "heading", "lines", "truncated", "canvas"])
def test_a_document_is_a_document_key_for_key(rt, params):
    d = operations.call(rt, "get_document", params)
    assert _is("get_document", d, note_types.Document) == 1 + len(d["links"])
    assert d["links"] or params["path"] == "Big.md"  # the nested Link objects are checked too


def test_a_note_text_is_a_note_text(rt):
    assert _is("read_note", operations.call(rt, "read_note", {"path": "Home.md"}), note_types.NoteText) == 1


@pytest.mark.parametrize("link", ["[[Plan#Goals|goals]]", "[[Plan#Nope]]", "[[Plan#^blk1]]", "[[Plan#^zz]]",
                                  "[[Missing]]", "[[pic.png]]", "[[Plan]]"])
def test_a_resolved_link_is_a_resolved_link_whichever_branch_answers(rt, link):
    r = operations.call(rt, "resolve_link", {"link": link, "from_path": "Home.md"})
    _is("resolve_link", r, note_types.ResolvedLink)
    assert ("warning" in r) == (r["anchor_found"] is False)


@pytest.mark.parametrize("params", [{"path": "Home.md"}, {"path": "Plan.md", "unlinked_only": True, "limit": 2}])
def test_related_notes_and_their_parts_are_their_types(rt, params):
    r = operations.call(rt, "related_notes", params)
    n = _is("related_notes", r, note_types.Related)
    assert n == 1 + sum(len(r[k]) for k in ("similar", "backlinks", "outgoing", "attachments", "own_headings"))
    assert r["similar"] and (r["backlinks"] or r["outgoing"])


def test_unlinked_connections_are_their_type(rt):
    r = operations.call(rt, "unlinked_connections", {"path": "a/Dup.md"})
    assert _is("unlinked_connections", r, note_types.UnlinkedConnections) == 1 + len(r["connections"]) > 1


@pytest.mark.parametrize("method,params", [("list_notes", {}), ("list_notes", {"limit": 2, "sort": "title"}),
                                           ("recent_notes", {"limit": 1}), ("list_tags", {})])
def test_a_listing_is_its_type(rt, method, params):
    t = note_types.TagList if method == "list_tags" else note_types.NotePage
    r = operations.call(rt, method, params)
    assert _is(method, r, t) == 1 + len(r["tags" if method == "list_tags" else "notes"]) > 1


def test_a_reindex_summary_declares_every_key_the_run_sends(rt, tmp_path):
    vault = Path(rt.vault)
    (vault / "bin.md").write_bytes(b"\x00\x01binary" * 40)  # skipped
    (vault / "a" / "Dup.md").rename(vault / "a" / "Dup2.md")  # renamed
    try:
        r = operations.call(rt, "reindex", {})
    finally:
        (vault / "bin.md").unlink()
        (vault / "a" / "Dup2.md").rename(vault / "a" / "Dup.md")
        operations.reindex(rt)
    assert r["renamed"] == [["a/Dup.md", "a/Dup2.md"]] and r["skipped"][0]["path"] == "bin.md"
    assert list(r) == list(typing.get_type_hints(status_types.ReindexSummary)), "every key, declared, in order"
    _is("reindex", r, status_types.ReindexSummary)


def test_the_mcp_tools_publish_the_operations_types(rt, tiny_model_path):
    from groove.mcp import ServerOptions, build_server

    mcp = build_server([ServerOptions(vault=Path(rt.vault), index_path=rt.index.path, model=str(tiny_model_path),
                                      attach=False, warm=False)])
    schemas = {t.name: t.output_schema for t in mcp._tool_manager.list_tools()}
    for tool, t in (("related_notes", note_types.Related), ("resolve_link", note_types.ResolvedLink),
                    ("unlinked_connections", note_types.UnlinkedConnections), ("list_notes", note_types.NotePage),
                    ("recent_notes", note_types.NotePage), ("list_tags", note_types.TagList),
                    ("reindex", status_types.ReindexSummary)):
        assert list(schemas[tool]["properties"]) == list(typing.get_type_hints(t)), tool
    declared = list(typing.get_type_hints(note_types.Document))
    assert list(schemas["get_document"]["properties"])[:len(declared)] == declared
    # Published short (ADR 0252): the key and its JSON type; what it means is the type's to say.
    assert schemas["get_document"]["properties"]["line_range"] == {"type": "array"}
    assert TypeAdapter(note_types.Document).json_schema()["properties"]["line_range"]["description"].startswith(
        "[first, last] lines")
