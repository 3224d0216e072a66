"""What a huge one-line note (a pasted log, minified JSON) costs an MCP search,
as a ratio to a search whose top hit is an ordinary note (issue 50 R1).

    python bench/long_line.py [--mb 6.5] [--model PATH] [--reps 3]

A vault of two notes: ``log.md``, one line of ``--mb`` MB of common words,
and ``Garden.md``, a short ordinary note. Both searches go through the
``search`` tool of the MCP server in this process (the SDK's in-memory
client, the same tool code as over stdio: the search, then the cut to the
response budget). Before the cut was made linear, 6.5 MB took 760 s.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).parent))
from _common import scratch_dir  # noqa: E402

WORDS = ["apple", "river", "status", "entry", "value", "ok", "mill", "garden", "note", "token", "request", "user"]


def make_vault(root: Path, mb: float) -> Path:
    rng = random.Random(50)
    words, size = ["onelinetoken"], 0
    while size < mb * 1_000_000:
        w = rng.choice(WORDS)
        words.append(w)
        size += len(w) + 1
    (root / "log.md").write_text(" ".join(words) + "\n", encoding="utf-8")
    (root / "Garden.md").write_text("# Garden\n\nThe orchard by the mill: pears, plums, a quince.\n",
                                    encoding="utf-8")
    return root


async def run(vault: Path, index: Path, model: str | None, reps: int) -> dict[str, list[float]]:
    from mcp.client import Client

    from groove.mcp import ServerOptions, build_server

    opts = ServerOptions(vault=vault, index_path=index, model=model, attach=False)
    times: dict[str, list[float]] = {"ordinary": [], "long line": []}
    queries = {"ordinary": "pears plums quince orchard", "long line": "onelinetoken apple river"}
    async with Client(build_server(opts), mode="legacy") as client:
        s = client.session
        for q in queries.values():
            await s.call_tool("search", {"query": q, "limit": 5})  # warm-up
        for _ in range(reps):
            for name, q in queries.items():  # interleaved: load affects both alike
                t0 = time.perf_counter()
                r = await s.call_tool("search", {"query": q, "limit": 5})
                times[name].append(time.perf_counter() - t0)
                assert not r.is_error, r
                if name == "long line":
                    top = r.structured_content["results"][0]
                    assert top["path"] == "log.md" and top["content_truncated"], top["path"]
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=6.5)
    ap.add_argument("--model", default=None, help="embedding model (default: groove's default)")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()

    from groove import operations
    from groove.runtime import open_runtime

    tmp = scratch_dir("groove-long-line-")
    (tmp / "vault").mkdir()
    vault = make_vault(tmp / "vault", args.mb)
    index = tmp / "index.sqlite"
    rt = open_runtime(vault, index_path=index, model=args.model)
    t0 = time.perf_counter()
    operations.reindex(rt)
    print(f"indexed {args.mb} MB one-line note + 1 ordinary note in {time.perf_counter() - t0:.1f}s")
    rt.close()

    times = anyio.run(run, vault, index, args.model, args.reps)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"MCP search, median of {args.reps}: ordinary note {med['ordinary'] * 1000:.0f} ms, "
          f"{args.mb} MB one-line note {med['long line'] * 1000:.0f} ms")
    print(f"ratio long line / ordinary: {med['long line'] / med['ordinary']:.1f}x")


if __name__ == "__main__":
    main()
