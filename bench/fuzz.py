"""Fuzzed requests against a real daemon with the default model: how many
got no answer, how many were internal errors, and how long searches took
beyond embedding their query (issue 15: 0, 0, p99 <= 1 s).

    python bench/fuzz.py [--n 10000] [--clients 4] [--vault PATH] [--seed 1]

The lines come from tests/fuzzing.py (also run, smaller, by the suite). For
the slowest 1 % of searches the query is embedded again in this process and
the search's time minus that embedding is reported: a long query costs its
embedding (up to 512 tokens) and the rest must stay bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "bench"))

from _common import EVAL, default_embedder  # noqa: E402
from fuzzing import Tally, run_fuzz  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10_000, help="lines in all")
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if not a.vault.is_dir():
        sys.exit(f"no vault at {a.vault} (pass --vault)")
    from groove.daemon import discovery

    home = Path(tempfile.mkdtemp(prefix="fz-", dir="/tmp"))
    env = {**os.environ, "GROOVE_HOME": str(home), "GROOVE_TOKEN_STORE": "file"}
    os.environ.update(GROOVE_HOME=str(home), GROOVE_TOKEN_STORE="file")
    log = home / "daemon.log"
    with open(log, "wb") as f:
        proc = subprocess.Popen([sys.executable, "-m", "groove.daemon", "--vault", str(a.vault), "--foreground"],
                                env=env, stdin=subprocess.DEVNULL, stdout=f, stderr=f)
    try:
        info = discovery.wait_ready(a.vault, timeout=600, proc=proc)
        from groove.daemon.client import DaemonClient

        with DaemonClient.connect(info) as c:
            while c.index_status()["indexing"]:
                time.sleep(0.5)
        tallies: list[Tally] = [Tally() for _ in range(a.clients)]
        per = a.n // a.clients

        def one(i: int) -> None:
            tallies[i] = run_fuzz(info, per, seed=a.seed * 1000 + i)

        t0 = time.perf_counter()
        threads = [threading.Thread(target=one, args=(i,)) for i in range(a.clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        alive = proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(30)
    sent = sum(t.sent for t in tallies)
    unanswered = [u for t in tallies for u in t.unanswered]
    internal = [x for t in tallies for x in t.internal]
    codes: dict[int, int] = {}
    for t in tallies:
        for k, v in t.by_code.items():
            codes[k] = codes.get(k, 0) + v
    ms = sorted(m for t in tallies for m in t.search_ms)
    q = statistics.quantiles(ms, n=100) if len(ms) > 100 else [0.0] * 99
    print(f"{sent} lines on {a.clients} connections in {wall:.0f} s; daemon alive: {alive}")
    print(f"unanswered: {len(unanswered)}; internal errors: {len(internal)}; "
          f"error codes: {dict(sorted(codes.items()))}")
    print(f"searches answered: {len(ms)}; p50 {q[49]:.0f} ms, p99 {q[98]:.0f} ms, max {ms[-1] if ms else 0:.0f} ms "
          f"(with {a.clients} connections at once on this machine)")
    for x in (unanswered + internal)[:10]:
        print("  ", x[:300])

    # The slowest 1 %: how much of each was the query's embedding?
    slow = sorted((s for t in tallies for s in t.slow), reverse=True)[: max(1, len(ms) // 100)]
    emb = default_embedder()
    beyond = []
    for total, line in slow:
        try:
            query = json.loads(line)["params"]["query"]
            t0 = time.perf_counter()
            emb.embed_query(query)
            beyond.append(total - (time.perf_counter() - t0) * 1000)
        except Exception:  # noqa: BLE001 - a line whose query cannot be embedded alone: count it whole
            beyond.append(total)
    for (total, line), b in sorted(zip(slow, beyond), key=lambda x: -x[1])[:5]:
        print(f"   {total:6.0f} ms, {b:6.0f} beyond the embedding: {line[:150].decode('utf-8', 'replace')}")
    beyond.sort()
    print(f"slowest 1 % ({len(slow)} searches): beyond the embedding median {statistics.median(beyond):.0f} ms, "
          f"max {beyond[-1]:.0f} ms")
    log_text = log.read_text(encoding="utf-8", errors="replace")
    print(f"tracebacks in the daemon log: {log_text.count('Traceback')}")


if __name__ == "__main__":
    main()
