"""One thread for short decodes against all threads (ADR 0127), side by side.

    python bench/decode_threads.py [--repeat 11]

Embeds texts of 8 to 500 tokens with the default model on one thread and on
all physical cores, alternating in one process, and prints the p50 of each
and their ratio; then the p50 query embedding of scale's queries as shipped
(one thread up to ``SHORT_DECODE_TOKENS``) against all threads, and checks
that the vectors are the same bits.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import median  # noqa: E402
from scale import QUERIES, p50_ms  # noqa: E402

WORDS = ("when two devices change a note at the same time the synchronisation service may leave a second "
         "copy named conflicted copy and groove indexes it like any other note until you delete it").split()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=11)
    a = ap.parse_args()
    from groove.models import threads
    from groove.models.registry import load_embedder

    emb = load_embedder(None)
    shipped = threads.SHORT_DECODE_TOKENS
    print(f"{emb.n_threads} physical cores; one thread up to {shipped} tokens")
    print(f"{'tokens':>6} {'1 thread':>9} {'all':>9} {'1/all':>6}")
    for n in (8, 16, 32, 48, 64, 128, 256, 500):
        words: list[str] = []
        while emb.count_tokens(" ".join(words)) < n:
            words.append(WORDS[len(words) % len(WORDS)])
        text = " ".join(words)
        t = {}
        for name, limit in (("1", 10_000), ("all", 0), ("1", 10_000), ("all", 0)):
            threads.SHORT_DECODE_TOKENS = limit
            t.setdefault(name, []).append(p50_ms(lambda: emb.embed_passages([text]), a.repeat))
        one, every = min(t["1"]), min(t["all"])
        print(f"{n:>6} {one:7.1f}ms {every:7.1f}ms {one / every:6.2f}")
    row = {}
    for name, limit in (("shipped", shipped), ("all threads", 0)) * 2:
        threads.SHORT_DECODE_TOKENS = limit
        row.setdefault(name, []).append(median([p50_ms(lambda q=q: emb.embed_query(q), a.repeat) for q in QUERIES]))
    threads.SHORT_DECODE_TOKENS = shipped
    alone = emb.embed_queries(QUERIES)
    threads.SHORT_DECODE_TOKENS = 0
    same = np.array_equal(alone, np.stack([emb.embed_query(q) for q in QUERIES]))
    threads.SHORT_DECODE_TOKENS = shipped
    s, e = min(row["shipped"]), min(row["all threads"])
    print(f"query embedding p50: shipped {s:.1f} ms, all threads {e:.1f} ms: {s / e:.2f}x; "
          f"vectors {'identical' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
