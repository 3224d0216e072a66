"""`groove mcp` attaches to a running `groove serve` for the vault: tool calls
go over the daemon's socket and this process loads no model."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mcp_support import GROOVE, SyncSession, stdio_session, text_of


@pytest.fixture(scope="module")
def daemon(vault: Path, tiny_model: Path, indexed: Path, server_env, tmp_path_factory):
    root = tmp_path_factory.mktemp("daemon")
    work = root / "vault"
    shutil.copytree(vault, work, symlinks=True)
    index = root / "index.sqlite"
    shutil.copy(indexed, index)
    env = {**os.environ, **server_env}
    out = subprocess.run([GROOVE, "serve", "--vault", str(work), "--model", str(tiny_model), "--index", str(index)],
                         env=env, capture_output=True, text=True, timeout=180)
    assert out.returncode == 0, out.stderr
    yield work, tiny_model
    subprocess.run([GROOVE, "serve", "--stop", "--vault", str(work)], env=env, capture_output=True, timeout=60)


def test_mcp_routes_through_the_running_daemon(daemon, server_env, tmp_path) -> None:
    work, model = daemon
    # No --index: the daemon owns the index; --model would only matter standalone.
    s = SyncSession(lambda: stdio_session(["--vault", str(work), "--model", str(model)], server_env,
                                          tmp_path / "err.log"))
    try:
        st = s.call("index_status").structured_content
        assert st["mode"] == "daemon" and st["daemon_pid"]
        assert st["documents"] == 7
        r = s.call("search", {"query": "garden plan", "limit": 2})
        assert not r.is_error and r.structured_content["results"][0]["path"] == "Projects/Plan.md"
        d = s.call("get_document", {"path": "Projects/Plan.md", "heading": "Goals"})
        assert d.structured_content["line_range"] == [5, 11]
        bad = s.call("get_document", {"path": "../secret.md"})
        assert bad.is_error and "inside the vault" in text_of(bad)
        assert not s.call("resolve_link", {"link": "[[Standup]]"}).is_error
        hit = r.structured_content["results"][0]
        rel = s.call("related_notes", {"path": hit["path"], "chunk_id": hit["chunk_id"], "limit": 2})
        assert not rel.is_error and rel.structured_content["path"] == hit["path"], text_of(rel)
        # M5: a chunk_id alone is enough in attach mode too.
        by_chunk = s.call("related_notes", {"chunk_id": hit["chunk_id"], "limit": 2})
        assert not by_chunk.is_error and by_chunk.structured_content["path"] == hit["path"], text_of(by_chunk)
        # The new operations go through the daemon's table too.
        page = s.call("list_notes", {"limit": 3}).structured_content
        assert page["total"] == 7 and len(page["notes"]) == 3
        assert s.call("list_tags", {}).structured_content["tags"]
        miss = s.call("get_document", {"path": "Meting notes"})
        assert miss.is_error and "'Meeting notes.md'" in text_of(miss)
        ri = s.call("reindex", {})
        assert not ri.is_error and ri.structured_content["indexed"] == 0
    finally:
        s.close()
