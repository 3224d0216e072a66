"""The unlinked_connections tool (ADR 0200) through a real MCP client: the
notes like one note that no link joins to it, each with the wikilink to
write — the bare name, or the folder path when two notes share the name;
an alias listed as display text, never as the target — and each link,
asked of resolve_link from the note, lands on its note."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_support import SyncSession, groove_index, inproc_session, text_of
from unlinked_vault import INDEXED, LINKED, SOURCE, write_vault


@pytest.fixture(scope="module")
def s(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict):
    vault = write_vault(tmp_path_factory.mktemp("unlinked-mcp") / "vault")
    index = vault.parent / "index.sqlite"
    assert groove_index(vault, index, tiny_model, server_env)["indexed"] == len(INDEXED)
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


def test_lists_only_unlinked_notes_with_a_link_that_resolves(s) -> None:
    r = s.call("unlinked_connections", {"path": SOURCE, "limit": 50})
    assert not r.is_error, text_of(r)
    rows = r.structured_content["connections"]
    assert {x["path"] for x in rows} == INDEXED - {SOURCE} - LINKED
    by_path = {x["path"]: x for x in rows}
    assert by_path["Kitchen/Oven.md"]["link"] == "[[Kitchen/Oven]]"
    assert by_path["Baking/Rye bread.md"]["link"] == "[[Rye bread]]"
    assert by_path["Baking/Levain.md"] | {"score": 0} == {"path": "Baking/Levain.md", "title": "Levain", "score": 0,
                                                         "link": "[[Levain]]", "aliases": ["Mother dough"]}
    for path, x in by_path.items():
        assert s.call("resolve_link", {"link": x["link"], "from_path": SOURCE}).structured_content["path"] == path
    # The text Claude reads names each link, nearest first, as the structured list orders them.
    lines = [ln for ln in text_of(r).splitlines() if ln.startswith("- [[")]
    assert [ln.split(" | ")[0][2:] for ln in lines] == [x["link"] for x in rows]
    assert "aliases: Mother dough" in text_of(r)


def test_the_limit_counts_unlinked_notes_in_related_notes_order(s) -> None:
    related = s.call("related_notes", {"path": SOURCE, "limit": 50}).structured_content["similar"]
    assert {x["path"] for x in related if x["linked"]} == LINKED
    want = [x["path"] for x in related if not x["linked"]][:2]
    got = s.call("unlinked_connections", {"path": SOURCE, "limit": 2}).structured_content["connections"]
    assert [x["path"] for x in got] == want


def test_an_excluded_note_is_refused_by_its_rule(s) -> None:
    r = s.call("unlinked_connections", {"path": "Templates/Daily.md"})
    assert r.is_error
    assert "excluded by Obsidian's Excluded files (userIgnoreFilters: Templates/)" in text_of(r)


def test_related_notes_unlinked_only_is_the_same_list_without_the_linked_notes(s) -> None:
    related = s.call("related_notes", {"path": SOURCE, "limit": 50}).structured_content["similar"]
    only = s.call("related_notes", {"path": SOURCE, "limit": 2, "unlinked_only": True}).structured_content
    assert [x["path"] for x in only["similar"]] == [x["path"] for x in related if not x["linked"]][:2]
    assert not any(x["linked"] for x in only["similar"])
