"""Tiny chunks in the first ranks, and what the tiny-chunk prior costs
(issue 49 item 3, ADR 0280).

    python bench/tiny_chunks.py --vault VAULT --index IDX [--scales 0,10,20] \
        [--show "electrical pressure" --show youtube] [--titles 60] [--repeat 3] [--fts off]

``IDX`` is a copy of the vault's index (opening may migrate it). For each
``own_words`` scale (0 = off) every query is searched (default model, no
reranker) and the bench prints:

* for each ``--show`` query, the first 5 hits with their words of their own
  (``index/own_words.py``), a tiny one (under ``TINY`` words) marked ``*``;
* over exact-term queries made from the vault itself (the titles of
  ``--titles`` notes drawn with a fixed seed, lower-cased), ``tiny@5``: the
  share of ranks 1-5 held by tiny chunks of other notes than the one the
  query names, and how often the named note is first;
* the latency of a search (``run_search``, answer spans off: they cost
  the same for every setting) under each scale against off, interleaved
  in rotating order in one run, as p50 ratios, then stage 1 alone
  (``hybrid_candidates`` with each query's vector given), the steadier
  figure on a loaded host.

``--fts off``: the prior in the vector leg only (``own_words_fts = false``).
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import sys
import time
from pathlib import Path

import groove  # noqa: F401  before numpy, as in groove's processes (ADR 0135)

sys.path.insert(0, str(Path(__file__).parent))
from _common import median  # noqa: E402

TINY = 8  # words of its own under which a chunk counts as tiny here (a short sentence)


def _runtime(vault: Path, index: Path, scale: float, emb, fts: bool):
    from groove.config import load_config
    from groove.runtime import open_runtime

    cfg = load_config(vault)
    s = cfg.search
    cfg = dataclasses.replace(cfg, search=dataclasses.replace(s, fusion=dataclasses.replace(
        s.fusion, own_words=scale, own_words_fts=fts)))
    rt = open_runtime(vault, index_path=index, config=cfg, create=False)
    rt._embedder = emb
    return rt


def _search(rt, q: str, limit: int = 5):
    from groove.pipeline import SearchParams, run_search

    return run_search(rt, SearchParams(query=q, limit=limit, answer_spans=False)).results


def _stage1(rts: dict, scales: list[float], queries: list[str], emb, repeat: int) -> None:
    """Stage 1 alone (every leg, the prior, RRF, the candidate load) with
    each query's vector given, interleaved as above: the part the prior can
    cost, without the embedding's noise; the search ratio adds the
    embedding's p50 to both sides."""
    from groove.pipeline import SearchParams, resolve_params
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import hybrid_candidates
    from groove.query import parse_query

    embed: list[float] = []
    jobs = []
    for q in queries:
        t0 = time.perf_counter()
        v = emb.embed_query(q)
        embed.append(time.perf_counter() - t0)
        jobs.append({s: (parse_query(q), resolve_params(SearchParams(query=q), rts[s].config.search), v)
                     for s in scales})
    took: dict[float, list[float]] = {s: [] for s in scales}
    for rep in range(repeat + 1):
        for i, per in enumerate(jobs):
            k = (rep + i) % len(scales)
            for s in scales[k:] + scales[:k]:
                parsed, r, v = per[s]
                idx = rts[s].index
                t0 = time.perf_counter()
                hybrid_candidates(idx, parsed, v, r, build_restriction(idx, r))
                if rep:  # the first pass warms
                    took[s].append(time.perf_counter() - t0)
    e, base = median(embed), median(took[scales[0]])
    print(f"\n== stage 1, {len(queries)} queries x {repeat}, interleaved; query embedding p50 {e * 1e3:.1f} ms")
    for s in scales:
        st = median(took[s])
        print(f"  own_words = {s:<4g} stage 1 p50 {st * 1e3:7.2f} ms  ratio {st / base:5.3f}   "
              f"search (embedding + stage 1) ratio {(e + st) / (e + base):5.3f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault", type=Path, required=True)
    ap.add_argument("--index", type=Path, required=True, help="a copy of the vault's index")
    ap.add_argument("--scales", default="0,3,5")
    ap.add_argument("--show", action="append", default=[])
    ap.add_argument("--titles", type=int, default=60)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--fts", choices=["on", "off"], default="on",
                    help="own_words_fts: the prior in the full-text leg too")
    a = ap.parse_args()
    from groove.index.own_words import own_words
    from groove.models.registry import load_embedder

    emb = load_embedder(None)
    scales = [float(x) for x in a.scales.split(",")]
    rts = {s: _runtime(a.vault, a.index, s, emb, a.fts == "on") for s in scales}
    conn = rts[scales[0]].index.conn
    titles = sorted(t for (t,) in conn.execute(
        "SELECT DISTINCT d.title FROM documents d JOIN chunks c ON c.doc_id = d.id WHERE d.title != ''"))
    asked = [t.lower() for t in random.Random(49).sample(titles, min(a.titles, len(titles)))]

    for q in a.show:
        print(f"\n== {q!r}")
        for s in scales:
            print(f"  own_words = {s:g}")
            for h in _search(rts[s], q):
                w = own_words(h.content)
                mark = "*" if w < TINY else " "
                print(f"   {mark}{h.rank} {w:5.1f}w  {h.path}  {h.content[:60]!r}")

    print(f"\n== {len(asked)} exact-term queries (note titles, lower-cased, seed 49)")
    for s in scales:
        tiny = first = 0
        for q in asked:
            hits = _search(rts[s], q)
            first += bool(hits) and hits[0].title.lower() == q
            tiny += sum(own_words(h.content) < TINY and h.title.lower() != q for h in hits[:5])
        print(f"  own_words = {s:<4g} tiny@5 {tiny / (5 * len(asked)):.3f}  named note first {first}/{len(asked)}")

    took: dict[float, list[float]] = {s: [] for s in scales}
    queries = asked[:20] + a.show
    for s in scales:  # warm: page caches, the word index
        for q in queries:
            _search(rts[s], q)
    for rep in range(a.repeat):
        for i, q in enumerate(queries):
            k = (rep + i) % len(scales)
            for s in scales[k:] + scales[:k]:
                t0 = time.perf_counter()
                _search(rts[s], q)
                took[s].append(time.perf_counter() - t0)
    base = median(took[scales[0]])
    print(f"\n== search latency (query embedding included), {len(queries)} queries x {a.repeat}, interleaved")
    for s in scales:
        print(f"  own_words = {s:<4g} p50 {median(took[s]) * 1e3:7.2f} ms  ratio {median(took[s]) / base:5.3f}")
    _stage1(rts, scales, queries, emb, a.repeat)
    for rt in rts.values():
        rt.close()


if __name__ == "__main__":
    main()
