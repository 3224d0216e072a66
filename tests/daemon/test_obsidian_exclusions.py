"""A running daemon honours Obsidian's Excluded files (ADR 0190): the read
gate names the rule, index_status lists it and says why a path is left out,
and an edit of .obsidian/app.json re-applies it while the vault is watched."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from groove.daemon import protocol
from groove.daemon.client import RpcError
from groove.wire import rpc
from helpers import quoted_hits as _found

from .conftest import poll

TIMEOUT = 30.0


def _write_filters(vault: Path, filters: object) -> None:
    # As Obsidian saves it: the whole file rewritten, other settings kept.
    (vault / ".obsidian" / "app.json").write_text(
        json.dumps({"promptDelete": False, "userIgnoreFilters": filters}, indent=2), encoding="utf-8")


@pytest.fixture(scope="module")
def daemon(module_home, tiny_model):
    from .conftest import new_daemon

    root = Path(tempfile.mkdtemp(prefix="g", dir=module_home))
    vault = root / "vault"
    for rel, text in {
        "Home.md": "# Home\n\nSee [[Daily]] and [[Plan]].\n",
        "Plan.md": "# Plan\n\nThe orchard plan.\n",
        "Templates/Daily.md": "# Daily\n\n## Tasks\n\nscaffoldword template line\n",
        "Boards/Plan.excalidraw.md": "# Board\n\nexcalidrawword drawing\n",
    }.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / "groove.toml").write_text("[watch]\ndebounce_ms = 150\n", encoding="utf-8")
    (vault / ".obsidian").mkdir()
    _write_filters(vault, ["Templates/", r"/\.excalidraw\.md$/"])
    d = new_daemon(module_home, tiny_model, vault=vault)
    d.start()
    yield d
    d.stop()


def test_the_read_gate_names_obsidians_rule(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        for path, entry in (("Templates/Daily.md", "Templates/"),
                            ("Boards/Plan.excalidraw.md", r"/\.excalidraw\.md$/")):
            for method in ("get_document", "related_notes"):  # the Obsidian panel shows related_notes' message
                with pytest.raises(RpcError) as e:
                    c.call(method, {"path": path})
                assert e.value.code == rpc.PATH_NOT_FOUND
                assert f"excluded by Obsidian's Excluded files (userIgnoreFilters: {entry})" in e.value.message
        assert c.resolve_link("[[Daily]]", from_path="Home.md")["exists"] is False
        assert _found(c, "scaffoldword") == [] and _found(c, "excalidrawword") == []
        st = c.call("index_status", {"why": "Templates/Daily.md"})
        protocol.validator("result", "index_status").validate(st)
        assert st["why"]["excluded_by"] == "excluded by Obsidian's Excluded files (userIgnoreFilters: Templates/)"
        obsidian = [x for x in st["exclusions"] if x["rule"].startswith("Obsidian")]
        assert obsidian and obsidian[0]["entries"] == 2


def test_editing_app_json_while_watched_moves_notes_in_and_out_of_search(daemon, groove_home):
    vault = daemon.vault
    with daemon.client() as c:
        daemon.wait_idle(c)
        _write_filters(vault, [r"/\.excalidraw\.md$/"])  # the template folder is no longer excluded
        poll(lambda: _found(c, "scaffoldword") == ["Templates/Daily.md"], TIMEOUT, "the template to enter search")
        assert "scaffoldword" in c.get_document("Templates/Daily.md")["content"]
        _write_filters(vault, ["Templates/", r"/\.excalidraw\.md$/"])
        poll(lambda: _found(c, "scaffoldword") == [], TIMEOUT, "the template to leave search")
        with pytest.raises(RpcError):
            c.get_document("Templates/Daily.md")


def test_a_broken_app_json_keeps_the_last_good_rules_and_says_so(daemon, groove_home):
    """Fail closed (issue 50 R7, ADR 0236): a half-written app.json keeps the
    last good exclusions, with a warning in search and in index_status."""
    vault = daemon.vault
    with daemon.client() as c:
        daemon.wait_idle(c)
        for broken in ('{"userIgnoreFilters": ["Templates/"', '{"userIgnoreFilters": ["Templates/"],}'):
            (vault / ".obsidian" / "app.json").write_text(broken, encoding="utf-8")
            poll(lambda: any(".obsidian/app.json is not valid JSON" in w for w in c.index_status()["warnings"]),
                 TIMEOUT, "the broken file to be noticed")
            daemon.wait_idle(c)
            st = c.index_status()
            assert any("last good Obsidian's Excluded files (2 entries) still apply" in w
                       for w in st["warnings"]), st["warnings"]
            assert st["last_error"] is None
            resp = c.search('"scaffoldword"')
            assert [h["path"] for h in resp["results"] if "scaffoldword" in h["content"]] == []
            assert any("not valid JSON" in w for w in resp["warnings"]), resp["warnings"]
            with pytest.raises(RpcError):
                c.get_document("Templates/Daily.md")
        (vault / "Plan.md").write_text("# Plan\n\nquinceword orchard plan.\n", encoding="utf-8")
        poll(lambda: _found(c, "quinceword") == ["Plan.md"], TIMEOUT, "an edit to be indexed")
        _write_filters(vault, [r"/\.excalidraw\.md$/"])  # repaired, without the template folder now
        poll(lambda: _found(c, "scaffoldword") == ["Templates/Daily.md"], TIMEOUT, "the repaired rule to apply")
        _write_filters(vault, ["Templates/", r"/\.excalidraw\.md$/"])
        poll(lambda: _found(c, "scaffoldword") == [], TIMEOUT, "the template to leave again")
        daemon.wait_idle(c)
        assert not any("app.json" in w for w in c.index_status()["warnings"])
