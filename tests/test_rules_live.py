"""The vault's rules as they are on disk now apply to everything the index
returns, with no reindex and no daemon (issue 50 R6, ADR 0235): a folder
added to ``.grooveignore`` (or to Obsidian's Excluded files) after the index
was built is gone from search, the listings, the tag counts, related notes
and unlinked connections at once, and a limit is still honoured."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from groove import operations
from groove.cli import cli
from groove.errors import NoteNotFound
from groove.pipeline import SearchParams
from helpers import make_runtime, write_note

SECRETS = 25


def _vault(root: Path) -> Path:
    vault = root / "vault"
    write_note(vault, "Home.md", "# Home\n\n#publictag The garden plan, see [[Secret/diary0]] and [[Plans]].\n")
    write_note(vault, "Plans.md", "# Plans\n\n#publictag secrettoken is a word the public plans mention once.\n")
    for i in range(SECRETS):
        write_note(vault, f"Secret/diary{i}.md",
                   f"# Diary {i}\n\n#secrettag secrettoken my salary is {i}23456. The garden plan. [[Home]]\n")
    return vault


@pytest.fixture
def rt(tmp_path: Path, tiny_embedder):
    rt = make_runtime(_vault(tmp_path), tiny_embedder, tmp_path)
    operations.reindex(rt)
    yield rt
    rt.close()


def _everything(rt) -> dict[str, set[str]]:
    """Every path each surface of the index returns."""
    hits = operations.search(rt, SearchParams("secrettoken salary", limit=50)).results
    return {
        "search": {h.path for h in hits},
        "list_notes": {n["path"] for n in operations.call(rt, "list_notes", {"limit": 200})["notes"]},
        "recent_notes": {n["path"] for n in operations.call(rt, "recent_notes", {"limit": 200})["notes"]},
        "related": {s["path"]
                    for s in operations.call(rt, "related_notes", {"path": "Home.md", "limit": 50})["similar"]}
        | {b["path"] for b in operations.call(rt, "related_notes", {"path": "Home.md"})["backlinks"]}
        | {o["path"] for o in operations.call(rt, "related_notes", {"path": "Home.md"})["outgoing"] if o["path"]},
        "unlinked": {c["path"] for c in
                     operations.call(rt, "unlinked_connections", {"path": "Plans.md", "limit": 50})["connections"]},
    }


def _secret(paths: set[str]) -> set[str]:
    return {p for p in paths if p.startswith("Secret/")}


@pytest.mark.parametrize("rule", ["grooveignore", "obsidian"])
def test_a_rule_written_after_the_index_hides_its_notes_on_every_surface(rt, rule: str) -> None:
    before = _everything(rt)
    for surface in ("search", "list_notes", "recent_notes", "related"):
        assert _secret(before[surface]), surface  # the test can fail: the notes are there before the rule
    tags = {t["tag"]: t["count"] for t in operations.call(rt, "list_tags", {})["tags"]}
    assert tags["secrettag"] == SECRETS

    if rule == "grooveignore":
        (rt.vault / ".grooveignore").write_text("# private\nSecret/\n", encoding="utf-8")
    else:
        (rt.vault / ".obsidian").mkdir()
        (rt.vault / ".obsidian" / "app.json").write_text(json.dumps({"userIgnoreFilters": ["Secret/"]}),
                                                         encoding="utf-8")

    after = _everything(rt)
    for surface, paths in after.items():
        assert _secret(paths) == set(), surface
    assert after["list_notes"] == {"Home.md", "Plans.md"}
    page = operations.call(rt, "list_notes", {"limit": 1})
    assert page["total"] == 2 and page["next_offset"] == 1  # counted and paged without them
    assert operations.call(rt, "recent_notes", {})["total"] == 2
    tags = {t["tag"]: t["count"] for t in operations.call(rt, "list_tags", {})["tags"]}
    assert "secrettag" not in tags and tags["publictag"] == 2
    with pytest.raises(NoteNotFound):
        operations.call(rt, "get_document", {"path": "Secret/diary3.md"})

    # The exclusion is applied inside the legs, before top-k: a limit below
    # the number of hidden notes still returns the public note.
    resp = operations.search(rt, SearchParams("secrettoken", limit=3))
    assert [h.path for h in resp.results] and not _secret({h.path for h in resp.results})
    assert "Plans.md" in {h.path for h in resp.results}
    assert any("left out by the vault's rules as they are now" in w for w in resp.warnings)
    assert operations.search(rt, SearchParams("secrettoken", path_globs=["Secret/**"])).results == []
    assert operations.call(rt, "resolve_link", {"link": "[[Secret/diary0]]", "from_path": "Home.md"})["exists"] is False

    # Removing the rule brings them back, still without a reindex.
    if rule == "grooveignore":
        (rt.vault / ".grooveignore").write_text("# nothing private\n", encoding="utf-8")
    else:
        (rt.vault / ".obsidian" / "app.json").write_text("{}", encoding="utf-8")
    assert _secret(_everything(rt)["list_notes"])


def test_the_cli_search_without_a_daemon_drops_them(rt, tiny_model_path: Path, tmp_path: Path) -> None:
    args = ["search", "secrettoken", "--vault", str(rt.vault), "--index", str(tmp_path / "index.sqlite"),
            "--model", str(tiny_model_path), "--no-daemon", "--json", "--limit", "5"]
    before = json.loads(CliRunner().invoke(cli, args).output)
    assert _secret({h["path"] for h in before["results"]})
    (rt.vault / ".grooveignore").write_text("Secret/\n", encoding="utf-8")
    out = CliRunner().invoke(cli, args)
    assert out.exit_code == 0, out.output
    after = json.loads(out.output)
    assert "Plans.md" in {h["path"] for h in after["results"]}
    assert _secret({h["path"] for h in after["results"]}) == set()
    assert "salary" not in out.output


def test_the_check_is_cheap_and_follows_each_write(rt) -> None:
    """The rules are one object while their files do not change, a new one
    the moment they do (a rewrite of the same size in the same second too)."""
    from groove.vault.scan import ignore_rules

    f = rt.vault / ".grooveignore"
    f.write_text("Secret/\n", encoding="utf-8")
    first = ignore_rules(rt.vault)
    assert first.skips_name("Secret/diary1.md")
    f.write_text("Secreu/\n", encoding="utf-8")  # same size, same second
    assert not ignore_rules(rt.vault).skips_name("Secret/diary1.md")
    time.sleep(2.1)  # past the racy window: from now on the stat vouches for the file
    settled = ignore_rules(rt.vault)
    assert ignore_rules(rt.vault) is settled


@pytest.mark.parametrize("glob", ["[z-a]", "!", "Private\\"])
def test_a_glob_pathspec_cannot_read_is_the_callers_mistake(rt, glob: str) -> None:
    """The same patterns a .grooveignore line can hold (issue 50 R4's
    neighbours), given as list_notes' glob or search's path_globs: a usage
    error naming the parameter, not an internal error."""
    from groove.errors import InvalidArgument

    with pytest.raises(InvalidArgument) as e:
        operations.call(rt, "list_notes", {"glob": glob})
    assert e.value.param == "glob"
    with pytest.raises(InvalidArgument) as e:
        operations.search(rt, SearchParams("garden", path_globs=[glob], legs="fts"))
    assert e.value.param == "path_globs"
