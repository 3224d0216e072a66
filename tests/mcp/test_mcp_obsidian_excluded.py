"""MCP clients meet Obsidian's Excluded files as the index does (ADR 0190):
written after the index was built, the rule still refuses the template,
names itself in the refusal, and index_status says which rule applies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_support import SyncSession, groove_index, inproc_session, text_of

NOTES = {
    "Home.md": "# Home\n\nStart from [[Daily]].\n",
    "Templates/Daily.md": "# Daily\n\n## Tasks\n\nscaffoldword\n",
}


@pytest.fixture(scope="module")
def s(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict):
    vault = tmp_path_factory.mktemp("obsidian-excluded")
    for rel, text in NOTES.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    index = tmp_path_factory.mktemp("oe-index") / "index.sqlite"
    assert groove_index(vault, index, tiny_model, server_env)["indexed"] == 2
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Templates"]}), encoding="utf-8")
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


def test_get_document_refusal_names_obsidians_rule(s) -> None:
    r = s.call("get_document", {"path": "Templates/Daily.md"})
    assert r.is_error
    assert "excluded by Obsidian's Excluded files (userIgnoreFilters: Templates)" in text_of(r)
    assert "scaffoldword" not in text_of(r)
    link = s.call("resolve_link", {"link": "[[Daily]]", "from_path": "Home.md"}).structured_content
    assert link["exists"] is False


def test_index_status_lists_the_rule_and_answers_why(s) -> None:
    st = s.call("index_status", {"why": "Templates/Daily.md"}).structured_content
    assert st["why"] == {"path": "Templates/Daily.md",
                         "excluded_by": "excluded by Obsidian's Excluded files (userIgnoreFilters: Templates)"}
    assert {"rule": "Obsidian's Excluded files (.obsidian/app.json userIgnoreFilters)", "entries": 1,
            "values": ["Templates"]} in st["exclusions"]
