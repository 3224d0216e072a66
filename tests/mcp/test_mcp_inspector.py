"""The official MCP Inspector CLI (npm @modelcontextprotocol/inspector, --cli
mode) lists the tools of `groove mcp` and calls `search` — a second,
independent client implementation (TypeScript SDK)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from mcp_support import GROOVE, TOOLS

# Pinned so CI does not silently pick up a new major. CI installs it globally
# (`npm install -g @modelcontextprotocol/inspector@2.12.0`, which puts
# `mcp-inspector` on PATH); elsewhere npx fetches it on first use.
VERSION = "2.12.0"
INSTALLED = shutil.which("mcp-inspector")
NPX = shutil.which("npx")
COMMAND = [INSTALLED] if INSTALLED else [NPX, "-y", f"@modelcontextprotocol/inspector@{VERSION}"] if NPX else None

pytestmark = pytest.mark.skipif(COMMAND is None, reason=(
    "neither `mcp-inspector` nor npx (Node.js) is on PATH: the MCP Inspector CLI cannot run"))


def inspector(server: list[str], env: dict[str, str], *args: str) -> dict:
    # The Inspector starts the server with its own environment: pass the
    # code under test on (PYTHONPATH), and give a loaded machine time to start it.
    passed = [a for k, v in env.items() if k == "PYTHONPATH" for a in ("-e", f"{k}={v}")]
    out = subprocess.run([*COMMAND, "--cli", "--connect-timeout", "120000", *passed, *server, *args],
                         env={**os.environ, **env},
                         capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, f"inspector failed ({out.returncode}):\n{out.stdout}\n{out.stderr}"
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def server_cmd(vault: Path, tiny_model: Path, indexed: Path) -> list[str]:
    return [GROOVE, "mcp", "--vault", str(vault), "--model", str(tiny_model), "--index", str(indexed), "--standalone"]


def test_inspector_lists_the_tools(server_cmd, server_env) -> None:
    res = inspector(server_cmd, server_env, "--method", "tools/list")
    tools = {t["name"]: t for t in res["tools"]}
    assert set(tools) == TOOLS
    assert tools["search"]["annotations"]["readOnlyHint"] is True
    assert "query" in tools["search"]["inputSchema"]["required"]


def test_inspector_calls_search(server_cmd, server_env) -> None:
    res = inspector(server_cmd, server_env, "--method", "tools/call", "--tool-name", "search",
                    "--tool-arg", "query=garden plan", "--tool-arg", "limit=2")
    assert not res.get("isError"), res
    hits = res["structuredContent"]["results"]
    assert 1 <= len(hits) <= 2 and hits[0]["path"] == "Projects/Plan.md"
    assert res["content"][0]["text"].startswith(f"{len(hits)} result")
