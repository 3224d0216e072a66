"""Cold `groove search` answered by a running daemon, side by side with the
floor (a Python start) and, when given, `qmd search` on the same notes.

    python bench/cli_cold.py [--vault PATH] [--notes 60] [--repeat 15] \
        [--qmd "node /path/to/qmd/dist/cli.js"]

A `groove serve` is started on a copy of the vault (isolated GROOVE_HOME);
then, interleaved so load drift hits all alike, each command runs as a fresh
process: `groove search Q` (the daemon answers), `groove search --no-daemon
Q` (loads the model itself), `python -c "import json"`, a bare keyring
lookup (what reading the token on a desktop would add; ADR 0126 spares the
CLI), and `qmd search Q` (qmd's BM25 search, which loads no model) after
`qmd collection add` + `qmd update` on the same notes. Prints p50 wall times and the ratios.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, median, scratch_dir, vault_subset  # noqa: E402

QUERIES = ["sync conflicts", "keyboard shortcut", "embed a video", "canvas"]


def wall(cmd: list[str], env: dict[str, str]) -> float:
    t = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    dt = time.perf_counter() - t
    if r.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed: {r.stderr[-1500:]}")
    return dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--qmd", default=os.environ.get("QMD_CMD"), help="how to run qmd (default: $QMD_CMD)")
    a = ap.parse_args()
    src = a.vault if a.vault.is_dir() else Path(__file__).resolve().parents[1] / "backend" / "groove" / "sample_vault"

    root = scratch_dir("groove-cold-")
    env = dict(os.environ, GROOVE_HOME=str(root / "home"), GROOVE_TOKEN_STORE="file")
    os.environ.update(GROOVE_HOME=env["GROOVE_HOME"], GROOVE_TOKEN_STORE="file")
    vault = vault_subset(src, root / "vault", a.notes or None)
    groove = [str(Path(sys.executable).with_name("groove"))]
    subprocess.run([*groove, "index", str(vault)], env=env, check=True, capture_output=True)

    from groove.daemon import discovery

    log = open(root / "daemon.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "groove.daemon", "--vault", str(vault)], env=env,
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    cmds: dict[str, list[str]] = {
        "groove search (daemon)": [*groove, "search", "--vault", str(vault)],
        "groove search --no-daemon": [*groove, "search", "--no-daemon", "--vault", str(vault)],
        "python -c 'import json'": [sys.executable, "-c", "import json"],
        # What reading the token from the OS keyring would add to every CLI
        # search on a desktop; the CLI skips it on a unix socket (ADR 0126).
        "python: keyring lookup": [sys.executable, "-c", "import keyring; keyring.get_keyring()"],
    }
    if a.qmd:
        qmd = shlex.split(a.qmd)
        qenv = dict(env, HOME=str(root / "qmdhome"), XDG_CACHE_HOME=str(root / "qmdcache"),
                    XDG_CONFIG_HOME=str(root / "qmdconfig"))
        subprocess.run([*qmd, "collection", "add", str(vault), "--name", "bench"], env=qenv, check=True,
                       capture_output=True)
        subprocess.run([*qmd, "update"], env=qenv, check=True, capture_output=True)
        cmds["qmd search"] = [*qmd, "search"]
    try:
        discovery.wait_ready(vault, timeout=300, proc=proc)
        times: dict[str, list[float]] = {k: [] for k in cmds}
        for i in range(a.repeat):
            q = QUERIES[i % len(QUERIES)]
            for name, cmd in cmds.items():
                e = qenv if name == "qmd search" else env
                times[name].append(wall(cmd + ([q] if name.startswith(("groove", "qmd")) else []), e))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    p50 = {k: median(v) for k, v in times.items()}
    ref = "qmd search" if "qmd search" in p50 else "python -c 'import json'"
    print(f"{'p50 wall, ms':28} {'':>8}  ratio to {ref}")
    for k, v in p50.items():
        print(f"{k:28} {v * 1000:8.0f}  {v / p50[ref]:.2f}")
    if "qmd search" not in p50:
        print("qmd not given (--qmd or QMD_CMD): compared with a bare Python start only")


if __name__ == "__main__":
    main()
