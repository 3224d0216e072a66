"""What the staged scan of ADR 0133 and 0222 misses, on real embeddings.

    python bench/vector_head_recall.py [--cache vecs.npy] [--k 20]

Embeds every sentence of the eval vaults (English, Japanese, Chinese and
Korean, ~26k; ~12 min on 2 cores, kept in ``--cache`` for the next run)
with the default model, and asks every golden set's queries (answerable,
no-answer and nonsense alike, ~940) for their k nearest, by the exact scan
and by the staged scan at a few settings, the shipped one first. ``--k
20`` re-scores about the same share of the rows as k = 200 does at 100k
chunks, so it is the fair test of a big vault; the line for k = 200 is
printed too.

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
VAULTS = ("vault-en", "vault-ja", "vault-zh", "vault-ko")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, default=None, help="an .npy file for the sentence vectors")
    ap.add_argument("--k", type=int, default=20)
    a = ap.parse_args()

    from groove.engines.vectors import cache as vectors
    from groove.models.registry import load_embedder
    from groove.storage import migrations
    from groove.storage.db import Index

    if not all((EVAL / v).is_dir() for v in VAULTS):
        sys.exit(f"needs the eval vaults in {EVAL}")
    emb = load_embedder(None)
    if a.cache is not None and a.cache.exists():
        rows = np.load(a.cache)
    else:
        pool = sorted({s for v in VAULTS for s in sentences(EVAL / v)})
        rows = np.concatenate([emb.embed_passages(pool[i:i + 256]) for i in range(0, len(pool), 256)])
        if a.cache is not None:
            np.save(a.cache, rows)
    rows = rows.astype(np.float32)
    found = [q["query"] for f in sorted((HERE / "golden").glob("*.jsonl"))
             for line in f.read_text(encoding="utf-8").splitlines() if line.strip()
             if "query" in (q := json.loads(line))]  # related-notes judgments have no query
    found += [json.loads(line)["query"] for f in sorted(EVAL.glob("golden-dev*.jsonl"))
              for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = emb.embed_queries(found).astype(np.float32)
    print(f"{len(rows)} sentence vectors, {len(queries)} queries")

    idx = Index(scratch_dir("groove-head-") / "index.sqlite")
    with idx.atomic() as c:
        migrations.create_vec_tables(c, rows.shape[1])
        c.executemany("INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)",
                      [(i + 1, v.tobytes()) for i, v in enumerate(rows)])
    scores = queries @ rows.T
    # (head axes, lead axes, re-scored per row wanted, lead keeps per re-scored, tail reach in sd);
    # a lead as wide as the head is no lead: ADR 0133's scan.
    shipped = (vectors.HEAD_DIMS, vectors.LEAD_DIMS, vectors.OVERSAMPLE, vectors.LEAD_OVERSAMPLE,
               vectors.TAIL_SIGMAS)
    settings = [shipped, (192, 192, 8, 1, 3.0), (192, 64, 8, 3, 3.0), (192, 96, 8, 2, 3.0), (192, 96, 8, 3, 0.0),
                (192, 128, 8, 2, 3.0), (128, 128, 16, 1, 3.0)]
    vectors.MIN_ROWS = vectors.HEAD_MIN_ROWS = vectors.LEAD_MIN_ROWS = 1000  # far smaller than a big vault
    for k in dict.fromkeys((a.k, 200)):
        for setting in settings:
            head, lead, over, lead_over, sigmas = setting
            vectors.HEAD_DIMS, vectors.LEAD_DIMS, vectors.OVERSAMPLE = head, lead, over
            vectors.LEAD_OVERSAMPLE, vectors.TAIL_SIGMAS = lead_over, sigmas
            idx.vectors = vectors.VectorCache()
            idx.vectors.warm(idx.conn)
            recall, first10, first = [], 0, 0
            for q, s in zip(queries, scores):
                exact = (np.argsort(-s, kind="stable")[:k] + 1).tolist()
                got = [r for r, _ in idx.vectors.nearest(idx.conn, "vec_chunks", q.tobytes(), k, None)]
                recall.append(len(set(got) & set(exact)) / k)
                first10 += set(exact[:10]) <= set(got)
                first += got[0] == exact[0]
            tag = " (shipped)" if setting == shipped else ""
            kept = f"lead {lead:>3} axes keeps x{lead_over}" if lead < head else "no lead" + " " * 12
            print(f"k={k:<4} head {head:>3} axes, {kept}, x{over:<2} re-scored, tail reach {sigmas:.0f} sd{tag}: "
                  f"recall {np.mean(recall):.4f}; first 10 all found {first10}/{len(queries)}; "
                  f"nearest first {first}/{len(queries)}")
    idx.close()


if __name__ == "__main__":
    main()
