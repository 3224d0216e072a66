"""Resident memory of groove's processes, side by side with llama-cpp-python's
own context settings (ADR 0096) and with the model's full vocabulary loaded
in llama.cpp (ADR 0125).

    python bench/memory.py [--vault PATH] [--notes 60]

For each of three configurations, in fresh processes with an isolated
GROOVE_HOME, on a copy of (part of) the eval vault:

- ``baseline``: what ``Llama(embedding=True)`` does by itself: a context for
  256 sequences, and the output buffer a long passage grew kept for life;
- ``full vocab``: groove's embedder with the model's vocabulary in llama.cpp
  (one-sequence context, a fresh context after long decodes; what models
  that cannot run lean get);
- ``groove``: the embedder as shipped: the lean model (ADR 0125).

The default model and its lean files are prepared once, before measuring,
in a models folder the three share.

it prints the peak RSS of ``groove index``, of one in-process ``groove
search``, of a standalone ``groove mcp`` (stdio, the MCP SDK's client) over
six searches, and the RSS of a
``groove serve`` daemon after a dozen searches over the socket, then the
ratios groove / baseline and groove / full vocab for each. Without ../shared it uses the bundled
sample vault.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, scratch_dir, vault_subset  # noqa: E402

# Put back llama-cpp-python's defaults: n_seq_max = min(n_batch, 256), and no
# context swap after long decodes.
FULL_VOCAB = """
import os
os.environ["GROOVE_LEAN_MODEL"] = "0"
"""
BASELINE = FULL_VOCAB + """
import groove.models.llama_embedder as le
le.KEEP_OUTPUT_ROWS = 10**9
_open = le.open_llama_within_training_context
def _defaults(path, n_ctx, **kw):
    kw["n_seq_max"] = None
    return _open(path, n_ctx, **kw)
le.open_llama_within_training_context = _defaults
"""

# Runs a groove entry point and writes the process's peak RSS (MB) to a file.
LAUNCH = """
import atexit, os, runpy, sys
{patch}
def _peak():
    # VmHWM, not ru_maxrss: Linux carries ru_maxrss across exec, so a child
    # would report at least its parent's size at the fork.
    hwm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
    with open(os.environ["GROOVE_BENCH_PEAK"], "w") as f:
        f.write(str(hwm / 1024))
atexit.register(_peak)
sys.argv = ["groove"] + {argv!r}
if {module!r} == "groove.cli":
    from groove.cli import main
    main()
else:
    runpy.run_module({module!r}, run_name="__main__")
"""

QUERIES = [
    "how do I keep my notes in sync between my phone and my computer",
    "keyboard shortcut for a command",
    "embed a YouTube video",
    "canvas -sync",
    "同期の設定",
    "what happens to my files when two devices edit the same note at the same time, and how are "
    "conflicting copies named, merged or resolved by the sync service and the desktop app " * 2,
]


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return float("nan")


def launch(patch: str, module: str, argv: list[str], peak_file: Path, **kw) -> subprocess.Popen:
    env = dict(os.environ, GROOVE_BENCH_PEAK=str(peak_file))
    code = LAUNCH.format(patch=patch, module=module, argv=argv)
    return subprocess.Popen([sys.executable, "-c", code], env=env, stdin=subprocess.DEVNULL, **kw)


def mcp_peak(patch: str, vault: Path, peak_file: Path) -> float:
    """A standalone ``groove mcp`` over stdio, driven by the MCP SDK's client."""
    import asyncio

    from mcp.client.stdio import stdio_client

    from mcp import ClientSession, StdioServerParameters

    code = LAUNCH.format(patch=patch, module="groove.cli", argv=["mcp", "--vault", str(vault)])
    params = StdioServerParameters(command=sys.executable, args=["-c", code],
                                   env=dict(os.environ, GROOVE_BENCH_PEAK=str(peak_file)))

    async def run() -> None:
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            for q in QUERIES:
                await s.call_tool("search", {"query": q})

    asyncio.run(run())
    for _ in range(100):  # the server writes its peak as it exits
        if peak_file.is_file() and peak_file.read_text():
            break
        time.sleep(0.1)
    return float(peak_file.read_text())


def measure(name: str, patch: str, src: Path, notes: int | None, root: Path) -> dict[str, float]:
    home = root / name
    os.environ["GROOVE_HOME"] = str(home / "home")
    vault = vault_subset(src, home / "vault", notes)
    out: dict[str, float] = {}

    peak = home / "index.peak"
    p = launch(patch, "groove.cli", ["index", str(vault)], peak, stdout=subprocess.DEVNULL)
    assert p.wait(timeout=3600) == 0, "groove index failed"
    out["groove index (peak)"] = float(peak.read_text())

    peak = home / "search.peak"
    p = launch(patch, "groove.cli", ["search", "--vault", str(vault), QUERIES[0]], peak, stdout=subprocess.DEVNULL)
    assert p.wait(timeout=600) == 0, "groove search failed"
    out["in-process search (peak)"] = float(peak.read_text())

    peak = home / "mcp.peak"
    out["groove mcp, 6 searches (peak)"] = mcp_peak(patch, vault, peak)

    from groove.daemon import discovery
    from groove.daemon.client import DaemonClient

    log = open(home / "daemon.log", "ab")
    proc = launch(patch, "groove.daemon", ["--vault", str(vault)], home / "serve.peak", stdout=log, stderr=log)
    try:
        info = discovery.wait_ready(vault, timeout=300, proc=proc)
        with DaemonClient.connect(info, client="bench-memory") as c:
            while c.index_status()["indexing"]:
                time.sleep(0.2)
            out["serve, idle"] = rss_mb(proc.pid)
            for _ in range(2):
                for q in QUERIES:
                    c.search(q)
            out["serve, after 12 searches"] = rss_mb(proc.pid)
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=60, help="notes copied from the vault (0: all)")
    a = ap.parse_args()
    src = a.vault
    if not src.is_dir():
        src = Path(__file__).resolve().parents[1] / "backend" / "groove" / "sample_vault"
        print(f"{a.vault} not found; using the bundled sample vault")
    os.environ.setdefault("GROOVE_TOKEN_STORE", "file")
    root = scratch_dir("groove-mem-")
    os.environ["GROOVE_MODELS_DIR"] = str(root / "models")
    from groove.models.e5_convert import ensure_default_model
    from groove.models.lean_model import lean_parts

    assert lean_parts(ensure_default_model())[0] is not None
    base = measure("baseline", BASELINE, src, a.notes or None, root)
    full = measure("full", FULL_VOCAB, src, a.notes or None, root)
    ours = measure("groove", "", src, a.notes or None, root)
    print(f"{'RSS, MB':28} {'baseline':>9} {'full vocab':>10} {'groove':>7} {'/base':>6} {'/full':>6}")
    for k in base:
        print(f"{k:28} {base[k]:9.0f} {full[k]:10.0f} {ours[k]:7.0f} {ours[k] / base[k]:6.2f} {ours[k] / full[k]:6.2f}")
    print(json.dumps({"baseline": base, "full vocab": full, "groove": ours}))


if __name__ == "__main__":
    main()
