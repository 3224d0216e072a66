"""The chunk KNN of a big vault right after a query embedding: the staged
scan (ADR 0222) against the head scan it replaced (ADR 0133).

    python bench/staged_scan.py --index PATH [--lang zh|ko] [--rounds 10]

PATH is an index of 40k+ chunks, such as ``bench/scale.py --chunks 100000
--keep PATH`` leaves; the staged copy is built at any size past 40k (the
comparison that sets ``LEAD_MIN_ROWS``). Both copies are loaded in this process; before each
KNN the bench's questions are embedded by the default model on the
pipeline's worker, as a search does, so the matrix is as cold in the CPU's
caches as a search finds it (a KNN timed back to back reads it warm, and
flatters the wider scan). The two run interleaved, question by question,
in alternating order, so the host's load hits both alike. Prints each
one's p50 and p90, and the ratio of the p50s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from scale import LANG_QUERIES, QUERIES  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", type=Path, required=True, help="an index of 40k+ chunks (bench/scale.py --keep)")
    ap.add_argument("--lang", choices=sorted(LANG_QUERIES), default=None, help="the questions' language")
    ap.add_argument("--rounds", type=int, default=10)
    a = ap.parse_args()

    from groove.engines.vectors import cache as vectors
    from groove.models.registry import load_embedder
    from groove.pipeline import _embed_pool
    from groove.storage.db import Index

    idx = Index(a.index, create=False)
    vectors.LEAD_MIN_ROWS = 0  # both at any size: the comparison that sets LEAD_MIN_ROWS
    copies = {}
    for name, lead in (("staged", vectors.LEAD_DIMS), ("head scan", vectors.HEAD_DIMS)):
        was, vectors.LEAD_DIMS = vectors.LEAD_DIMS, lead  # a lead as wide as the head: ADR 0133's scan
        copies[name] = vectors.VectorCache()
        copies[name].warm(idx.conn)
        vectors.LEAD_DIMS = was
    m = copies["staged"]._tables["vec_chunks"]
    if not m.staged:
        sys.exit(f"{a.index}: {len(m.rowids)} chunk vectors, under HEAD_MIN_ROWS ({vectors.HEAD_MIN_ROWS})")
    print(f"{len(m.rowids)} chunks; parts {[p.shape[1] for p in m.parts]} against "
          f"{[p.shape[1] for p in copies['head scan']._tables['vec_chunks'].parts]}")
    emb = load_embedder(None)
    questions = LANG_QUERIES[a.lang] if a.lang else QUERIES
    took: dict[str, list[float]] = {name: [] for name in copies}
    for r in range(a.rounds):
        for q in questions:
            for name in (list(copies) if r % 2 == 0 else list(copies)[::-1]):
                v = _embed_pool().submit(emb.embed_query, q).result()
                blob = np.ascontiguousarray(v, dtype=np.float32).tobytes()
                t = time.perf_counter()
                copies[name].nearest(idx.conn, "vec_chunks", blob, 200, None)
                took[name].append(time.perf_counter() - t)
    for name, xs in took.items():
        print(f"{name:9s} p50 {np.median(xs) * 1e3:.2f} ms, p90 {np.percentile(xs, 90) * 1e3:.2f} ms ({len(xs)} KNNs)")
    print(f"chunk KNN after a query embedding, k = 200: staged / head scan = "
          f"{np.median(took['staged']) / np.median(took['head scan']):.2f}")
    idx.close()


if __name__ == "__main__":
    main()
