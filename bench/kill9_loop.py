"""kill -9 at random points of `groove index` and of `groove serve` mid-reindex:
is any index left corrupt, is anything lost once a rerun completes?

    python bench/kill9_loop.py [--rounds 20] [--notes 300] [--model tiny|default|PATH]

Indexer rounds: a fresh index; a child process indexes the vault (a hostile
part included: a FIFO, a binary, UTF-16, an alias bomb, a deep quote) and is
SIGKILLed after a random number of notes; the index must pass
``PRAGMA integrity_check`` with FTS and vector rows matching its chunks;
then a rerun completes and must hold exactly what a clean run holds
(chunks, offsets, vectors, skipped notes).

Daemon rounds: a daemon has the vault indexed; 200 notes are written; it is
SIGKILLed after a random number of them are embedded; same checks, the
rerun being a restarted daemon catching up.

Prints one line per round and the totals: corrupt, lost. The tiny test
model (default) makes a round take seconds; the kill points are what matter.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from helpers import HEALTHY, index_contents, index_health  # noqa: E402

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from groove.models.registry import load_embedder
    from groove.runtime import open_runtime
    from groove import operations
    vault, index, model = sys.argv[1:4]
    rt = open_runtime(Path(vault), index_path=Path(index))
    rt._embedder = load_embedder(model)
    def on(ev):
        if ev["phase"] == "embed":
            print("done", ev["done"], ev["total"], flush=True)
    operations.reindex(rt, progress=on)
    print("finished", flush=True)
    """
)


def write_vault(v: Path, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        p = v / f"f{i % 5}" / f"n{i:04d}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"# Note {i}\n\nText {i} about topic {i % 11}, with words and more words.\n\n"
                     f"## Part\n\nSecond section of {i}.\n", encoding="utf-8")


def write_hostile(v: Path) -> None:
    v.mkdir(parents=True, exist_ok=True)
    os.mkfifo(v / "x.md")
    (v / "binary.md").write_bytes(b"\x89PNG\x00\x00\x00")
    (v / "utf16.md").write_bytes("\ufeff# Wide\n\nwide text\n".encode("utf-16-le"))
    bomb = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    (v / "bomb.md").write_text("---\n" + "\n".join(bomb) + "\n---\nbody\n", encoding="utf-8")
    (v / "deep.md").write_text(">" * 500 + " x", encoding="utf-8")


def skipped(index: Path) -> list[tuple[str, str]]:
    from groove.storage.db import Index

    idx = Index(index)
    try:
        return sorted(idx.conn.execute("SELECT path, reason FROM skipped"))
    finally:
        idx.close()


def healthy(index: Path) -> bool:
    h = index_health(index)
    return {k: h[k] for k in HEALTHY} == HEALTHY


def run_index(vault: Path, index: Path, model: str, kill_at: int | None) -> tuple[bool, int]:
    """(killed mid-run, notes done when killed)."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(vault), str(index), model],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    done = 0
    for line in proc.stdout:
        if line.startswith("done"):
            done = int(line.split()[1])
            if kill_at is not None and done >= kill_at:
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                return True, done
    proc.wait()
    return False, done


def indexer_rounds(rounds: int, notes: int, model: str, tmp: Path, rng: random.Random) -> tuple[int, int]:
    vault = tmp / "vault"
    write_vault(vault, notes)
    write_hostile(vault)
    ref = tmp / "reference.sqlite"
    run_index(vault, ref, model, None)
    want, want_skipped = index_contents(ref), skipped(ref)
    corrupt = lost = 0
    for r in range(rounds):
        index = tmp / f"i{r}.sqlite"
        kill_at = rng.randrange(1, notes)
        killed, done = run_index(vault, index, model, kill_at)
        ok = healthy(index)
        run_index(vault, index, model, None)
        same = index_contents(index) == want and skipped(index) == want_skipped
        corrupt += not ok
        lost += not same
        print(f"indexer round {r + 1:2d}: killed after {done:4d} notes{'' if killed else ' (finished first)'}; "
              f"intact {ok}; rerun equals a clean run {same}", flush=True)
        for p in tmp.glob(f"i{r}.sqlite*"):
            p.unlink()
    return corrupt, lost


def daemon_rounds(rounds: int, model: str, tmp: Path, rng: random.Random) -> tuple[int, int]:
    from groove.daemon import discovery as lifecycle  # wait_ready, connect_info
    from groove.daemon.client import DaemonClient

    home = Path(tempfile.mkdtemp(prefix="k9-", dir="/tmp"))  # short: unix socket paths are limited
    env = {**os.environ, "GROOVE_HOME": str(home), "GROOVE_TOKEN_STORE": "file"}
    os.environ.update(GROOVE_HOME=str(home), GROOVE_TOKEN_STORE="file")
    corrupt = lost = 0
    try:
        for r in range(rounds):
            vault = home / f"v{r}"
            write_vault(vault, 20)
            write_hostile(vault)
            (vault / "groove.toml").write_text("[watch]\ndebounce_ms = 100\n", encoding="utf-8")
            index = home / f"v{r}.sqlite"
            cmd = [sys.executable, "-m", "groove.daemon", "--vault", str(vault), "--index", str(index),
                   "--model", model, "--foreground"]

            def start() -> subprocess.Popen:
                p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
                lifecycle.wait_ready(vault, timeout=120, proc=p)
                return p

            def idle(c: DaemonClient) -> None:
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline:
                    st = c.index_status()
                    if not st["indexing"] and not st.get("pending_changes"):
                        return
                    time.sleep(0.05)
                raise TimeoutError("daemon still indexing")

            proc = start()
            kill_at = rng.randrange(1, 200)
            done = 0
            with DaemonClient.connect(lifecycle.connect_info(vault)) as c:
                idle(c)
                c.subscribe("index.progress")
                write_vault(vault, 200, start=20)
                try:
                    ev = c.wait_notification("index.progress", 120,
                                             lambda p: p["phase"] == "embed" and p["done"] >= kill_at)
                    done = ev["done"]
                except Exception:  # noqa: BLE001 - finished before the target: still a kill while serving
                    pass
            proc.send_signal(signal.SIGKILL)
            proc.wait()
            ok = healthy(index)
            proc = start()
            with DaemonClient.connect(lifecycle.connect_info(vault)) as c:
                idle(c)
            proc.send_signal(signal.SIGTERM)
            proc.wait(30)
            ref = home / f"ref{r}.sqlite"
            run_index(vault, ref, model, None)
            same = index_contents(index) == index_contents(ref) and skipped(index) == skipped(ref)
            corrupt += not ok
            lost += not same
            print(f"daemon round {r + 1:2d}: killed after {done:4d} of 200 new notes; intact {ok}; "
                  f"after restart equals a clean run {same}", flush=True)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return corrupt, lost


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--model", default="tiny", help="tiny (the test model), default, or a GGUF path")
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--only", choices=["indexer", "daemon"], default=None)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        os.environ.setdefault("GROOVE_HOME", str(tmp / "home"))
        model = a.model
        if model == "tiny":
            from tinymodels import write_tiny_bert_embedder

            model = str(write_tiny_bert_embedder(tmp / "tiny-bert.gguf"))
        elif model == "default":
            from groove.models.registry import resolve_model

            model = str(resolve_model(None).path)
        totals = {}
        if a.only in (None, "indexer"):
            totals["indexer"] = indexer_rounds(a.rounds, a.notes, model, tmp, rng)
        if a.only in (None, "daemon"):
            totals["daemon"] = daemon_rounds(a.rounds, model, tmp, rng)
    for name, (corrupt, lost) in totals.items():
        print(f"{name}: {a.rounds} x kill -9 -> {corrupt} corrupt, {lost} lost")


if __name__ == "__main__":
    main()
