"""What the head scan of ADR 0133 misses, on real embeddings.

    python bench/vector_head_recall.py [--cache vecs.npy] [--k 20]

Embeds every sentence of the eval vaults (English and Japanese, ~14.6k;
~6.5 min on 2 cores, kept in ``--cache`` for the next run) with the default
model, and asks the golden sets' 544 queries (answerable, no-answer and
nonsense alike) for their k nearest, by the exact scan and by the head scan
at a few settings, the shipped one first. ``--k 20`` re-scores about the
same share of the rows (2 %) as k = 200 does at 100k chunks, so it is the
fair test of a big vault; the line for k = 200 is printed too.

Per setting: mean recall of the exact k, how many queries got all of the
exact first 10 back, and how many got the nearest row first.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, scratch_dir  # noqa: E402
from scale import sentences  # noqa: E402

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, default=None, help="an .npy file for the sentence vectors")
    ap.add_argument("--k", type=int, default=20)
    a = ap.parse_args()

    from groove.index import schema, vectors
    from groove.index.db import Index
    from groove.models.registry import load_embedder

    if not all((EVAL / v).is_dir() for v in ("vault-en", "vault-ja")):
        sys.exit(f"needs the eval vaults in {EVAL}")
    emb = load_embedder(None)
    if a.cache is not None and a.cache.exists():
        rows = np.load(a.cache)
    else:
        pool = sorted({s for v in ("vault-en", "vault-ja") for s in sentences(EVAL / v)})
        rows = np.concatenate([emb.embed_passages(pool[i:i + 256]) for i in range(0, len(pool), 256)])
        if a.cache is not None:
            np.save(a.cache, rows)
    rows = rows.astype(np.float32)
    found = [q["query"] for f in sorted((HERE / "golden").glob("*.jsonl"))
             for line in f.read_text(encoding="utf-8").splitlines() if line.strip()
             if "query" in (q := json.loads(line))]  # related-notes judgments have no query
    found += [json.loads(line)["query"] for line in (EVAL / "golden-dev.jsonl").read_text().splitlines()
              if line.strip()]
    queries = emb.embed_queries(found).astype(np.float32)
    print(f"{len(rows)} sentence vectors, {len(queries)} queries")

    idx = Index(scratch_dir("groove-head-") / "index.sqlite")
    with idx.atomic() as c:
        schema.create_vec_table(c, rows.shape[1])
        c.executemany("INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)",
                      [(i + 1, v.tobytes()) for i, v in enumerate(rows)])
    scores = queries @ rows.T
    shipped = (vectors.HEAD_DIMS, vectors.OVERSAMPLE, vectors.TAIL_SIGMAS)
    settings = [shipped, (shipped[0], shipped[1], 0.0), (128, 8, 0.0), (128, 8, 3.0), (128, 16, 3.0)]
    vectors.MIN_ROWS = vectors.HEAD_MIN_ROWS = 1000  # the table is far smaller than a big vault
    for k in dict.fromkeys((a.k, 200)):
        for head, over, sigmas in settings:
            vectors.HEAD_DIMS, vectors.OVERSAMPLE, vectors.TAIL_SIGMAS = head, over, sigmas
            idx.vectors = vectors.VectorCache()
            idx.vectors.warm(idx.conn)
            recall, first10, first = [], 0, 0
            for q, s in zip(queries, scores):
                exact = (np.argsort(-s, kind="stable")[:k] + 1).tolist()
                got = [r for r, _ in idx.vectors.nearest(idx.conn, "vec_chunks", q.tobytes(), k, None)]
                recall.append(len(set(got) & set(exact)) / k)
                first10 += set(exact[:10]) <= set(got)
                first += got[0] == exact[0]
            tag = " (shipped)" if (head, over, sigmas) == shipped else ""
            print(f"k={k:<4} head {head:>3} axes, x{over:<2} re-scored, tail reach {sigmas:.0f} sd{tag}: "
                  f"recall {np.mean(recall):.4f}; first 10 all found {first10}/{len(queries)}; "
                  f"nearest first {first}/{len(queries)}")
    idx.close()


if __name__ == "__main__":
    main()
