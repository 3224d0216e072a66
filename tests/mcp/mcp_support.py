"""Drive `groove mcp` with the official SDK's clients: in this process over
the SDK's in-memory transport (most tests), and end to end over stdio and
Streamable HTTP (a few per transport)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

GROOVE = str(Path(sys.executable).with_name("groove"))
TOOLS = {"search", "get_document", "get_documents", "related_notes", "resolve_link", "index_status", "reindex",
         "list_notes", "recent_notes", "list_tags", "unlinked_connections"}


def groove_index(vault: Path, index: Path, model: Path | str, env: dict[str, str]) -> dict[str, Any]:
    """Build the index with the real CLI, the same way a user would."""
    out = subprocess.run(
        [GROOVE, "index", str(vault), "--index", str(index), "--model", str(model), "--json"],
        env={**os.environ, **env}, capture_output=True, text=True, timeout=600,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@asynccontextmanager
async def stdio_session(args: list[str], env: dict[str, str], errlog: Path) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=GROOVE, args=["mcp", *args], env=env)
    with open(errlog, "a", encoding="utf-8") as err:
        async with stdio_client(params, errlog=err) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                yield s


@asynccontextmanager
async def inproc_session(args: list[str], errlog: Path) -> AsyncIterator[ClientSession]:
    """`groove mcp ARGS` built in this process by the same ``build_server``
    and driven through the SDK's in-memory transport: the initialize
    handshake and every JSON-RPC message as over stdio, without starting a
    process. The server's log (tracebacks included) goes to ``errlog``."""
    from mcp.client import Client

    from groove.mcp import ServerOptions, build_server

    flags = dict(zip(args[::2], args[1::2]))
    opts = ServerOptions(vault=Path(flags["--vault"]), index_path=Path(flags["--index"]) if "--index" in flags
                         else None, model=flags.get("--model"), attach="--standalone" not in args)
    handler = logging.FileHandler(errlog, encoding="utf-8")
    logger = logging.getLogger("groove")
    logger.addHandler(handler)
    try:
        async with Client(build_server(opts), mode="legacy") as client:
            yield client.session
    finally:
        logger.removeHandler(handler)
        handler.close()


@asynccontextmanager
async def http_session(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    client = httpx2.AsyncClient(headers=headers or {}, timeout=httpx2.Timeout(60.0, read=300.0))
    async with client:
        async with streamable_http_client(url, http_client=client) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                yield s


class HttpServer:
    """`groove mcp --http --port 0` as a subprocess; ``url`` from its stderr."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log
        self._err = open(log, "w", encoding="utf-8")
        self.proc = subprocess.Popen([GROOVE, "mcp", "--http", "--port", "0", *args],
                                     env={**os.environ, **env}, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self._err)
        self.url = self._wait_url()

    def _wait_url(self, timeout: float = 60.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            m = re.search(r"at (http://\S+/mcp)", self.log.read_text(encoding="utf-8"))
            if m:
                return m.group(1)
            if self.proc.poll() is not None:
                raise RuntimeError(f"groove mcp --http exited {self.proc.returncode}: {self.log.read_text()}")
            time.sleep(0.05)
        raise TimeoutError(f"groove mcp --http printed no URL in {timeout}s: {self.log.read_text()}")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self._err.close()


def text_of(result: Any) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


class SyncSession:
    """One MCP client session kept open across tests: the SDK's async client
    runs on an event loop in a helper thread (an anyio blocking portal), and
    tests call it synchronously. Saves a server start per test."""

    def __init__(self, cm_factory: Any) -> None:
        from anyio.from_thread import start_blocking_portal

        self._portal_cm = start_blocking_portal()
        self.portal = self._portal_cm.__enter__()
        self._session_cm = self.portal.wrap_async_context_manager(cm_factory())
        self.session: ClientSession = self._session_cm.__enter__()

    def call(self, name: str, args: dict[str, Any] | None = None, **kw: Any) -> Any:
        return self.portal.call(lambda: self.session.call_tool(name, args or {}, **kw))

    def __getattr__(self, name: str) -> Any:
        fn = getattr(self.session, name)
        return lambda *a, **kw: self.portal.call(lambda: fn(*a, **kw))

    def close(self) -> None:
        try:
            self._session_cm.__exit__(None, None, None)
        finally:
            self._portal_cm.__exit__(None, None, None)
