"""The vector leg under a filter or a large exclusion (ADR 0082), side by side.

    python bench/filter_cost.py [--index PATH] [--repeat 10]

On an existing index (default: the en eval vault's), for filters allowing
about 10 %, 50 % and all-but-one-note of the chunks, times the old exact scan
(``vec_distance_l2`` over the allowed rows) against the vec0 KNN pre-filtered
with ``rowid IN``; and, for a note-wide exclusion of a common word, a KNN
n + |excluded| deep then dropping them against the pre-filtered KNN n deep.
Prints each pair's ratio (shipped / old) and checks both return the same ids.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median  # noqa: E402


def _time(f, repeat: int) -> float:
    f()
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return median(out)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--repeat", type=int, default=10)
    a = ap.parse_args()
    from groove.pipeline import fusion
    from groove.pipeline.filters import Restriction
    from groove.query import parse_query
    from groove.storage.db import Index

    path = a.index or Path(glob.glob(os.path.expanduser("~/.local/share/groove/indexes/vault-en-*.sqlite"))[0])
    idx = Index(path, create=False)
    c = idx.conn
    n_chunks = c.execute("SELECT count(*) FROM chunks").fetchone()[0]
    blob = c.execute("SELECT embedding FROM vec_chunks LIMIT 1 OFFSET 7").fetchone()[0]
    k = 200
    print(f"{path.name}: {n_chunks} chunks, k = {k}")
    docs = [r[0] for r in c.execute("SELECT id FROM documents ORDER BY id")]
    for label, keep in (("10% of notes", docs[: len(docs) // 10]), ("50% of notes", docs[: len(docs) // 2]),
                        ("all but one note", docs[1:])):
        sql = f"SELECT id FROM chunks WHERE doc_id IN ({','.join(map(str, keep))})"
        allowed = c.execute(f"SELECT count(*) FROM ({sql})").fetchone()[0]

        def scan(sql=sql):
            return [r[0] for r in c.execute(
                f"SELECT rowid, vec_distance_l2(embedding, ?1) AS d FROM vec_chunks WHERE rowid IN ({sql}) "
                "ORDER BY d LIMIT ?2", (blob, k))]

        def knn(sql=sql):
            return [cid for cid, _ in fusion._nearest(idx, "vec_chunks", blob, k, sql)]

        same = scan() == knn()
        t_old, t_new = _time(scan, a.repeat), _time(knn, a.repeat)
        print(f"filter, {label:17} ({allowed:5} chunks): scan {t_old * 1e3:6.2f} ms, knn+IN {t_new * 1e3:6.2f} ms,"
              f" ratio {t_new / t_old:.2f}, same ids: {same}")

    q = parse_query("canvas -sync")
    no = Restriction(sql=None, applied={})
    excluded = fusion.excluded_chunk_ids(idx, q, "note", no)
    import numpy as np

    qv = np.frombuffer(blob, dtype=np.float32)

    def post():
        hits = fusion._nearest(idx, "vec_chunks", blob, k + len(excluded), None)
        return [h[0] for h in hits if h[0] not in excluded][:k]

    def pre():
        return [cid for cid, _ in fusion.vector_leg(idx, qv, k, no, excluded)]

    same = post() == pre()
    t_old, t_new = _time(post, a.repeat), _time(pre, a.repeat)
    print(f"exclusion 'canvas -sync' note-wide ({len(excluded)} chunks): KNN {k}+{len(excluded)} then drop "
          f"{t_old * 1e3:.2f} ms, pre-filtered KNN {t_new * 1e3:.2f} ms, ratio {t_new / t_old:.2f}, same ids: {same}")


if __name__ == "__main__":
    main()
