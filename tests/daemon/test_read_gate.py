"""The socket's note methods obey the indexer's ignore rules (issue 15, D5):
the same gate as MCP (tests/mcp/test_read_gate.py), through a real daemon."""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path

import pytest

from groove.daemon.client import RpcError
from groove.wire import rpc

SECRET = "DIARY SECRET"


@pytest.fixture(scope="module")
def daemon(module_home, tiny_model):
    from .conftest import new_daemon

    root = Path(tempfile.mkdtemp(prefix="g", dir=module_home))
    vault = root / "vault"
    for rel, text in {
        "Home.md": "# Home\n\nSee [[private/diary]] and [[Plan]].\n",
        "Plan.md": "# Plan\n\nThe garden plan. Back to [[Home]].\n",
        "private/diary.md": f"# Diary\n\n{SECRET}: the garden plan. [[Home]]\n",
        "Café/menu.md": f"# Menu\n\n{SECRET} of the café.\n",
    }.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / "public").symlink_to(vault / "private", target_is_directory=True)
    (vault / ".grooveignore").write_text("private/\nCafé/\n", encoding="utf-8")
    d = new_daemon(module_home, tiny_model, vault=vault)
    d.start()
    yield d
    d.stop()


@pytest.mark.parametrize("trick", [
    "private/diary.md", "private/diary", "public/diary.md", "private%2fdiary.md",
    "groove://note/private%2fdiary.md", "./private/diary.md", "Café/menu.md",
    unicodedata.normalize("NFD", "Café/menu.md"),
])
def test_the_socket_refuses_to_read_an_excluded_note(daemon, groove_home, trick):
    with daemon.client() as c:
        daemon.wait_idle(c)
        for method, params in (("get_document", {"path": trick}), ("related_notes", {"path": trick})):
            with pytest.raises(RpcError) as e:
                c.call(method, params)
            assert e.value.code == rpc.PATH_NOT_FOUND, (method, e.value.message)
            assert SECRET not in e.value.message
        link = c.resolve_link("[[private/diary]]", from_path="Home.md")
        assert link["exists"] is False and link["path"] is None
        assert c.get_document("Home.md")["links"][0]["path"] is None
        rel = c.related_notes("Plan.md", limit=10)
        assert all(not x["path"].startswith(("private/", "Café/")) for x in rel["similar"] + rel["backlinks"])
        assert "garden plan" in c.get_document("Plan.md")["content"]
