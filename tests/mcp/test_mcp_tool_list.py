"""The tool list a client loads into the model's context in every
conversation (issue 48, ADR 0252): at most 15,000 characters through the
official stdio client against a real `groove mcp`, and every tool still
answers with a structured result that validates against what is published
and against its type in the code."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from pydantic import TypeAdapter

from conftest import write_vault
from groove.wire import note_types, status_types
from groove.wire.mcp_outputs import McpIndexStatus
from mcp_support import TOOLS, SyncSession, groove_index, stdio_session, text_of

BUDGET = 15_000  # characters of the whole tools/list result

CALLS: list[tuple[str, dict]] = [
    ("search", {"query": "garden plan", "limit": 3}),
    ("get_document", {"path": "Projects/Plan.md", "heading": "Goals"}),
    ("get_documents", {"paths": ["Home.md", "Projects/Plan.md"]}),
    ("related_notes", {"path": "Home.md"}),
    ("resolve_link", {"link": "[[Plan#Goals]]"}),
    ("list_notes", {"limit": 3}),
    ("recent_notes", {"days": 30}),
    ("list_tags", {}),
    ("index_status", {}),
    ("reindex", {}),
    ("unlinked_connections", {"path": "Home.md"}),
]
# The tools whose text is their result as JSON publish no output schema: their type in the code.
TYPES = {"index_status": McpIndexStatus, "reindex": status_types.ReindexSummary,
         "related_notes": note_types.Related, "resolve_link": note_types.ResolvedLink}


@pytest.fixture(scope="module")
def s(tmp_path_factory, tiny_model: Path, server_env: dict):
    root = tmp_path_factory.mktemp("toollist")
    vault = write_vault(root / "vault")
    index = root / "index.sqlite"
    groove_index(vault, index, tiny_model, server_env)
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: stdio_session(args, server_env, root / "stderr.log"))
    yield sess
    sess.close()


def _chars(v: object) -> int:
    return len(json.dumps(v, ensure_ascii=False))


def test_the_whole_tool_list_fits_its_budget_through_the_real_client(s) -> None:
    listed = s.list_tools()
    total = _chars(listed.model_dump(by_alias=True, exclude_none=True, mode="json"))
    sizes = {t.name: _chars(t.model_dump(by_alias=True, exclude_none=True, mode="json")) for t in listed.tools}
    assert total <= BUDGET, (total, sorted(sizes.items(), key=lambda kv: -kv[1]))
    assert {t.name for t in listed.tools} == TOOLS
    # The prompts and the note resource stay.
    assert {p.name for p in s.list_prompts().prompts} == {"answer_from_notes", "summarize_recent", "explore_topic"}
    assert [t.uri_template for t in s.list_resource_templates().resource_templates] == ["groove://note/{+path}"]


def test_every_input_schema_is_short_and_says_the_same_bounds(s) -> None:
    by = {t.name: t for t in s.list_tools().tools}
    for t in by.values():
        props = t.input_schema["properties"].values()
        assert "title" not in t.input_schema and not any("title" in p for p in props), t.name  # pydantic's echoes
        assert '"anyOf"' not in json.dumps(t.input_schema), t.name  # null branches
    search = by["search"].input_schema["properties"]
    assert search["mmr"]["type"] == ["boolean", "null"] and "default" not in search["mmr"]
    assert search["limit"] == {"default": 10, "description": "Results (at most 50; more is clamped).", "minimum": 1,
                               "type": "integer"}
    assert search["path_globs"]["maxItems"] == 100 and search["path_globs"]["items"]["maxLength"] == 1000
    # Still refused as before: a null where a list may be null is fine, a string where an integer goes is not.
    assert not s.call("search", {"query": "garden", "mmr": None, "tags_any": None}).is_error
    bad = s.call("search", {"query": "garden", "limit": "3"})
    assert bad.is_error and "'limit' must be an integer" in text_of(bad)


def test_every_tool_answers_through_the_real_client_and_its_result_validates(s) -> None:
    by = {t.name: t for t in s.list_tools().tools}
    assert {name for name, _ in CALLS} == TOOLS
    for name, args in CALLS:
        r = s.call(name, args)  # the SDK's client validates against the published output schema, if any
        assert not r.is_error, (name, text_of(r))
        published = by[name].output_schema
        if name in TYPES:
            assert published is None, name
            schema = TypeAdapter(TYPES[name]).json_schema()
            assert json.loads(text_of(r)) == r.structured_content, name  # the text is the result
        else:
            schema = published
            assert schema is not None and "$defs" not in schema, name
        jsonschema.validate(r.structured_content, schema)


def test_an_expert_knob_left_to_the_vault_says_where_it_is_set(s) -> None:
    for knob in ("mmr_lambda", "mmr_same_doc_penalty", "min_confidence_ratio"):
        r = s.call("search", {"query": "garden", knob: 0.5})
        assert r.is_error and f"`{knob}` is the vault's setting" in text_of(r) and "groove.toml" in text_of(r)
