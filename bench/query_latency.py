"""Warm stage-1 search latency vs the bare query embedding.

    python bench/query_latency.py [--notes 60] [--repeat 30]

Indexes a subset of the eval vault, then times, side by side in one run, the
query embedding alone and the whole stage-1 search (parse + embed + both legs
+ RRF + spans) for a few queries. Prints p50/p95 of each and the ratio of
p50s (goal <= 1.5).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder, median, pct, timed, vault_subset  # noqa: E402

QUERIES = [
    "how do I keep my notes in sync between my phone and my computer",
    "keyboard shortcut for a command",
    "embed a YouTube video",
    "canvas -sync",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args()
    from groove import service
    from groove.pipeline import SearchParams
    from groove.runtime import open_runtime

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GROOVE_HOME", tmp)
        vault = vault_subset(a.vault, Path(tmp) / "vault", a.notes or None)
        emb = default_embedder()
        rt = open_runtime(vault, index_path=Path(tmp) / "index.sqlite")
        rt._embedder = emb
        service.reindex(rt)
        embed, search = [], []
        for q in QUERIES:
            service.search(rt, SearchParams(q))  # warm
            # interleave so machine noise hits both sides alike
            for _ in range(a.repeat):
                embed += timed(lambda: emb.embed_query(q), 1)
                search += timed(lambda: service.search(rt, SearchParams(q)), 1)
    print(f"query embedding : p50 {median(embed) * 1e3:6.1f} ms  p95 {pct(embed, .95) * 1e3:6.1f} ms")
    print(f"stage-1 search  : p50 {median(search) * 1e3:6.1f} ms  p95 {pct(search, .95) * 1e3:6.1f} ms")
    print(f"ratio search/embedding (p50): {median(search) / median(embed):.2f}  (goal <= 1.5)")


if __name__ == "__main__":
    main()
