"""`groove mcp --http`: the SDK's Streamable HTTP client against a real
subprocess on loopback; Host/Origin checks against DNS rebinding; bearer token."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import httpx
import pytest

from mcp_support import GROOVE, TOOLS, HttpServer, SyncSession, http_session, text_of

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def args(vault: Path, tiny_model: Path, indexed: Path) -> list[str]:
    return ["--vault", str(vault), "--model", str(tiny_model), "--index", str(indexed), "--standalone"]


@pytest.fixture(scope="module")
def server(args, server_env, tmp_path_factory):
    srv = HttpServer(args, server_env, tmp_path_factory.mktemp("http") / "stderr.log")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def token_server(args, server_env, tmp_path_factory):
    env = {**server_env, "GROOVE_MCP_TOKEN": "s3cret-token"}
    srv = HttpServer(args, env, tmp_path_factory.mktemp("http-token") / "stderr.log")
    yield srv
    srv.stop()


def test_binds_loopback_and_serves_every_tool(server) -> None:
    assert server.url.startswith("http://127.0.0.1:")
    s = SyncSession(lambda: http_session(server.url))
    try:
        assert {t.name for t in s.list_tools().tools} == TOOLS
        r = s.call("search", {"query": "garden plan", "limit": 2})
        assert not r.is_error and r.structured_content["results"][0]["path"] == "Projects/Plan.md"
        d = s.call("get_document", {"path": "Projects/Plan.md", "heading": "Risks"})
        assert d.structured_content["line_range"] == [13, 15]
        rl = s.call("resolve_link", {"link": "[[meeting NOTES]]"})
        assert rl.structured_content["path"] == "Meeting notes.md"
        rn = s.call("related_notes", {"path": "Home.md", "limit": 2})
        assert len(rn.structured_content["similar"]) == 2
        st = s.call("index_status").structured_content
        assert st["documents"] == 7 and st["stale_files"] == 0
        ri = s.call("reindex", {})
        assert ri.structured_content["unchanged"] == 7
        bad = s.call("get_document", {"path": "%2e%2e%2fsecret.md"})
        assert bad.is_error and "inside the vault" in text_of(bad)
        assert not s.call("search", {"query": "coffee"}).is_error  # still serving
    finally:
        s.close()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:80", "192.168.1.20:8765", "attacker.127.0.0.1.nip.io"])
def test_foreign_host_header_is_rejected(server, host: str) -> None:
    r = httpx.post(server.url, json=INIT, headers={**HEADERS, "Host": host}, timeout=30)
    assert r.status_code == 421, r.text


@pytest.mark.parametrize("origin", ["http://evil.example", "https://evil.example:8765", "null",
                                    "http://127.0.0.1.evil.example"])
def test_foreign_origin_is_rejected(server, origin: str) -> None:
    r = httpx.post(server.url, json=INIT, headers={**HEADERS, "Origin": origin}, timeout=30)
    assert r.status_code == 403, r.text


def test_loopback_origin_is_accepted(server) -> None:
    port = server.url.split(":")[2].split("/")[0]
    r = httpx.post(server.url, json=INIT, headers={**HEADERS, "Origin": f"http://localhost:{port}"}, timeout=30)
    assert r.status_code == 200, r.text


def test_token_is_required_when_set(token_server) -> None:
    none = httpx.post(token_server.url, json=INIT, headers=HEADERS, timeout=30)
    wrong = httpx.post(token_server.url, json=INIT, headers={**HEADERS, "Authorization": "Bearer nope"}, timeout=30)
    assert none.status_code == 401 and wrong.status_code == 401
    assert "bearer token required" in token_server.log.read_text()
    s = SyncSession(lambda: http_session(token_server.url, {"Authorization": "Bearer s3cret-token"}))
    try:
        assert not s.call("search", {"query": "garden"}).is_error
    finally:
        s.close()


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_non_loopback_bind_is_refused_without_allow_remote(host: str, vault: Path, server_env) -> None:
    out = subprocess.run([GROOVE, "mcp", "--http", "--host", host, "--port", "0", "--vault", str(vault)],
                         env={**os.environ, **server_env}, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "refusing to bind" in out.stderr and "--allow-remote" in out.stderr


# ----------------------------------------------------------------------------- issue 17, M10 over HTTP


@pytest.mark.parametrize("origin", ["http://localhost:{other}", "http://127.0.0.1:{other}", "http://localhost"])
def test_a_loopback_origin_on_another_port_is_rejected(server, origin: str) -> None:
    port = int(server.url.split(":")[2].split("/")[0])
    o = origin.format(other=port + 1 if port < 65535 else port - 1)
    r = httpx.post(server.url, json=INIT, headers={**HEADERS, "Origin": o}, timeout=30)
    assert r.status_code == 403, (o, r.text)
    own = httpx.post(server.url, json=INIT, headers={**HEADERS, "Origin": f"http://127.0.0.1:{port}"}, timeout=30)
    assert own.status_code == 200


def test_allow_origin_admits_exactly_that_origin(args, server_env, tmp_path) -> None:
    srv = HttpServer([*args, "--allow-origin", "app://obsidian.md"], server_env, tmp_path / "stderr.log")
    try:
        ok = httpx.post(srv.url, json=INIT, headers={**HEADERS, "Origin": "app://obsidian.md"}, timeout=30)
        assert ok.status_code == 200, ok.text
        other = httpx.post(srv.url, json=INIT, headers={**HEADERS, "Origin": "http://localhost:3000"}, timeout=30)
        assert other.status_code == 403
    finally:
        srv.stop()


def test_starting_without_a_token_warns(server, token_server) -> None:
    assert "warning: no token" in server.log.read_text()
    assert "warning: no token" not in token_server.log.read_text()


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server",
                                  "/.well-known/oauth-protected-resource/mcp"])
def test_well_known_answers_404_not_401(token_server, path: str) -> None:
    base = token_server.url.rsplit("/mcp", 1)[0]
    r = httpx.get(base + path, timeout=30)
    assert r.status_code == 404, r.text
    assert httpx.post(token_server.url, json=INIT, headers=HEADERS, timeout=30).status_code == 401


def test_strict_arguments_over_http(server) -> None:
    s = SyncSession(lambda: http_session(server.url))
    try:
        r = s.call("reindex", {"force": "yes"})
        assert r.is_error and "'force' must be true or false" in text_of(r)
        r = s.call("search", {"query": "garden", "bogus": 1})
        assert r.is_error and "unknown argument 'bogus'" in text_of(r)
    finally:
        s.close()
