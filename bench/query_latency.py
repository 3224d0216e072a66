"""Warm stage-1 search latency vs the bare query embedding.

    python bench/query_latency.py [--notes 60] [--repeat 30]
    python bench/query_latency.py --vault ../shared/eval/vault-ja --index IDX --golden GOLDEN --lang ja

Indexes a subset of the eval vault (or reuses --index), then times, side by
side in one run, the query embedding alone and the whole stage-1 search
(parse + embed + both legs + title leg + RRF + spans) for a few queries.
Prints p50/p95 of each and the ratio of p50s (goal <= 1.5), and the cost of
the retrieval-quality changes: the shipped defaults against the original
fusion (title and note legs off, plain vector leg, plain full-text votes,
chunk-level exclusion), and against the previous stages (the vector leg
without its note term, ADR 0078; full-text votes without the coverage
scale, ADR 0079), goal <= 1.2 each; and what overlapping the embedding with
the full-text leg saves (ADR 0081).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, QUERIES, default_embedder, median, pct, timed, vault_subset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--index", type=Path, default=None, help="reuse this index of --vault (no indexing)")
    ap.add_argument("--golden", type=Path, default=None,
                    help="time this golden file's queries (those of --lang) instead of the built-in four")
    ap.add_argument("--lang", default="en")
    a = ap.parse_args()
    queries = QUERIES
    if a.golden:
        import json

        lines = [json.loads(x) for x in a.golden.read_text(encoding="utf-8").splitlines() if x.strip()]
        queries = [d["query"] for d in lines if d.get("lang", a.lang) == a.lang]
    import dataclasses

    from groove import operations
    from groove.pipeline import SearchParams
    from groove.runtime import open_runtime

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GROOVE_HOME", tmp)
        emb = default_embedder()
        if a.index:
            rt = open_runtime(a.vault, index_path=a.index)
        else:
            vault = vault_subset(a.vault, Path(tmp) / "vault", a.notes or None)
            rt = open_runtime(vault, index_path=Path(tmp) / "index.sqlite")
        rt._embedder = emb
        if not a.index:
            operations.reindex(rt)
        s = rt.config.search
        original = dataclasses.replace(
            rt.config, search=dataclasses.replace(
                s, exclusion_scope="chunk", fusion=dataclasses.replace(
                    s.fusion, title_weight=0.0, note_weight=0.0, dense_note_weight=0.0, fts_coverage=False,
                    named_note_first=False)))
        rt_orig = dataclasses.replace(rt, config=original)
        previous = dataclasses.replace(
            rt.config, search=dataclasses.replace(s, fusion=dataclasses.replace(s.fusion, dense_note_weight=0.0)))
        rt_prev = dataclasses.replace(rt, config=previous)
        uncovered = dataclasses.replace(
            rt.config, search=dataclasses.replace(s, fusion=dataclasses.replace(s.fusion, fts_coverage=False)))
        rt_unc = dataclasses.replace(rt, config=uncovered)
        # Stage 1 with the embedding already known, to time the overlap
        # (ADR 0081): embedding + this = the sequential cost.
        cached: dict = {}

        class Cached:
            def __getattr__(self, name):
                return getattr(emb, name)

            def embed_query(self, text):
                if text not in cached:
                    cached[text] = emb.embed_query(text)
                return cached[text]

        rt_cached = dataclasses.replace(rt, _embedder=Cached())
        embed, search, orig, prev, unc, seq = [], [], [], [], [], []
        for q in queries:
            operations.search(rt, SearchParams(q))  # warm
            operations.search(rt_cached, SearchParams(q))  # and fill the cache
            # interleave so machine noise hits every side alike
            for _ in range(a.repeat):
                embed += timed(lambda: emb.embed_query(q), 1)
                search += timed(lambda: operations.search(rt, SearchParams(q)), 1)
                orig += timed(lambda: operations.search(rt_orig, SearchParams(q)), 1)
                prev += timed(lambda: operations.search(rt_prev, SearchParams(q)), 1)
                unc += timed(lambda: operations.search(rt_unc, SearchParams(q)), 1)
                seq += [embed[-1] + timed(lambda: operations.search(rt_cached, SearchParams(q)), 1)[0]]
    print(f"query embedding : p50 {median(embed) * 1e3:6.1f} ms  p95 {pct(embed, .95) * 1e3:6.1f} ms")
    print(f"stage-1 search  : p50 {median(search) * 1e3:6.1f} ms  p95 {pct(search, .95) * 1e3:6.1f} ms")
    print(f"original fusion : p50 {median(orig) * 1e3:6.1f} ms  p95 {pct(orig, .95) * 1e3:6.1f} ms")
    print(f"ratio search/embedding (p50): {median(search) / median(embed):.2f}  (goal <= 1.5)")
    print(f"plain vector leg: p50 {median(prev) * 1e3:6.1f} ms  p95 {pct(prev, .95) * 1e3:6.1f} ms")
    print(f"ratio shipped/original fusion (p50): {median(search) / median(orig):.2f}  (goal <= 1.2)")
    print(f"ratio shipped/plain vector leg (p50): {median(search) / median(prev):.2f}  (goal <= 1.2)")
    print(f"no coverage     : p50 {median(unc) * 1e3:6.1f} ms  p95 {pct(unc, .95) * 1e3:6.1f} ms")
    print(f"ratio shipped/plain full-text votes (p50): {median(search) / median(unc):.2f}  (goal <= 1.2)")
    print(f"embedding, then stage 1 (sequential): p50 {median(seq) * 1e3:6.1f} ms")
    print(f"ratio overlapped/sequential (p50): {median(search) / median(seq):.2f}")


if __name__ == "__main__":
    main()
