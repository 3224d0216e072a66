"""MCP protocol overhead: a `search` tool call round-trip over stdio and over
Streamable HTTP (the SDK's own clients, a real `groove mcp` subprocess),
relative to the same search called in-process. Goal: <= 1.2x.

    python bench/mcp_latency.py --vault ../shared/eval/vault-en [--model PATH] [--index PATH] [--reps 5]

Every query is run once first (warm-up: model load, page cache), then the
median over ``reps`` rounds of all queries is reported, per transport. The
three are interleaved query by query, so machine load affects them alike.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

QUERIES = [
    "how do I keep notes in sync between my phone and my computer",
    "link to a heading in another note",
    "embed an image",
    '"daily notes" template',
    "keyboard shortcuts -mobile",
    "同期の競合を解決する",
    "publish a site with a custom domain",
    "search operators",
]
GROOVE = str(Path(sys.executable).with_name("groove"))


def median_ms(xs: list[float]) -> float:
    return statistics.median(xs) * 1000


def open_runtime_warm(vault: Path, index: Path | None, model: str | None):
    from groove import operations
    from groove.runtime import open_runtime

    rt = open_runtime(vault, index_path=index, model=model)
    if rt.index.counts()[0] == 0:
        print("indexing (first run)…", file=sys.stderr)
        operations.reindex(rt)
    return rt


def start_http(args: list[str], env: dict) -> tuple[subprocess.Popen, str, str]:
    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    proc = subprocess.Popen([GROOVE, "mcp", "--http", "--port", "0", *args], env={**os.environ, **env},
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    for _ in range(2400):
        m = re.search(r"at (http://\S+/mcp)", Path(log.name).read_text())
        if m:
            return proc, m.group(1), log.name
        if proc.poll() is not None:
            raise SystemExit(f"groove mcp --http exited: {Path(log.name).read_text()}")
        time.sleep(0.05)
    raise SystemExit("groove mcp --http printed no URL")


def run_interleaved(rt, args: list[str], env: dict, url: str, reps: int) -> dict[str, float]:
    """Each query in-process, then over stdio, then over HTTP, back to back:
    a busy machine slows all three alike instead of skewing one of them."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    from groove import operations
    from groove.pipeline import SearchParams

    async def go() -> dict[str, float]:
        params = StdioServerParameters(command=GROOVE, args=["mcp", *args], env=env)
        with open(os.devnull, "w") as err:
            async with stdio_client(params, errlog=err) as (r1, w1), ClientSession(r1, w1) as stdio, \
                    streamable_http_client(url) as (r2, w2), ClientSession(r2, w2) as http:
                await stdio.initialize()
                await http.initialize()
                times: dict[str, list[float]] = {"inprocess": [], "stdio": [], "http": []}
                for rnd in range(reps + 1):  # round 0 warms up (model load, caches)
                    for q in QUERIES:
                        t0 = time.perf_counter()
                        operations.search(rt, SearchParams(query=q, limit=10), max_limit=50)
                        t1 = time.perf_counter()
                        a = await stdio.call_tool("search", {"query": q, "limit": 10})
                        t2 = time.perf_counter()
                        b = await http.call_tool("search", {"query": q, "limit": 10})
                        t3 = time.perf_counter()
                        assert not a.is_error and not b.is_error, (a.content, b.content)
                        if rnd:
                            times["inprocess"].append(t1 - t0)
                            times["stdio"].append(t2 - t1)
                            times["http"].append(t3 - t2)
                return {k: median_ms(v) for k, v in times.items()}

    return anyio.run(go)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vault", type=Path, default=Path(__file__).resolve().parents[2] / "shared/eval/vault-en")
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--model", default=None, help="GGUF path or known name (default: the default model)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    env = {k: v for k, v in os.environ.items() if k.startswith("GROOVE_")}
    rt = open_runtime_warm(a.vault, a.index, a.model)
    from groove import operations

    st = operations.index_status(rt)
    args = ["--vault", str(a.vault), "--standalone"]
    if a.index:
        args += ["--index", str(a.index)]
    if a.model:
        args += ["--model", a.model]
    proc, url, log = start_http(args, env)
    try:
        m = run_interleaved(rt, args, env, url, a.reps)
    finally:
        proc.terminate()
        proc.wait(10)
        os.unlink(log)
    inproc, stdio, http = m["inprocess"], m["stdio"], m["http"]
    out = {
        "vault": str(a.vault), "documents": st["documents"], "chunks": st["chunks"], "model": st["model"],
        "queries": len(QUERIES), "reps": a.reps,
        "inprocess_ms": round(inproc, 2), "stdio_ms": round(stdio, 2), "http_ms": round(http, 2),
        "stdio_ratio": round(stdio / inproc, 3), "http_ratio": round(http / inproc, 3),
        "stdio_overhead_ms": round(stdio - inproc, 2), "http_overhead_ms": round(http - inproc, 2),
    }
    if a.json:
        print(json.dumps(out, indent=2))
        return
    print(f"{out['documents']} notes, {out['chunks']} chunks, model {out['model']}; "
          f"median of {a.reps} x {len(QUERIES)} searches (limit 10)")
    print(f"  in-process   {inproc:8.2f} ms")
    print(f"  MCP stdio    {stdio:8.2f} ms   {out['stdio_ratio']:.2f}x  (+{out['stdio_overhead_ms']:.2f} ms)")
    print(f"  MCP HTTP     {http:8.2f} ms   {out['http_ratio']:.2f}x  (+{out['http_overhead_ms']:.2f} ms)")
    print("  goal: <= 1.20x")


if __name__ == "__main__":
    main()
