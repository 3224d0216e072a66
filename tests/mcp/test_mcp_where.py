"""An MCP client filters search by frontmatter properties and by a daily
note's day (ADR 0191): the tool publishes ``where``, the server applies it
inside the search, and a bad entry is a tool error that says what to write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_support import SyncSession, groove_index, inproc_session, text_of

NOTES = {
    "Meetings/Kickoff.md": "---\ntype: meeting\npeople: [Ann, Bob]\nrating: 4\n---\n# Kickoff\n\nmedlarword agenda\n",
    "Meetings/Retro.md": "---\ntype: meeting\npeople: [Cid]\nrating: 2\n---\n# Retro\n\nmedlarword lessons\n",
    "Ideas/Tool.md": "---\ntype: idea\nrating: 5\n---\n# Tool\n\nmedlarword sketch\n",
    "Days/2026/December/Fri 04.md": "# Friday\n\nmedlarword day\n",
}


@pytest.fixture(scope="module")
def s(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict):
    vault = tmp_path_factory.mktemp("where")
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "daily-notes.json").write_text(
        json.dumps({"folder": "Days", "format": "YYYY/MMMM/ddd DD", "template": ""}), encoding="utf-8")
    index = tmp_path_factory.mktemp("where-index") / "index.sqlite"
    assert groove_index(vault, index, tiny_model, server_env)["indexed"] == 4
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


def _paths(s, **args) -> set[str]:
    r = s.call("search", {"query": "medlarword", "limit": 20, **args})
    assert not r.is_error, text_of(r)
    return {h["path"] for h in r.structured_content["results"]}


def test_the_search_tool_publishes_where(s) -> None:
    tool = next(t for t in s.list_tools().tools if t.name == "search")
    where = tool.input_schema["properties"]["where"]
    assert "key=value" in where["description"] and "priority>2" in where["description"]


def test_where_filters_by_typed_properties(s) -> None:
    assert _paths(s, where=["type=meeting"]) == {"Meetings/Kickoff.md", "Meetings/Retro.md"}
    assert _paths(s, where=["type=meeting", "rating>=3"]) == {"Meetings/Kickoff.md"}
    assert _paths(s, where=["people=cid"]) == {"Meetings/Retro.md"}
    assert _paths(s, where=["rating>4"]) == {"Ideas/Tool.md"}
    r = s.call("search", {"query": "medlarword", "where": ["type!=meeting"]}).structured_content
    assert r["filter_applied"] == {"where": ["type!=meeting"]}
    assert {h["path"] for h in r["results"]} == {"Ideas/Tool.md", "Days/2026/December/Fri 04.md"}


def test_a_daily_notes_day_comes_from_its_name_under_the_settings(s) -> None:
    assert _paths(s, date_from="2026-12-04", date_to="2026-12-04") == {"Days/2026/December/Fri 04.md"}


def test_a_bad_where_is_a_tool_error_saying_what_to_write(s) -> None:
    r = s.call("search", {"query": "medlarword", "where": ["rating"]})
    assert r.is_error
    assert "'where' filter 'rating': no operator" in text_of(r) and "key=value" in text_of(r)
