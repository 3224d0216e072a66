"""What the parent retriever costs a panel search (the editors' default, issue 47).

    GROOVE_MODELS_DIR=~/.local/share/groove/models python bench/panel_context_cost.py \
        [--notes 120] [--repeat 10] [--vaults en,ja]

A real `groove serve` on a copy of (part of) each eval vault, with an
isolated GROOVE_HOME; one socket client sends the searches a side panel
sends (limit 20, answer spans as the daemon defaults them), with
`parent_retriever` false and true interleaved, so load drift hits both
alike. Prints per vault the p50 round trip of each, their RATIO, the
response size ratio and the share of hits the parent retriever widened.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, median, vault_subset  # noqa: E402

QUERIES = {
    "en": [
        "how do I keep my notes in sync between my phone and my computer",
        "how do I make a table",
        "put two documents next to each other on screen",
        "keyboard shortcut for a command",
        "embed a YouTube video",
    ],
    "ja": [
        "スマホとパソコンでノートを同期する",
        "表を作るには",
        "二つのノートを並べて表示する",
        "コマンドのショートカットキー",
        "動画を埋め込む",
    ],
}


def run(vault_src: Path, lang: str, home: Path, notes: int, repeat: int) -> None:
    from groove.daemon import discovery
    from groove.daemon.client import DaemonClient

    vault = vault_subset(vault_src, home / f"vault-{lang}", notes)
    log = open(home / f"daemon-{lang}.log", "ab")
    proc = subprocess.Popen([sys.executable, "-m", "groove.daemon", "--vault", str(vault)],
                            stdout=log, stderr=log, stdin=subprocess.DEVNULL)
    try:
        info = discovery.wait_ready(vault, timeout=600, proc=proc)
        with DaemonClient.connect(info, client="bench") as c:
            while c.index_status()["indexing"]:
                time.sleep(0.2)
            st = c.index_status()
            qs = QUERIES[lang]
            for q in qs:  # warm both
                c.search(q, limit=20, parent_retriever=False)
                c.search(q, limit=20, parent_retriever=True)
            off: list[float] = []
            on: list[float] = []
            size_off = size_on = 0
            widened = hits = 0
            for _ in range(repeat):
                for q in qs:
                    t = time.perf_counter()
                    r0 = c.search(q, limit=20, parent_retriever=False)
                    off.append(time.perf_counter() - t)
                    t = time.perf_counter()
                    r1 = c.search(q, limit=20, parent_retriever=True)
                    on.append(time.perf_counter() - t)
                    size_off += len(json.dumps(r0, ensure_ascii=False).encode())
                    size_on += len(json.dumps(r1, ensure_ascii=False).encode())
                    hits += len(r1["results"])
                    widened += sum(1 for h in r1["results"] if h.get("expanded_from"))
            print(f"[{lang}] {st['documents']} notes, {st['chunks']} chunks; {len(off)} searches each way (limit 20)")
            print(f"[{lang}]   parent retriever off: p50 {median(off)*1000:7.1f} ms")
            print(f"[{lang}]   parent retriever on : p50 {median(on)*1000:7.1f} ms")
            print(f"[{lang}]   on/off p50 ratio {median(on)/median(off):.3f}; "
                  f"response bytes ratio {size_on/max(size_off, 1):.2f}; "
                  f"{widened}/{hits} hits widened ({widened/max(hits, 1):.0%})")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        log.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=120)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--vaults", default="en,ja")
    a = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="gpc-", dir="/tmp"))
    os.environ["GROOVE_HOME"] = str(home)
    os.environ.setdefault("GROOVE_TOKEN_STORE", "file")
    try:
        for lang in a.vaults.split(","):
            src = EVAL / f"vault-{lang}"
            if not src.is_dir():
                print(f"[{lang}] skipped: {src} is absent")
                continue
            run(src, lang, home, a.notes, a.repeat)
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
