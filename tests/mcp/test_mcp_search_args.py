"""The MCP search tool's arguments come from ``SearchParams`` (issue 38): a
field of the model is a tool argument with the wire's bounds and
description (or a shorter one, ``search_args.SHORTER``), so a new search
parameter reaches MCP with no edit there.
The server runs in process (the SDK's in-memory transport)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from groove.mcp import search_args
from groove.wire.generate import PATH as PROTOCOL_JSON
from groove.wire.search import SearchParams
from mcp_support import SyncSession, inproc_session

BOUNDS = ("maximum", "minimum", "exclusiveMaximum", "maxLength", "minLength", "maxItems", "pattern")


@pytest.fixture(scope="module")
def tool_schema(tmp_path_factory, tiny_model: Path) -> dict:
    """The search tool's inputSchema, of a vault with a reranker configured
    (so `rerank` is offered: every argument is there)."""
    vault = tmp_path_factory.mktemp("rr") / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nA note.\n", encoding="utf-8")
    (vault / "groove.toml").write_text('[search]\nreranker = "some-reranker"\n', encoding="utf-8")
    sess = SyncSession(lambda: inproc_session(
        ["--vault", str(vault), "--model", str(tiny_model), "--index", str(vault.parent / "i.sqlite"),
         "--standalone"], vault.parent / "err.log"))
    try:
        return next(t for t in sess.list_tools().tools if t.name == "search").input_schema
    finally:
        sess.close()


def _flat(prop: dict) -> dict:
    """A property with its `X | null` unwrapped (the tool's form is anyOf, the wire's a type list)."""
    alts = [a for a in prop.get("anyOf", []) if a.get("type") != "null"]
    return {**prop, **alts[0]} if alts else prop


def _bounds(prop: dict) -> dict:
    p = _flat(prop)
    out = {k: p[k] for k in BOUNDS if k in p}
    if "items" in p:
        out["items"] = {k: p["items"][k] for k in BOUNDS if k in p["items"]}
    return out


def test_every_search_parameter_but_the_paged_ones_is_a_tool_argument(tool_schema):
    fields = {f.name for f in dataclasses.fields(SearchParams)}
    assert set(tool_schema["properties"]) == (fields - search_args.NOT_OFFERED) | {"limit", "offset", "max_tokens"}
    assert tool_schema["required"] == ["query"]


def test_each_argument_has_the_wire_description_and_bounds_unless_narrowed_for_models(tool_schema):
    wire = json.loads(PROTOCOL_JSON.read_text(encoding="utf-8"))["$defs"]["SearchParams"]["properties"]
    for name, prop in tool_schema["properties"].items():
        if name in {"limit", "offset", "max_tokens"}:
            continue
        # The wire's description, or a shorter one written for a model's context (ADR 0252).
        assert prop["description"] == search_args.SHORTER.get(name, wire[name]["description"]), name
        if name not in search_args.NARROWED:
            assert _bounds(prop) == _bounds(wire[name]), name
            assert prop.get("default") is None, f"{name}: omitted must mean the vault's setting"
    # What is narrowed is narrowed as said, nothing else.
    assert tool_schema["properties"]["query"]["minLength"] == 1
    assert "pattern" not in _flat(tool_schema["properties"]["date_from"])
    assert tool_schema["properties"]["explain"] == {**tool_schema["properties"]["explain"], "type": "boolean",
                                                    "default": False}


def test_the_tools_arguments_become_the_search_operations_params():
    args = {"query": "plan", "path_globs": ["Projects/**"], "tags_any": None, "mmr": True, "mmr_lambda": None,
            "explain": False, "date_from": "2024-01-01"}
    assert search_args.request(args, limit=7) == {
        "query": "plan", "limit": 7, "mmr": True, "path_globs": ["Projects/**"], "date_from": "2024-01-01"}
    assert search_args.request({"query": "q", "explain": True}, limit=3) == {"query": "q", "limit": 3, "explain": True}


def test_an_argument_the_model_does_not_have_never_reaches_the_operation():
    # The tool's own arguments (paging, budget) and anything unknown stay out.
    assert search_args.request({"query": "q", "offset": 5, "max_tokens": 900, "legs": "fts", "reranker": "x"},
                               limit=10) == {"query": "q", "limit": 10}
