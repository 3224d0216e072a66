"""A standalone MCP server applies the vault's rules as they are on disk now
(issue 50 R6/R7, ADR 0235, 0236): 25 notes put under ``.grooveignore`` after
the index was built leave search, list_notes, recent_notes, list_tags,
related notes and the resource list at once; an app.json broken after that
keeps its last good exclusions, and says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_support import SyncSession, groove_index, inproc_session, text_of

SECRETS = 25  # above freshness.AUTO_REINDEX_MAX: the server does not reindex them away itself


@pytest.fixture(scope="module")
def s(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict):
    vault = tmp_path_factory.mktemp("rules-live")
    notes = {"Home.md": "# Home\n\n#publictag The garden plan. [[Secret/diary0]]\n",
             "Private/p1.md": "# P1\n\nprivatetoken of the first private note\n"}
    notes |= {f"Secret/diary{i}.md": f"# Diary {i}\n\n#secrettag secrettoken my salary. The garden plan. [[Home]]\n"
              for i in range(SECRETS)}
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Private/"]}), encoding="utf-8")
    index = tmp_path_factory.mktemp("rl-index") / "index.sqlite"
    assert groove_index(vault, index, tiny_model, server_env)["indexed"] == SECRETS + 1
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, tmp_path_factory.mktemp("log") / "err.log"))
    sess.vault = vault
    yield sess
    sess.close()


def _paths(result, key: str) -> set[str]:
    assert not result.is_error, text_of(result)
    return {x["path"] for x in result.structured_content[key]}


def _secret(paths: set[str]) -> set[str]:
    return {p for p in paths if p.startswith("Secret/")}


def _surfaces(s) -> dict[str, set[str]]:
    rel = s.call("related_notes", {"path": "Home.md", "limit": 50})
    assert not rel.is_error, text_of(rel)
    resources = s.list_resources()
    return {
        "search": _paths(s.call("search", {"query": "secrettoken salary", "limit": 20}), "results"),
        "list_notes": _paths(s.call("list_notes", {"limit": 200}), "notes"),
        "recent_notes": _paths(s.call("recent_notes", {"limit": 200}), "notes"),
        "related": {x["path"] for x in rel.structured_content["similar"]}
        | {x["path"] for x in rel.structured_content["backlinks"]},
        "resources": {str(r.uri).removeprefix("groove://note/") for r in resources.resources},
    }


def test_2_an_ignore_rule_on_disk_hides_the_notes_everywhere(s) -> None:
    before = _surfaces(s)
    for surface, paths in before.items():
        assert _secret(paths), surface  # the notes are there before the rule: the test can fail
    tags = {t["tag"]: t["count"] for t in s.call("list_tags", {}).structured_content["tags"]}
    assert tags["secrettag"] == SECRETS

    (s.vault / ".grooveignore").write_text("Secret/\n", encoding="utf-8")
    after = _surfaces(s)
    for surface, paths in after.items():
        assert _secret(paths) == set(), surface
    assert after["list_notes"] == {"Home.md"}
    assert "secrettag" not in {t["tag"] for t in s.call("list_tags", {}).structured_content["tags"]}
    doc = s.call("get_document", {"path": "Secret/diary1.md"})
    assert doc.is_error and "salary" not in text_of(doc)


def test_1_a_broken_app_json_keeps_the_last_good_exclusions_and_warns(s) -> None:
    assert _paths(s.call("search", {"query": "privatetoken", "limit": 5}), "results") == {"Home.md"}
    (s.vault / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ["Private/"],}', encoding="utf-8")
    r = s.call("search", {"query": "privatetoken", "limit": 5})
    assert "Private/p1.md" not in _paths(r, "results")
    warned = " ".join(r.structured_content["warnings"])
    assert "not valid JSON" in warned and "last good" in warned, warned
    st = s.call("index_status", {}).structured_content
    assert any("not valid JSON" in w for w in st["warnings"]), st["warnings"]
    doc = s.call("get_document", {"path": "Private/p1.md"})
    assert doc.is_error and "privatetoken" not in text_of(doc)
