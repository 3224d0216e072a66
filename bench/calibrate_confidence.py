"""Calibrate `[search] min_confidence_ratio` (the low_confidence rule).

    python bench/calibrate_confidence.py [--index-dir DIR]

Runs the answerable golden queries (shared/eval/golden-dev.jsonl,
bench/golden/golden-extra.jsonl, golden-holdout.jsonl, golden-fresh.jsonl) and the unanswerable ones
(bench/golden/no-answer.jsonl) against the eval vaults, computes each query's
similarity margin (pipeline/confidence.py) and prints, per threshold, how
many queries the rule flags and its precision/recall for "nothing useful"
(no answer exists, or no expected note in the top 5). See ADR-0075.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402

HERE = Path(__file__).parent


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index-dir", type=Path, default=None, help="<dir>/<lang>.sqlite instead of the default indexes")
    a = ap.parse_args()
    from groove.pipeline import SearchParams, run_search
    from groove.pipeline.confidence import similarity_margin
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import hybrid_candidates
    from groove.pipeline.params import resolve_params
    from groove.query import parse_query
    from groove.runtime import open_runtime

    rts = {
        lang: open_runtime(EVAL / f"vault-{lang}", index_path=(a.index_dir / f"{lang}.sqlite") if a.index_dir else None)
        for lang in ("en", "ja")
    }
    rts["ja"]._embedder = rts["en"].embedder
    rows: list[tuple[bool, float, str]] = []  # (nothing useful?, margin, query)
    sets = [(EVAL / "golden-dev.jsonl", True), (HERE / "golden" / "golden-extra.jsonl", True),
            (HERE / "golden" / "golden-holdout.jsonl", True),
            (HERE / "golden" / "golden-fresh.jsonl", True),
            (HERE / "golden" / "no-answer.jsonl", False)]
    for path, answerable in sets:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            g = json.loads(line)
            rt = rts[g["lang"]]
            found = False
            if answerable:
                docs = list(dict.fromkeys(h.path for h in run_search(rt, SearchParams(g["query"])).results))
                found = any(p in docs[:5] for p in g["expected"])
            r = resolve_params(SearchParams(g["query"]), rt.config.search)
            pq = parse_query(g["query"])
            qvec = rt.embedder.embed_query(pq.embed_text)
            st = hybrid_candidates(rt.index, pq, qvec, r, build_restriction(rt.index, r))
            rows.append((not found, similarity_margin(np.asarray(st.vec_sims)), g["query"]))
    positives = sum(1 for bad, _, _ in rows if bad)
    print(f"{len(rows)} queries, {positives} with nothing useful in the top 5")
    print(f"{'threshold':>9} {'flagged':>8} {'precision':>10} {'recall':>7}")
    for th in (0.10, 0.12, 0.13, 0.14, 0.15, 0.16, 0.18, 0.20):
        flagged = [bad for bad, m, _ in rows if m < th]
        tp = sum(flagged)
        print(f"{th:>9.2f} {len(flagged):>8} {tp / len(flagged) if flagged else 1:>10.2f} {tp / positives:>7.2f}")


if __name__ == "__main__":
    main()
