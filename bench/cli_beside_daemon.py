"""`groove index` run while `groove serve` watches the same vault: does the
index end up holding what is on disk (issue 50 R8)?

    python bench/cli_beside_daemon.py [--rounds 4] [--notes 300] [--model tiny|default|PATH]

Each round: a daemon has the vault indexed; every note is saved as v2 (the
daemon starts on them) and `groove index` starts in another process; while
it runs, a few notes are saved again as v3 (the daemon indexes them). Once
both are done and the daemon is idle, every note's stored text is compared
with the file. Before ADR 0241 the CLI could write its v2 over the
daemon's v3 for good; prints the stale notes per round and the total.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def note(i: int, version: int) -> str:
    return (f"# Note {i}\n\nversion {version} of note {i}: " + " ".join(f"word{(i * 7 + k) % 97}" for k in range(60))
            + f"\n\n## More\n\nmarker v{version}n{i} end\n")


def stale(index: Path, vault: Path) -> list[str]:
    import apsw

    c = apsw.Connection(str(index), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        out = []
        for (path,) in c.execute("SELECT path FROM documents ORDER BY path"):
            text = " ".join(r[0] for r in c.execute(
                "SELECT c.content FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = ?", (path,)))
            disk = (vault / path).read_text(encoding="utf-8")
            want = disk.rsplit("marker ", 1)[1].split()[0]
            if f"marker {want}" not in text:
                out.append(path)
        return out
    finally:
        c.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--notes", type=int, default=300)
    ap.add_argument("--model", default="tiny", help="tiny (the test model), default, or a GGUF path")
    args = ap.parse_args()
    from groove.daemon import discovery
    from groove.daemon.client import DaemonClient

    total = 0
    for rnd in range(args.rounds):
        tmp = Path(tempfile.mkdtemp(prefix="groove-r8-"))
        try:
            model = args.model
            if model == "tiny":
                from tinymodels import write_tiny_bert_embedder

                model = str(write_tiny_bert_embedder(tmp / "tiny-bert.gguf"))
            elif model == "default":
                model = ""
            env = {**os.environ, "GROOVE_HOME": str(tmp / "home"), "GROOVE_TOKEN_STORE": "file"}
            os.environ.update(GROOVE_HOME=env["GROOVE_HOME"], GROOVE_TOKEN_STORE="file")
            vault = tmp / "vault"
            vault.mkdir()
            (vault / "groove.toml").write_text("[watch]\ndebounce_ms = 100\n", encoding="utf-8")
            for i in range(args.notes):
                (vault / f"n{i:04d}.md").write_text(note(i, 1), encoding="utf-8")
            margs = ["--model", model] if model else []
            daemon = subprocess.Popen([sys.executable, "-m", "groove.daemon", "--vault", str(vault), "--foreground",
                                       *margs], env=env, stdout=subprocess.DEVNULL, stderr=open(tmp / "d.log", "wb"))
            try:
                info = discovery.wait_ready(vault, timeout=120, proc=daemon)
                c = DaemonClient.connect(info, client="bench")

                def idle() -> None:
                    quiet = 0
                    while quiet < 5:  # idle on five polls 0.2 s apart: no batch is about to start
                        st = c.index_status()
                        quiet = quiet + 1 if not st["indexing"] and not st.get("pending_changes") else 0
                        time.sleep(0.2)

                idle()
                for i in range(args.notes):
                    (vault / f"n{i:04d}.md").write_text(note(i, 2), encoding="utf-8")
                t0 = time.perf_counter()
                cli = subprocess.Popen([sys.executable, "-m", "groove", "index", str(vault), *margs], env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                rng = random.Random(rnd)
                late = sorted(rng.sample(range(args.notes), 5))
                time.sleep(0.5)
                for i in late:
                    (vault / f"n{i:04d}.md").write_text(note(i, 3), encoding="utf-8")
                    time.sleep(0.3)
                err = cli.communicate(timeout=900)[1]
                cli_s = time.perf_counter() - t0
                idle()
                time.sleep(2.0)
                idle()
                bad = stale(Path(c.index_status()["index_path"]), vault)
                total += len(bad)
                print(f"round {rnd}: cli {cli_s:.1f}s rc={cli.returncode} saved late {late} stale {bad}"
                      + (f" cli stderr: {err.strip()[-200:]}" if cli.returncode else ""), flush=True)
                c.close()
            finally:
                daemon.terminate()
                daemon.wait(30)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"total stale notes: {total} in {args.rounds} rounds")


if __name__ == "__main__":
    main()
