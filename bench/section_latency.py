"""What section evidence (issue 49) costs a search: ``section_weight = 0.25``
on the normal vector path (``pipeline/sections.py``) and by the exact scan
of every vector (``section_exact``, ``index/space.py``), each against
``section_weight = 0``, timed side by side in one run.

    python bench/section_latency.py --index IDX [--golden G --lang L] [--repeat 5]
    python bench/section_latency.py --chunks 45000 [--keep PATH] [--repeat 5]
    python bench/section_latency.py --big PATH [--repeat 5]

``--index``: an index of a help vault (a copy: opening it may migrate it),
asked the golden file's questions of ``--lang`` (default: scale.py's eight).
``--chunks N``: a synthetic vault of N chunks built as ``bench/scale.py``
builds it (real sentences parsed and chunked by groove, vectors drawn from
the default model's distribution and written directly: embedding 40k+
chunks takes hours here), kept with ``--keep`` and reused with ``--big``.
Past 40k chunks the daemon's vector copy is scanned on its leading axes
(ADR 0222): the path section evidence must not leave.

Each question is embedded once by the default model; stage 1
(``hybrid_candidates``: every leg, the note-aware ranking, RRF, the
candidate load) is then timed with the vector given, the three settings
interleaved in rotating order so the host's load hits all alike, as a
one-shot process runs it (sqlite-vec) and, on a vault past the copy's
10k rows, as the daemon does (the vector copy warm). The exact scan's copy
of every vector is loaded before timing (its load is not counted).
Prints p50s, the ratio of stage 1, and the ratio of a search (the query
embedding's p50 plus stage 1's, the embedding timed alongside).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import groove  # noqa: F401  before numpy, as in groove's processes (ADR 0135)

# isort: split
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, median, scratch_dir  # noqa: E402
from scale import DIM, QUERIES, VectorModel, build, sentences  # noqa: E402

# "off": as before issue 49 (no section evidence, no tiny-chunk prior);
# "shipped": today's defaults (both on).
SETTINGS = {"off": {"section_weight": 0.0, "own_words": 0.0},
            "sections": {"section_weight": 0.25, "own_words": 0.0},
            "exact scan": {"section_weight": 0.25, "section_exact": True, "own_words": 0.0},
            "shipped": {}}


def _configs():
    import dataclasses

    from groove.config import SearchConfig

    base = SearchConfig()
    return {name: dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **ov))
            for name, ov in SETTINGS.items()}


def time_stage1(opened: dict, emb, queries: list[str], repeat: int, label: str) -> None:
    """``opened``: setting name -> its own Index of the same file (a connection
    each, so one setting's page cache is not another's)."""
    from groove.pipeline import SearchParams, resolve_params
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import hybrid_candidates
    from groove.query import parse_query

    cfgs = _configs()
    jobs = []
    embed: list[float] = []
    for q in queries:
        per = {}
        for name, cfg in cfgs.items():
            r = resolve_params(SearchParams(query=q), cfg)
            parsed = parse_query(r.query, short_cjk=r.short_cjk)
            per[name] = (parsed, r)
        t0 = time.perf_counter()
        v = emb.embed_query(per["off"][0].embed_text)
        embed.append(time.perf_counter() - t0)
        jobs.append((per, v))
    took: dict[str, list[float]] = {name: [] for name in cfgs}
    names = list(cfgs)
    for per, v in jobs:  # warm: caches, the exact scan's copy
        for name in names:
            parsed, r = per[name]
            idx = opened[name]
            hybrid_candidates(idx, parsed, v, r, build_restriction(idx, r))
    for rep in range(repeat):
        for i, (per, v) in enumerate(jobs):
            k = (rep + i) % len(names)
            for name in names[k:] + names[:k]:
                parsed, r = per[name]
                idx = opened[name]
                restriction = build_restriction(idx, r)
                t0 = time.perf_counter()
                hybrid_candidates(idx, parsed, v, r, restriction)
                took[name].append(time.perf_counter() - t0)
    e = median(embed)
    base = median(took["off"])
    print(f"{label}: {len(queries)} questions x {repeat}; query embedding p50 {e * 1e3:.1f} ms")
    for name in names:
        s = median(took[name])
        print(f"  {name:<11} stage 1 p50 {s * 1e3:7.2f} ms  ratio {s / base:5.2f}   "
              f"search (embedding + stage 1) ratio {(e + s) / (e + base):5.2f}")


def golden_queries(path: Path, lang: str) -> list[str]:
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [d["query"] for d in lines if d.get("lang", lang) == lang]


def synthetic(chunks: int, keep: Path | None, emb):
    from groove.storage import migrations as schema
    from groove.storage.db import Index

    pool = [s for p in (EVAL / "vault-en", EVAL / "vault-ja") for s in sentences(p)]
    model = VectorModel(emb, random.Random(3).sample(pool, min(512, len(pool))), np.random.default_rng(7))
    path = keep if keep is not None else scratch_dir("groove-sections-") / "index.sqlite"
    idx = Index(path)
    with idx.atomic() as c:
        schema.create_vec_tables(c, DIM)
    t0 = time.perf_counter()
    have = build(idx, pool, random.Random(7), model, 0, chunks, 256)
    print(f"built {have} synthetic chunks in {time.perf_counter() - t0:.0f} s")
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index", type=Path, help="an index of a help vault (a copy)")
    ap.add_argument("--golden", type=Path, help="ask this golden file's questions of --lang")
    ap.add_argument("--lang", default="en")
    ap.add_argument("--limit", type=int, default=40, help="at most this many questions")
    ap.add_argument("--chunks", type=int, help="build a synthetic vault of this many chunks")
    ap.add_argument("--keep", type=Path, help="keep the synthetic index here")
    ap.add_argument("--big", type=Path, help="a synthetic index --keep kept")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    from groove.engines.vectors.cache import MIN_ROWS
    from groove.models.registry import load_embedder
    from groove.storage.db import Index

    emb = load_embedder(None)
    queries = golden_queries(a.golden, a.lang)[: a.limit] if a.golden else list(QUERIES)
    path = a.index or a.big or synthetic(a.chunks, a.keep, emb)
    for daemon in (False, True):
        opened = {name: Index(path, create=False) for name in SETTINGS}
        (n,) = opened["off"].conn.execute("SELECT count(*) FROM chunks").fetchone()
        if daemon and n < MIN_ROWS:
            break  # no copy below its threshold: the daemon runs as the one-shot process did
        how = "one-shot (sqlite-vec)"
        if daemon:
            for idx in opened.values():
                idx.vectors.warm(idx.conn)
            how = f"daemon (vector copy, head scan {opened['off'].vectors.status(opened['off'].conn)['head_scan']})"
        time_stage1(opened, emb, queries, a.repeat, f"{path.name}, {n} chunks, {how}")
        for idx in opened.values():
            idx.close()

if __name__ == "__main__":
    main()
