"""Fuzzed tool calls through the official MCP client (issue 15): every call
gets a result, a caller's mistake is a tool error that says what to fix,
nothing is an internal error, and the server keeps serving. Arguments are
drawn from each tool's published input schema (right and wrong types, edge
values, unknown names) and from the socket fuzzer's queries and paths.
GROOVE_MCP_FUZZ_N scales it."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_support import SyncSession, inproc_session, text_of

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzzing import PIECES, WORDS, fuzz_query  # noqa: E402

N = int(os.environ.get("GROOVE_MCP_FUZZ_N", "300"))
SKIP = {"reindex"}  # rebuilds the index: its arguments have their own tests
PATHS = ["Plan.md", "Plan", "notes/Plan.md", "../x.md", "/etc/passwd", "", "\x00.md", "a" * 5000, "%2e%2e/x.md",
         "groove://note/Plan.md", "Garden.md#Soil", "ノート.md"]


def _junk(rng: random.Random) -> Any:
    return rng.choice([None, True, -1, 0, 2**70, 1.5, "", "x" * 3000, [], {}, ["a", 1], {"a": 1},
                       "yes", "5", _utf8(rng.choice(PIECES))])


def _value(rng: random.Random, name: str, schema: dict[str, Any]) -> Any:
    if rng.random() < 0.2:
        return _junk(rng)
    types = schema.get("type") or [t.get("type") for t in schema.get("anyOf", []) if t.get("type") != "null"]
    kind = types if isinstance(types, str) else (types[0] if types else "string")
    if kind == "integer":
        lo, hi = schema.get("minimum", -3), schema.get("maximum", 10**6)
        return rng.choice([lo, hi, rng.randint(lo, min(hi, lo + 100)), hi + 1, lo - 1])
    if kind == "number":
        return rng.choice([0.0, 0.5, 1.0, -0.1, 1.1])
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array":
        return [_value(rng, name, schema.get("items", {"type": "string"})) for _ in range(rng.randint(0, 4))]
    if "path" in name or name in ("folder", "glob"):
        return rng.choice(PATHS)
    return _utf8(fuzz_query(rng)[:2000]) if rng.random() < 0.7 else rng.choice(WORDS)


def _utf8(text: str) -> str:
    """The SDK client cannot send a lone surrogate (it writes UTF-8); the raw
    stdio test sends those."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _args(rng: random.Random, schema: dict[str, Any]) -> dict[str, Any]:
    props: dict[str, Any] = schema.get("properties", {})
    args = {k: _value(rng, k, v) for k, v in props.items() if k in schema.get("required", []) or rng.random() < 0.4}
    if rng.random() < 0.05:
        args[rng.choice(["extra", "Query", "limit "])] = _junk(rng)
    return args


@pytest.fixture(scope="module")
def s(vault: Path, tiny_model: Path, indexed: Path, server_env, tmp_path_factory):
    errlog = tmp_path_factory.mktemp("fuzz-log") / "server-stderr.log"
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(indexed), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, errlog))
    sess.errlog = errlog
    yield sess
    sess.close()


def test_fuzzed_tool_calls_are_answered_and_none_is_an_internal_error(s) -> None:
    tools = {t.name: t.input_schema for t in s.list_tools().tools if t.name not in SKIP}
    rng = random.Random(11)
    errors = ok = 0
    internal: list[str] = []
    for _ in range(N):
        name = rng.choice(sorted(tools))
        args = _args(rng, tools[name])
        r = s.call(name, args)
        text = text_of(r)
        if r.is_error:
            errors += 1
            if "internal error" in text or "Traceback" in text:
                internal.append(f"{name} {str(args)[:300]} -> {text[:300]}")
        else:
            ok += 1
    print(f"mcp fuzz: {N} calls, {ok} results, {errors} tool errors")
    assert not internal, "\n".join(internal[:5])
    assert ok > N * 0.2 and errors > N * 0.2  # both paths were exercised
    good = s.call("search", {"query": "garden", "limit": 1})
    assert not good.is_error and good.structured_content["results"]
    log = s.errlog.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log[log.find("Traceback"):][:3000]


@pytest.mark.parametrize("args", [
    '{"query": "\\ud800 garden"}', '{"query": "garden", "path_globs": ["\\udc80"]}', '{"\\ud800": 1, "query": "x"}',
])
def test_a_lone_surrogate_in_tool_arguments_gets_one_answer(vault, tiny_model, indexed, server_env, args) -> None:
    """What the SDK client cannot send (it writes UTF-8), a raw stdio client
    can: JSON may escape a lone surrogate. The server answers it and goes on."""
    import json
    import select
    import subprocess

    from mcp_support import GROOVE

    proc = subprocess.Popen([GROOVE, "mcp", "--vault", str(vault), "--model", str(tiny_model), "--index",
                             str(indexed), "--standalone"], env=server_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}
        lines = [json.dumps(init), '{"jsonrpc": "2.0", "method": "notifications/initialized"}',
                 '{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "search", "arguments": '
                 + args + "}}",
                 '{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}']
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
        got: dict[int, dict] = {}
        buf = b""
        while len(got) < 3:
            ready, _, _ = select.select([proc.stdout], [], [], 60)
            assert ready, f"no answer; got {sorted(got)}"
            chunk = proc.stdout.read1(65536)
            assert chunk, f"server closed stdout; got {sorted(got)}"
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if "id" in msg:
                    got[msg["id"]] = msg
        answer = got[2]
        text = json.dumps(answer)
        assert "internal error" not in text and "Traceback" not in text, text[:500]
        assert "result" in got[3] and got[3]["result"]["tools"]
    finally:
        proc.kill()
        proc.wait(10)
