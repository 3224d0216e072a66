"""The daemon's costs: socket round-trip overhead, save→searchable, idle RSS.

    GROOVE_MODELS_DIR=~/.cache/groove-test-models python bench/socket_latency.py \
        [--notes 80] [--repeat 40] [--model PATH]

On a copy of (part of) the eval vault, with an isolated GROOVE_HOME:

1. a real `groove serve` (python -m groove.daemon) is started; the same
   warm searches are timed in-process (own runtime, same index file) and over
   the socket (one authenticated client). Ratio of medians: goal <= 1.2.
2. save → searchable: a note is written; the time until `index.changed`
   names it and a search returns it, minus the debounce, relative to
   embedding that note's chunks alone in-process. Goal <= 3.
3. the daemon's RSS after startup, idle, with the model loaded.

Without --model the default model is used (multilingual-e5-small).

Figures (2 shared cores, load average 7-10 from other jobs, so p50s swing
by 2-4x between runs; see the report in issue 6):
  e5-small, 80 notes: search in-process p50 27.7 ms, socket 33.6 ms (1.21);
  empty request round trip 0.125 ms (fixed-cost ratio 1.005);
  save -> searchable / embedding the note alone: 1.36; idle RSS 665 MB.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, QUERIES, median, pct, vault_subset  # noqa: E402

DEBOUNCE_MS = 200

# A ~1 500-word note (several chunks): what an edit of a real note costs.
LONG_NOTE = "# Field notes on the okapi\n\n" + "\n\n".join(
    f"## Section {s}\n\n" + " ".join(
        f"The okapi number {s}-{i} walks through the forest looking for leaves and water." for i in range(20))
    for s in range(6)
)


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=80)
    ap.add_argument("--repeat", type=int, default=40)
    ap.add_argument("--model", default=None, help="GGUF path (default: the default model)")
    a = ap.parse_args()

    home = Path(tempfile.mkdtemp(prefix="gb-", dir="/tmp"))
    os.environ["GROOVE_HOME"] = str(home)
    os.environ.setdefault("GROOVE_TOKEN_STORE", "file")
    from groove import operations
    from groove.daemon import discovery
    from groove.daemon.client import DaemonClient
    from groove.pipeline import SearchParams
    from groove.runtime import open_runtime
    from groove.storage import store
    from groove.vault.markdown import parse_note

    vault = vault_subset(a.vault, home / "vault", a.notes)
    (vault / "groove.toml").write_text(f"[watch]\ndebounce_ms = {DEBOUNCE_MS}\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "groove.daemon", "--vault", str(vault)] + (["--model", a.model] if a.model else [])
    log = open(home / "daemon.log", "ab")
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        info = discovery.wait_ready(vault, timeout=300, proc=proc)
        ready = time.perf_counter() - t0
        with DaemonClient.connect(info, client="bench") as c:
            while c.index_status()["indexing"]:
                time.sleep(0.1)
            st = c.index_status()
            print(f"daemon ready in {ready:.1f}s; {st['documents']} notes, {st['chunks']} chunks, model {st['model']}")
            time.sleep(1.0)
            idle = rss_mb(proc.pid)

            rt = open_runtime(vault, model=a.model)
            for q in QUERIES:  # warm both sides
                operations.search(rt, SearchParams(query=q))
                c.search(q)
            inproc: list[float] = []
            sock: list[float] = []
            for _ in range(a.repeat):
                for q in QUERIES:  # interleaved, so load drift hits both alike
                    t = time.perf_counter()
                    operations.search(rt, SearchParams(query=q))
                    inproc.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    c.search(q)
                    sock.append(time.perf_counter() - t)
            empty = []
            for _ in range(a.repeat * 4):  # the fixed cost of one request, no work behind it
                t = time.perf_counter()
                c.call("cancel", {"id": -1})
                empty.append(time.perf_counter() - t)
            ratio = median(sock) / median(inproc)
            print(f"search in-process  p50 {median(inproc)*1000:7.2f} ms  p95 {pct(inproc, .95)*1000:7.2f} ms")
            print(f"search over socket p50 {median(sock)*1000:7.2f} ms  p95 {pct(sock, .95)*1000:7.2f} ms")
            print(f"socket / in-process (p50): {ratio:.3f}  (goal <= 1.2)  "
                  f"overhead {(median(sock)-median(inproc))*1000:.2f} ms")
            print(f"empty request round trip p50 {median(empty)*1000:.3f} ms, p10 {pct(empty, .10)*1000:.3f} ms "
                  f"-> fixed-cost ratio (p50 in-process + p50 empty) / p50 in-process = "
                  f"{(median(inproc) + median(empty)) / median(inproc):.3f}")

            # save -> searchable
            note = parse_note("bench/okapi.md", LONG_NOTE.encode(), chunk_tokens=rt.config.index.chunk_tokens,
                              count_tokens=rt.embedder.count_tokens)
            texts = [store.embed_text(ch.context, ch.content) for ch in note.chunks]
            embeds = []
            for _ in range(5):
                t = time.perf_counter()
                rt.embedder.embed_passages(texts)
                embeds.append(time.perf_counter() - t)
            embed = median(embeds)
            c.subscribe("index.changed")
            saves, finds = [], []
            (vault / "bench").mkdir(exist_ok=True)
            for k in range(5):
                body = LONG_NOTE.replace("okapi", f"okapi{k}x")
                path = vault / "bench" / f"okapi{k}.md"
                t = time.perf_counter()
                path.write_text(body, encoding="utf-8")
                c.wait_notification("index.changed", 60, lambda p: f"bench/okapi{k}.md" in p["paths"])
                saves.append(time.perf_counter() - t - DEBOUNCE_MS / 1000)
                hits = c.search(f'"okapi{k}x number"', limit=3)["results"]
                finds.append(time.perf_counter() - t - DEBOUNCE_MS / 1000)
                assert hits and hits[0]["path"] == f"bench/okapi{k}.md", hits[:1]
            print(f"note of {len(texts)} chunks: embedding alone {embed*1000:.1f} ms")
            print(f"save -> index.changed (debounce {DEBOUNCE_MS} ms excluded) p50 {median(saves)*1000:.1f} ms; "
                  f"-> searchable {median(finds)*1000:.1f} ms; ratio {median(finds)/embed:.2f} (goal <= 3)")
            own = rss_mb(os.getpid())
            print(f"daemon idle RSS with the model loaded: {idle:.0f} MB (this bench process: {own:.0f} MB)")
            rt.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        log.close()
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
