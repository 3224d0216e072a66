"""`groove mcp` on stdio, spoken to byte by byte (issue 35 F4, F6; ADR 0153,
0154): every line gets an answer JSON-RPC's way (-32700 for what is not
JSON, -32600 with the id when it can be read for what is not a request,
batches and deep nesting included) and the server stays usable; every
surface publishes and enforces one bound table; and a server whose client
closed stdin stops work."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from groove.wire import bounds
from mcp_support import GROOVE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="pipes and signals as on POSIX")


class RawServer:
    """`groove mcp --standalone` with raw pipes: lines in, JSON lines out."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self._err = open(log, "w", encoding="utf-8")
        self.proc = subprocess.Popen([GROOVE, "mcp", "--standalone", *args], env={**os.environ, **env},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err)
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            self.lines.put(json.loads(raw))
        self.lines.put(None)

    def send(self, line: str | bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line if isinstance(line, bytes) else line.encode("utf-8"))
        self.proc.stdin.write(b"\n")
        self.proc.stdin.flush()

    def request(self, rid: int, method: str, params: dict | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(json.dumps(msg))

    def next(self, timeout: float = 30.0) -> Any:
        return self.lines.get(timeout=timeout)

    def answer(self, rid: int, timeout: float = 60.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            m = self.next(max(0.1, deadline - time.monotonic()))
            if m is None:
                raise AssertionError("the server closed stdout")
            if isinstance(m, dict) and m.get("id") == rid:
                return m

    def start(self) -> None:
        self.request(0, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "raw", "version": "1"}})
        assert "result" in self.answer(0)
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self._err.close()


@pytest.fixture
def raw(indexed: Path, vault: Path, tiny_model: Path, server_env: dict, tmp_path: Path):
    servers: list[RawServer] = []

    def start(*extra: str) -> RawServer:
        s = RawServer(["--vault", str(vault), "--model", str(tiny_model), "--index", str(indexed), *extra],
                      server_env, tmp_path / f"err{len(servers)}.log")
        servers.append(s)
        s.start()
        return s

    yield start
    for s in servers:
        s.close()


def test_malformed_json_rpc_gets_the_json_rpc_error_with_the_id_and_the_server_goes_on(raw) -> None:
    s = raw()
    cases: list[tuple[str, Any, int]] = [
        ("{not json", None, -32700),
        ('{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}', 8, -32600),
        ('{"jsonrpc":"1.0","id":"a","method":"ping"}', "a", -32600),
        ('{"jsonrpc":"2.0","id":true,"method":"ping"}', None, -32600),
        ('[{"jsonrpc":"2.0","id":9,"method":"ping"}]', 9, -32600),
        ("[]", None, -32600),
        ("42", None, -32600),
        ("[" * 50_000 + "]" * 50_000, None, -32600),
        ('{"jsonrpc":"2.0","id":12,"method":"ping","params":' + "[" * 50_000 + "]" * 50_000 + "}", None, -32600),
    ]
    for line, rid, code in cases:
        s.send(line)
        m = s.next()
        assert m["error"]["code"] == code, (line[:60], m)
        assert m["id"] == rid, (line[:60], m)
        s.request(100, "ping")
        assert s.answer(100)["result"] == {}  # still answering, and nothing else came first
    big = b"a" * (bounds.MAX_REQUEST_BYTES + 10)
    s.send(b'{"jsonrpc":"2.0","id":13,"method":"ping","params":{"x":"' + big + b'"}}')
    m = s.next()
    assert m["error"]["code"] == -32600 and "larger than" in m["error"]["message"]
    s.request(14, "tools/call", {"name": "search", "arguments": {"query": "garden plan"}})
    r = s.answer(14)["result"]
    assert not r.get("isError") and r["structuredContent"]["results"]


def test_every_surface_publishes_and_enforces_one_bound_table(raw, indexed, vault, tiny_model, server_env) -> None:
    s = raw()
    s.request(1, "tools/list")
    tools = {t["name"]: t["inputSchema"]["properties"] for t in s.answer(1)["result"]["tools"]}
    search = tools["search"]
    assert search["query"]["maxLength"] == bounds.MAX_QUERY_CHARS
    for name in ("path_globs", "tags_any", "tags_all", "where"):
        p = search[name]  # written short (ADR 0252): "type": ["array", "null"], or an anyOf
        arr = next(k for k in p["anyOf"] if k.get("type") == "array") if "anyOf" in p else p
        assert arr["maxItems"] == bounds.MAX_FILTER_ITEMS and arr["items"]["maxLength"] == bounds.MAX_PATTERN_CHARS
    assert tools["get_document"]["path"]["maxLength"] == bounds.MAX_PATH_CHARS
    from groove.daemon import protocol  # the daemon checks params against the same numbers

    protocol.check_params("search", {"query": "x" * bounds.MAX_QUERY_CHARS})
    with pytest.raises(protocol.RpcError, match="query"):
        protocol.check_params("search", {"query": "x" * (bounds.MAX_QUERY_CHARS + 1)})
    # A query over the bound is refused at once, standalone, and the server goes on.
    t0 = time.monotonic()
    s.request(2, "tools/call", {"name": "search", "arguments": {"query": "garden " * 3_000}})
    r = s.answer(2, timeout=20)["result"]
    assert r["isError"] and str(bounds.MAX_QUERY_CHARS) in r["content"][0]["text"].replace(",", "")
    s.request(4, "tools/call", {"name": "search", "arguments": {"query": "garden " * 450_000}})  # 3 M characters
    e = s.answer(4, timeout=20)["error"]  # the line is over the request bound: refused unread, with its id
    assert e["code"] == -32600 and "larger than" in e["message"]
    assert time.monotonic() - t0 < 10
    s.request(3, "tools/call", {"name": "search", "arguments": {"query": "garden"}})
    assert s.answer(3)["result"]["structuredContent"]["results"]
    # The CLI, which calls the core directly, is bounded the same.
    cli = subprocess.run([GROOVE, "search", "garden " * 2_000, "--vault", str(vault), "--index", str(indexed),
                          "--model", str(tiny_model), "--no-daemon"], env={**os.environ, **server_env},
                         capture_output=True, text=True, timeout=120)
    assert cli.returncode != 0 and "10,000" in cli.stderr, cli.stderr[-500:]


def test_a_server_whose_client_closed_stdin_stops_its_work(raw) -> None:
    s = raw()
    # The case: a huge query (here 900 k characters, under the line bound), then the client goes.
    # It is refused by the bound at once; whatever runs when stdin closes gets EOF_GRACE_S, then the process ends.
    s.request(1, "tools/call", {"name": "search", "arguments": {"query": "garden plan tomatoes " * 42_000}})
    t0 = time.monotonic()
    assert s.proc.stdin is not None
    s.proc.stdin.close()
    try:
        s.proc.wait(30)
    except subprocess.TimeoutExpired:
        pytest.fail("the server kept working 30 s after its client closed stdin")
    print(f"exited {time.monotonic() - t0:.2f} s after stdin closed")
    assert time.monotonic() - t0 < 10


SLOW_SERVER = """
import time, anyio, anyio.to_thread
from mcp.server.mcpserver import MCPServer
from groove.mcp.http import serve_stdio

mcp = MCPServer(name="slow")

@mcp.tool(name="slow")
async def slow() -> str:
    await anyio.to_thread.run_sync(time.sleep, 60)  # a call that cannot be interrupted, like a search
    return "done"

serve_stdio(mcp)
"""


def test_a_call_still_running_when_the_client_goes_gets_a_moment_then_the_process_ends(tmp_path: Path) -> None:
    import sys

    proc = subprocess.Popen([sys.executable, "-c", SLOW_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}
        proc.stdin.write((json.dumps(init) + "\n").encode())
        proc.stdin.flush()
        assert json.loads(proc.stdout.readline())["id"] == 0
        for msg in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "slow", "arguments": {}}}):
            proc.stdin.write((json.dumps(msg) + "\n").encode())
        proc.stdin.flush()
        time.sleep(1.0)  # the call is running
        t0 = time.monotonic()
        proc.stdin.close()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pytest.fail("the server kept running its call 30 s after its client closed stdin")
        assert time.monotonic() - t0 < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
