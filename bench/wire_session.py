"""The bytes one fixed session puts on the wire, socket and MCP, to compare two trees.

    PYTHONPATH=<tree>/backend python bench/wire_session.py --out FILE
    diff before.jsonl after.jsonl        # a refactor keeps every byte (issue 51)

Copies ``tests/fixtures/vault-small`` into a scratch folder, indexes it with
the default model under a private ``GROOVE_HOME``, starts ``groove serve``
and sends a fixed list of JSON-RPC lines over its socket: searches in
several forms (filters, CJK, exclusions, pages, MMR, parent, explain),
every read and browse method, and malformed or wrong requests. Then it runs
``groove mcp --standalone`` over stdio and sends ``initialize``,
``tools/list`` and a call of each read tool. Every answer is written as
received, one line per exchange, after masking only what differs from run
to run: the scratch folder and the vault key made of it, timings, pids, tokens,
file times.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import scratch_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VAULT = ROOT / "tests" / "fixtures" / "vault-small"

SOCKET_REQUESTS: list[Any] = [
    {"method": "search", "params": {"query": "sync my notes between devices"}},
    {"method": "search", "params": {"query": "bread", "limit": 3, "tags_any": ["daily"]}},
    {"method": "search", "params": {"query": "coffee -garden", "answer_spans": False}},
    {"method": "search", "params": {"query": "東京 猫"}},
    {"method": "search", "params": {"query": "\"sourdough starter\""}},
    {"method": "search", "params": {"query": "notes", "path_globs": ["journal/**"]}},
    {"method": "search", "params": {"query": "plans for the garden", "mmr": True, "parent_retriever": True}},
    {"method": "search", "params": {"query": "coffee", "explain": True, "limit": 2}},
    {"method": "search", "params": {"query": "zzqx unknownword"}},
    {"method": "get_document", "params": {"path": "Garden.md"}},
    {"method": "get_document", "params": {"path": "Bread recipe.md", "line_start": 1, "line_end": 4}},
    {"method": "search", "params": {"query": "coffee", "date_from": "2026-01-01", "answer_spans": True}},
    {"method": "related_notes", "params": {"path": "Sync.md"}},
    {"method": "unlinked_connections", "params": {"path": "Coffee.md"}},
    {"method": "resolve_link", "params": {"link": "Garden", "from_path": "Projects.md"}},
    {"method": "list_notes", "params": {"limit": 5}},
    {"method": "recent_notes", "params": {"limit": 3}},
    {"method": "list_tags", "params": {}},
    {"method": "index_status", "params": {}},
    {"method": "search", "params": {"query": "coffee", "limt": 1}},
    {"method": "no_such_method", "params": {}},
    {"method": "get_document", "params": {"path": "../outside.md"}},
    "{this is not json",
]

MCP_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("search", {"query": "sync my notes between devices"}),
    ("search", {"query": "東京", "limit": 2}),
    ("get_document", {"path": "Garden.md"}),
    ("related_notes", {"path": "Sync.md"}),
    ("list_notes", {}),
    ("list_tags", {}),
    ("unlinked_connections", {"path": "Coffee.md"}),
    ("search", {"query": "coffee", "limit": 500}),
]

# Values that differ by run, not by code: masked wherever they appear.
_VOLATILE_KEYS = {"took_ms", "elapsed_ms", "ms", "seconds", "pid", "token", "started_at", "modified", "mtime",
                  "mtime_ns", "last_indexed", "indexed_at", "updated_at", "server_version", "timings", "age_s",
                  "last_run", "uptime_s"}


def _mask(value: Any, scratch: str) -> Any:
    if isinstance(value, dict):
        return {k: ("<masked>" if k in _VOLATILE_KEYS or k.endswith(("_ms", "_seconds")) else _mask(v, scratch))
                for k, v in value.items()}
    if isinstance(value, list):
        return [_mask(v, scratch) for v in value]
    if isinstance(value, str):
        text = re.sub(r"vault-[0-9a-f]{12}", "vault-<key>", value.replace(scratch, "<scratch>"))  # key: of the path
        text = re.sub(r"\b\d+(\.\d+)? ?ms\b", "<ms>", text)
        return re.sub(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?", "<time>", text)
    return value


def _line(obj: Any, scratch: str) -> str:
    return json.dumps(_mask(obj, scratch), ensure_ascii=False, sort_keys=True)


def _groove(*args: str, env: dict[str, str], **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "groove", *args], env=env, text=True, capture_output=True,
                          check=True, **kw)


def socket_session(vault: Path, env: dict[str, str], scratch: str) -> list[str]:
    info = json.loads(_groove("connect-info", "--start", "--vault", str(vault), env=env).stdout)
    out = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.connect(info["address"])
        f = s.makefile("rwb")

        def send(raw: str) -> str:
            f.write(raw.encode() + b"\n")
            f.flush()
            while True:
                got = json.loads(f.readline())
                if "id" in got:  # notifications (index.changed) are not part of the comparison
                    return _line(got, scratch)

        hello = {"jsonrpc": "2.0", "id": 0, "method": "hello", "params": {"token": info["token"], "client": "wire"}}
        out.append("hello " + send(json.dumps(hello)))
        for i, req in enumerate(SOCKET_REQUESTS, 1):
            raw = req if isinstance(req, str) else json.dumps({"jsonrpc": "2.0", "id": i, **req}, ensure_ascii=False)
            out.append(f"socket {raw} -> {send(raw)}")
    _groove("serve", "--stop", "--vault", str(vault), env=env)
    return out


def mcp_session(vault: Path, env: dict[str, str], scratch: str) -> list[str]:
    proc = subprocess.Popen([sys.executable, "-m", "groove", "mcp", "--standalone", "--vault", str(vault)],
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdin is not None and proc.stdout is not None
    out = []
    n = 0

    def rpc(method: str, params: dict[str, Any] | None = None, notify: bool = False) -> Any:
        nonlocal n
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notify:
            n += 1
            msg["id"] = n
        proc.stdin.write(json.dumps(msg, ensure_ascii=False).encode() + b"\n")  # type-checked above
        proc.stdin.flush()
        while not notify:
            got = json.loads(proc.stdout.readline())
            if got.get("id") == n:
                return got
        return None

    init = rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "wire", "version": "1"}})
    out.append("mcp initialize -> " + _line(init, scratch))
    rpc("notifications/initialized", notify=True)
    out.append("mcp tools/list -> " + _line(rpc("tools/list"), scratch))
    for name, args in MCP_CALLS:
        got = rpc("tools/call", {"name": name, "arguments": args})
        out.append(f"mcp {name} {json.dumps(args, ensure_ascii=False)} -> {_line(got, scratch)}")
    proc.stdin.close()
    proc.wait(timeout=60)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    scratch = scratch_dir("groove-wire-")
    vault = scratch / "vault"
    shutil.copytree(VAULT, vault)
    for i, p in enumerate(sorted(vault.rglob("*.md"))):  # file times fixed: listings sort by them
        os.utime(p, ns=(1_700_000_000_000_000_000 + i * 10**9,) * 2)
    env = {**os.environ, "GROOVE_HOME": str(scratch / "home")}
    _groove("index", str(vault), env=env)
    t = time.perf_counter()
    lines = socket_session(vault, env, str(scratch)) + mcp_session(vault, env, str(scratch))
    args.out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(lines)} exchanges in {time.perf_counter() - t:.1f}s -> {args.out}")


if __name__ == "__main__":
    main()
