"""Indexing throughput vs raw llama.cpp embedding of the same chunk texts.

    python bench/index_throughput.py [--notes 60] [--vault PATH]

Prints chunks/s of `groove index` (scan + parse + embed + SQLite), chunks/s
of embedding the very same texts with the embedder alone, their ratio (goal
>= 0.9: parsing and SQLite should be noise next to the model), and the peak
RSS of the process. Then indexes the same notes again with the two-view
note vectors of ADR 0077 (recipe 3, replaced by ADR 0128) and prints the
shipped/two-view indexing-time ratio, each side timed twice, alternating.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder, vault_subset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=60, help="first N notes (0 = all)")
    a = ap.parse_args()
    from groove import service
    from groove.index.store import embed_text
    from groove.runtime import open_runtime

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GROOVE_HOME", tmp)
        vault = vault_subset(a.vault, Path(tmp) / "vault", a.notes or None)
        emb = default_embedder()
        rt = open_runtime(vault, index_path=Path(tmp) / "index.sqlite")
        rt._embedder = emb
        t0 = time.perf_counter()
        s = service.reindex(rt)
        t_index = time.perf_counter() - t0
        rows = rt.index.conn.execute("SELECT context, content FROM chunks")
        texts = [embed_text(ctx, content) for ctx, content in rows]
        t0 = time.perf_counter()
        for i in range(0, len(texts), 32):
            emb.embed_passages(texts[i:i + 32])
        t_raw = time.perf_counter() - t0
        # Everything else the indexer embeds: each note's summary (ADR 0076,
        # ADR 0128) and the 96 calibration probes (ADR 0103).
        from groove.index.calibration import PROBES
        from groove.index.store import note_text, note_vectors
        from groove.vault.markdown import parse_note

        notes = [parse_note(p, (vault / p).read_bytes(), chunk_tokens=rt.config.index.chunk_tokens,
                            count_tokens=emb.count_tokens) for p in s.indexed]
        t0 = time.perf_counter()
        note_vectors(emb, [note_text(n) for n in notes if n.chunks])
        emb.embed_queries(list(PROBES))
        t_rest = time.perf_counter() - t0
    n = s.chunks_embedded
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"notes {len(s.indexed)}, chunks {n}")
    print(f"groove index : {n / t_index:7.2f} chunks/s ({t_index:.1f} s)")
    print(f"raw embedding: {n / t_raw:7.2f} chunks/s ({t_raw:.1f} s)")
    print(f"ratio index/raw throughput: {t_raw / t_index:.3f}  (goal >= 0.9)")
    print(f"+ note summaries and calibration probes: {t_rest:.1f} s; "
          f"ratio against all the embedding the indexer does: {(t_raw + t_rest) / t_index:.3f}")
    print(f"peak RSS while indexing: {rss:.0f} MB")
    print(f"note vectors, passage view (shipped) vs two views (ADR 0077): indexing time ratio "
          f"{_note_view_cost(a):.3f}")


def _note_view_cost(a) -> float:
    """Indexing time with the shipped passage-view note vectors over the
    two-view mean they replaced (ADR 0128)."""
    import numpy as np

    from groove import service
    from groove.index import store
    from groove.runtime import open_runtime

    shipped = store.note_vectors

    def two_views(emb, texts):
        m = emb.embed_passages(texts) + emb.embed_queries(texts)
        return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)

    times: dict[str, list[float]] = {"one": [], "two": []}
    emb = default_embedder()
    with tempfile.TemporaryDirectory() as tmp:
        vault = vault_subset(a.vault, Path(tmp) / "vault", a.notes or None)
        for rep in range(2):
            for name, fn in (("one", shipped), ("two", two_views))[:: 1 if rep % 2 == 0 else -1]:
                store.note_vectors = fn
                rt = open_runtime(vault, index_path=Path(tmp) / f"{name}{rep}.sqlite")
                rt._embedder = emb
                t0 = time.perf_counter()
                service.reindex(rt)
                times[name].append(time.perf_counter() - t0)
                rt.close()
    store.note_vectors = shipped
    return min(times["one"]) / min(times["two"])


if __name__ == "__main__":
    main()
