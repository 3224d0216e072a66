"""Retrieval-quality levers, side by side on golden sets (issue 10's working tool).

    python bench/levers.py [GOLDEN ...] [--variants base,vec,fts,title,...]

Runs each named variant of the search config over the golden files (en, ja,
zh and ko vaults from shared/eval, picked by each line's ``lang``, or the
line's own ``vault``, relative to the golden file, with its index at
``<index-dir>/<vault folder name>.sqlite``) in one process — models loaded once, indexes
reused — and prints nDCG@10 / MRR / Hit@1 / Hit@5 / Recall@10 per language
and per kind. Variants are query-time only (fusion knobs, legs, exclusion
scope); levers that change what is embedded need their own index (`--index-
dir`) built with the matching groove version.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402

# name -> (legs, search-config overrides)
VARIANTS: dict[str, tuple[str, dict]] = {
    "vector": ("vector", {}),  # the shipped vector leg (note-aware, ADR 0078)
    "vector-chunks": ("vector", {"dense_note_weight": 0.0}),  # plain chunk cosine
    "fts": ("fts", {}),
    "rrf": ("hybrid", {"title_weight": 0.0, "note_weight": 0.0, "dense_note_weight": 0.0,
                       "fts_coverage": False, "named_note_first": False, "exclusion_scope": "chunk"}),  # the original
    "default": ("hybrid", {"__default__": True}),  # whatever the built-in defaults are now
}
# Anything else is an inline spec: "rrf_k=10+title_weight=1+legs=hybrid".

METRICS = ["ndcg@10", "mrr", "hit@1", "hit@5", "recall@10"]


def _cfg(base, overrides: dict):
    from groove.config import SearchConfig

    if overrides.get("__default__"):
        return SearchConfig()  # whatever the built-in defaults are now
    fusion = {k: v for k, v in overrides.items() if hasattr(base.fusion, k)}
    query = {k: v for k, v in overrides.items() if hasattr(base.query, k)}
    top = {k: v for k, v in overrides.items() if k not in fusion and k not in query}
    return dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **fusion),
                               query=dataclasses.replace(base.query, **query), **top)


def _inline(spec: str) -> tuple[str, dict]:
    """'rrf_k=15+title_weight=1' -> ("hybrid", {...}); 'legs=vector' picks the legs."""
    legs, ov = "hybrid", {}
    for part in spec.split("+"):
        k, v = part.split("=")
        if k == "legs":
            legs = v
            continue
        ov[k] = v if k == "exclusion_scope" else (v == "true" if v in ("true", "false") else float(v))
    return legs, ov


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("golden", nargs="*", type=Path, default=[EVAL / "golden-dev.jsonl"])
    ap.add_argument("--variants", default="vector,fts,rrf,default")
    ap.add_argument("--per-kind", action="store_true")
    ap.add_argument("--per-query", default="", help="print each query's first expected rank for these variants")
    ap.add_argument("--index-dir", type=Path, default=None, help="use <dir>/<lang>.sqlite as the indexes")
    ap.add_argument("--agree", default="", help="A,B: how many queries' top 10 notes variants A and B "
                    "share (counts only: safe on blind sets)")
    ap.add_argument("--digits", type=int, default=3, help="decimals printed (a rule's .01 edge needs 4)")
    a = ap.parse_args()
    from groove.config import SearchConfig
    from groove.eval.golden import load_golden
    from groove.eval.run import EvalSession, SearchOptions, resolve_vaults

    vaults = {lang: EVAL / f"vault-{lang}" for lang in ("en", "ja", "zh", "ko")}
    names = a.variants.split(",")
    show_q = set(a.per_query.split(",")) if a.per_query else set()
    agree = a.agree.split(",") if a.agree else []
    base = SearchConfig()
    for gpath in a.golden:
        golden = load_golden(gpath)
        bound = resolve_vaults(golden, None, vaults)
        idx = None
        if a.index_dir:
            idx = {vaults[lang].resolve(): a.index_dir / f"{lang}.sqlite" for lang in vaults}
            for v in set(bound.values()) - set(idx):  # a line's own vault: an index named after it
                idx[v] = a.index_dir / f"{v.name}.sqlite"
        sess = EvalSession(golden, bound, index_paths=idx)
        sess.reindex()  # incremental: a stat per note once the indexes exist
        print(f"\n== {gpath.name} ({len(golden.queries)} queries)")
        header = f"{'variant':<22}{'lang':<6}" + "".join(f"{m:>10}" for m in METRICS)
        print(header)
        per_query: dict[str, dict[str, object]] = {}
        tops: dict[str, list[list[str]]] = {}
        for name in names:
            legs, ov = VARIANTS[name] if name in VARIANTS else _inline(name)
            rts = sess.variant(_cfg(base, ov))
            run = sess.run(SearchOptions(legs=legs), 10, rts)
            agg = run.aggregate()
            for lang, m in sorted(agg["by_lang"].items()):
                print(f"{name:<22}{lang:<6}" + "".join(f"{m[k]:>10.{a.digits}f}" for k in METRICS))
            if a.per_kind:
                for kind, m in sorted(agg["by_kind"].items()):
                    print(f"{'':<22}{kind[:6]:<6}" + "".join(f"{m[k]:>10.{a.digits}f}" for k in METRICS))
            if name in agree:
                tops[name] = [r.docs[:10] for r in run.results]
            if name in show_q:
                per_query[name] = {r.golden.query: r.first_rank for r in run.results}
        if len(tops) == 2:
            x, y = (tops[n] for n in agree)
            same = sum(p == q for p, q in zip(x, y))
            first = sum(p[:1] == q[:1] for p, q in zip(x, y))
            shared = sum(len(set(p) & set(q)) / max(len(p), len(q), 1) for p, q in zip(x, y)) / max(len(x), 1)
            print(f"-- {agree[0]} vs {agree[1]}: same top 10 (in order) {same}/{len(x)}, "
                  f"same first {first}/{len(x)}, notes shared in the top 10 {shared:.3f}")
        for name, ranks in per_query.items():
            print(f"\n-- first expected rank per query: {name}")
            for q, rk in ranks.items():
                print(f"  {str(rk):>4}  {q}")
        sess.close()


if __name__ == "__main__":
    main()
