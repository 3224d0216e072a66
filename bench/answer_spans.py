"""answer_spans (ADR 0256): what they cost a search, and whether they mark the answer.

    python bench/answer_spans.py --cost [--index-dir DIR]         # cost per search, as ratios
    python bench/answer_spans.py --paraphrase [--index-dir DIR]   # paraphrase questions: top 3 marked?
    python bench/answer_spans.py --set FILE... [--index-dir DIR]  # marked answer sentences: overlap share

``--cost``: on the English help vault, for each query, side by side in one
run: the query's embedding, a search without answer spans, the answer spans
of its hits with an empty sentence cache (the first search of a query) and
with a warm one (the same hits again, as when someone types on). Prints
medians and their ratios to the query embedding.

``--set``: lines ``{"query", "path", "answer", "lang"}`` (the sentence a
person marked as the answer in that note, written blind). A case counts when
the first answer span of the best hit from ``path`` overlaps where
``answer`` is in that hit's content; a case whose note is not in the top 10,
or whose hit does not hold the marked sentence, is counted apart.

Vaults are ../shared/eval/vault-<lang>; ``--index-dir`` keeps their indexes
(``<dir>/<lang>.sqlite``) between runs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder, median, scratch_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_SETS = [*sorted(EVAL.glob("golden-dev*.jsonl")), *sorted((ROOT / "bench" / "golden").glob("golden-*.jsonl"))]
COST_QUERIES = [
    "how do I keep my notes in sync between my phone and my computer",
    "put two documents next to each other on screen",
    "keyboard shortcut for a command",
    "can I get my money back after buying Sync",
    "where are my settings stored",
    "embed a YouTube video",
]


def runtimes(langs: set[str], index_dir: Path | None, embedder):  # noqa: ANN001, ANN201
    from groove.indexer import index_vault
    from groove.runtime import open_runtime

    where = index_dir or scratch_dir("answer-spans-")
    where.mkdir(parents=True, exist_ok=True)
    out = {}
    for lang in sorted(langs):
        rt = open_runtime(EVAL / f"vault-{lang}", index_path=where / f"{lang}.sqlite")
        rt._embedder = embedder
        index_vault(rt.vault, rt.index, embedder, rt.config.index)  # incremental once built
        out[lang] = rt
    return out


def cost(rt, embedder) -> None:  # noqa: ANN001
    from groove.pipeline import SearchParams, run_search
    from groove.pipeline.answers import CACHE, answer_spans

    rows = {"query embedding": [], "search, answer_spans off": [], "answer spans, cold cache": [],
            "answer spans, warm cache": []}
    sentences = []
    for q in COST_QUERIES:
        run_search(rt, SearchParams(q, answer_spans=False))  # warm the index pages
        for _ in range(3):
            t = time.perf_counter()
            qv = embedder.embed_query(q)
            rows["query embedding"].append(time.perf_counter() - t)
            t = time.perf_counter()
            resp = run_search(rt, SearchParams(q, answer_spans=False))
            rows["search, answer_spans off"].append(time.perf_counter() - t)
            CACHE.clear()
            t = time.perf_counter()
            answer_spans(resp.results, qv, embedder)
            rows["answer spans, cold cache"].append(time.perf_counter() - t)
            t = time.perf_counter()
            answer_spans(resp.results, qv, embedder)
            rows["answer spans, warm cache"].append(time.perf_counter() - t)
        from groove.pipeline.answers import MAX_SENTENCES
        from groove.pipeline.answers import sentences as split
        sentences.append(sum(min(len(split(h.content)), MAX_SENTENCES) for h in resp.results))
    base = median(rows["query embedding"])
    print(f"{len(COST_QUERIES)} queries x 3, 10 hits each, {median(sentences):.0f} sentences a search (median)")
    for name, xs in rows.items():
        print(f"  {name:<28} {median(xs) * 1000:8.1f} ms   x{median(xs) / base:6.1f} the query embedding")
    cold, search = median(rows["answer spans, cold cache"]), median(rows["search, answer_spans off"])
    print(f"  cold answer spans / a search without them: {cold / search:.2f}")


def paraphrase(rts) -> None:  # noqa: ANN001
    from groove.pipeline import SearchParams, run_search

    for path in GOLDEN_SETS:
        qs = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        qs = [q for q in qs if q.get("kind") == "paraphrase" and q.get("lang") in rts]
        if not qs:
            continue
        bare = [q["query"] for q in qs
                if not all(h.answer_spans for h in run_search(rts[q["lang"]], SearchParams(q["query"])).results[:3])]
        print(f"{path.name:<34} {len(qs) - len(bare):>3}/{len(qs)} paraphrase questions: top 3 all marked"
              + (f"; not: {bare}" if bare else ""))


def overlap_share(rts, files: list[Path]) -> None:  # noqa: ANN001
    from groove.pipeline import SearchParams, run_search

    by_lang: dict[str, list[str]] = {}
    for f in files:
        for ln in f.read_text(encoding="utf-8").splitlines():
            if not ln.strip():
                continue
            case = json.loads(ln)
            lang = case.get("lang", "en")
            resp = run_search(rts[lang], SearchParams(case["query"], limit=10))
            hit = next((h for h in resp.results if h.path == case["path"]), None)
            if hit is None:
                by_lang.setdefault(lang, []).append("note not in top 10")
                continue
            data = hit.content.encode("utf-8")
            at = data.find(case["answer"].strip().encode("utf-8"))
            if at < 0:
                by_lang.setdefault(lang, []).append("marked sentence not in the best hit")
                continue
            a, b = at, at + len(case["answer"].strip().encode("utf-8"))
            first = hit.answer_spans[0] if hit.answer_spans else None
            ok = first is not None and first.start < b and a < first.end
            by_lang.setdefault(lang, []).append("overlap" if ok else "other sentence")
    for lang, outcomes in sorted(by_lang.items()):
        judged = [o for o in outcomes if o in ("overlap", "other sentence")]
        share = sum(o == "overlap" for o in judged) / len(judged) if judged else 0.0
        apart = {o: outcomes.count(o) for o in set(outcomes) - {"overlap", "other sentence"}}
        print(f"{lang}: first answer span overlaps the marked sentence in {sum(o == 'overlap' for o in judged)}"
              f"/{len(judged)} = {share:.0%} of the cases whose hit holds it; set apart: {apart or 'none'}"
              f" (of {len(outcomes)})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--paraphrase", action="store_true")
    ap.add_argument("--set", nargs="*", type=Path, default=[])
    ap.add_argument("--langs", default="en,ja,zh,ko")
    ap.add_argument("--index-dir", type=Path, default=None)
    a = ap.parse_args()
    if not EVAL.is_dir():
        sys.exit(f"the help vaults are not at {EVAL}")
    embedder = default_embedder()
    langs = set(a.langs.split(","))
    if a.cost:
        langs = {"en"} if not (a.paraphrase or a.set) else langs
    if a.set:
        langs |= {json.loads(ln).get("lang", "en") for f in a.set
                  for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()}
    rts = runtimes(langs, a.index_dir, embedder)
    try:
        if a.cost:
            cost(rts["en"], embedder)
        if a.paraphrase:
            paraphrase(rts)
        if a.set:
            overlap_share(rts, a.set)
    finally:
        for rt in rts.values():
            rt.close()


if __name__ == "__main__":
    main()
