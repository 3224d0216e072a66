"""MCP protocol overhead: a `search` tool call round-trip over stdio and over
Streamable HTTP (the SDK's own clients, a real `groove mcp` subprocess),
relative to the same search called in-process. Goal: <= 1.2x.

    python bench/mcp_latency.py --vault ../shared/eval/vault-en [--model PATH] [--index PATH] [--reps 5]

Every query is run once first (warm-up: model load, page cache), then the
median over ``reps`` rounds of all queries is reported, per transport.
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


def bench_inprocess(vault: Path, index: Path | None, model: str | None, reps: int) -> tuple[float, dict]:
    import groove.pipeline  # noqa: F401
    from groove import service
    from groove.pipeline import SearchParams
    from groove.runtime import open_runtime

    rt = open_runtime(vault, index_path=index, model=model)
    if rt.index.counts()[0] == 0:
        print("indexing (first run)…", file=sys.stderr)
        service.reindex(rt)
    for q in QUERIES:
        service.search(rt, SearchParams(query=q, limit=10), max_limit=50)
    times = []
    for _ in range(reps):
        for q in QUERIES:
            t0 = time.perf_counter()
            service.search(rt, SearchParams(query=q, limit=10), max_limit=50)
            times.append(time.perf_counter() - t0)
    st = service.index_status(rt)
    rt.close()
    return median_ms(times), st


async def _time_session(session, reps: int) -> float:
    for q in QUERIES:
        r = await session.call_tool("search", {"query": q, "limit": 10})
        assert not r.is_error, r.content
    times = []
    for _ in range(reps):
        for q in QUERIES:
            t0 = time.perf_counter()
            await session.call_tool("search", {"query": q, "limit": 10})
            times.append(time.perf_counter() - t0)
    return median_ms(times)


def bench_stdio(args: list[str], env: dict, reps: int) -> float:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def go() -> float:
        params = StdioServerParameters(command=GROOVE, args=["mcp", *args], env=env)
        with open(os.devnull, "w") as err:
            async with stdio_client(params, errlog=err) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    return await _time_session(s, reps)

    return anyio.run(go)


def bench_http(args: list[str], env: dict, reps: int) -> float:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    log = tempfile.NamedTemporaryFile("w+", suffix=".log", delete=False)
    proc = subprocess.Popen([GROOVE, "mcp", "--http", "--port", "0", *args], env={**os.environ, **env},
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    try:
        url = None
        for _ in range(1200):
            m = re.search(r"at (http://\S+/mcp)", Path(log.name).read_text())
            if m:
                url = m.group(1)
                break
            if proc.poll() is not None:
                raise SystemExit(f"groove mcp --http exited: {Path(log.name).read_text()}")
            time.sleep(0.05)
        assert url, "no URL printed"

        async def go() -> float:
            async with streamable_http_client(url) as (r, w):
                async with ClientSession(r, w) as s:
                    await s.initialize()
                    return await _time_session(s, reps)

        return anyio.run(go)
    finally:
        proc.terminate()
        proc.wait(10)
        os.unlink(log.name)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vault", type=Path, default=Path(__file__).resolve().parents[2] / "shared/eval/vault-en")
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--model", default=None, help="GGUF path or known name (default: the default model)")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    env = {k: v for k, v in os.environ.items() if k.startswith("GROOVE_")}
    inproc, st = bench_inprocess(a.vault, a.index, a.model, a.reps)
    args = ["--vault", str(a.vault), "--standalone"]
    if a.index:
        args += ["--index", str(a.index)]
    if a.model:
        args += ["--model", a.model]
    stdio = bench_stdio(args, env, a.reps)
    http = bench_http(args, env, a.reps)
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
