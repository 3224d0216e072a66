"""Indexing throughput vs raw llama.cpp embedding of the same chunk texts.

    python bench/index_throughput.py [--notes 60] [--vault PATH] [--repeat 2] [--note-views]

Prints chunks/s of `groove index` (scan + parse + embed + SQLite), chunks/s
of embedding the very same texts with the embedder alone, their ratio (goal
>= 0.9: parsing and SQLite should be noise next to the model), and the peak
RSS of the process. Indexing and raw embedding alternate for ``--repeat``
rounds and the best of each counts. ``--note-views`` also indexes the same
notes with the two-view note vectors of ADR 0077 (recipe 3, replaced by ADR
0128) and prints the shipped/two-view indexing-time ratio (ADR 0142).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder, vault_subset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=60, help="first N notes (0 = all)")
    ap.add_argument("--repeat", type=int, default=2, help="rounds of (index, raw); the best of each counts")
    ap.add_argument("--note-views", action="store_true", help="also time the two-view note vectors (ADR 0128)")
    a = ap.parse_args()
    from groove import operations
    from groove.index.calibration import PROBES, shipped_probe_vectors
    from groove.models.llama_embedder import file_sha256
    from groove.runtime import open_runtime
    from groove.storage.store import embed_text, note_text, note_vectors
    from groove.vault.markdown import parse_note

    t_index, t_raw = [], []
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GROOVE_HOME", tmp)
        vault = vault_subset(a.vault, Path(tmp) / "vault", a.notes or None)
        emb = default_embedder()
        # Rounds alternate indexing and raw embedding, so drift on a shared
        # machine hits both alike.
        for rep in range(a.repeat):
            rt = open_runtime(vault, index_path=Path(tmp) / f"index{rep}.sqlite")
            rt._embedder = emb
            t0 = time.perf_counter()
            s = operations.reindex(rt)
            t_index.append(time.perf_counter() - t0)
            texts = [embed_text(ctx, content) for ctx, content in rt.index.conn.execute(
                "SELECT context, content FROM chunks")]
            rt.close()
            t0 = time.perf_counter()
            for i in range(0, len(texts), 32):
                emb.embed_passages(texts[i:i + 32])
            t_raw.append(time.perf_counter() - t0)
        # Everything else the indexer embeds: each note's summary (ADR 0076,
        # ADR 0128), and the 96 calibration probes unless they ship for this
        # model (ADR 0103, index/calibration.py).
        notes = [parse_note(p, (vault / p).read_bytes(), chunk_tokens=rt.config.index.chunk_tokens,
                            count_tokens=emb.count_tokens) for p in s.indexed]
        probes_ship = shipped_probe_vectors(file_sha256(emb.model_path)) is not None
        t0 = time.perf_counter()
        summaries = [note_text(n) for n in notes if n.chunks]
        note_vectors(emb, summaries, np.zeros((len(summaries), emb.dim), dtype=np.float32))  # the cost: one view
        if not probes_ship:
            emb.embed_queries(list(PROBES))
        t_rest = time.perf_counter() - t0
    n, ti, tr = s.chunks_embedded, min(t_index), min(t_raw)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"notes {len(s.indexed)}, chunks {n}; best of {a.repeat} rounds, each indexing then raw")
    print(f"groove index : {n / ti:7.2f} chunks/s ({ti:.1f} s; rounds {', '.join(f'{t:.1f}' for t in t_index)})")
    print(f"raw embedding: {n / tr:7.2f} chunks/s ({tr:.1f} s; rounds {', '.join(f'{t:.1f}' for t in t_raw)})")
    print(f"ratio index/raw throughput: {tr / ti:.3f}  (goal >= 0.9)")
    print(f"+ note summaries{'' if probes_ship else ' and calibration probes'}: {t_rest:.1f} s "
          f"(probes {'shipped' if probes_ship else 'embedded'}); "
          f"ratio against all the embedding the indexer does: {(tr + t_rest) / ti:.3f}")
    print(f"peak RSS while indexing: {rss:.0f} MB")
    if a.note_views:
        print(f"note vectors, query view + first chunk (shipped, ADR 0142) vs two views (ADR 0077): "
              f"indexing time ratio {_note_view_cost(a):.3f}")


def _note_view_cost(a) -> float:
    """Indexing time with the shipped note vectors (one summary embedding)
    over the two-view mean of ADR 0077 (two)."""
    from groove import operations
    from groove.runtime import open_runtime
    from groove.storage import store

    shipped = store.note_vectors

    def two_views(emb, texts, _first_chunks):
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
                operations.reindex(rt)
                times[name].append(time.perf_counter() - t0)
                rt.close()
    store.note_vectors = shipped
    return min(times["one"]) / min(times["two"])


if __name__ == "__main__":
    main()
