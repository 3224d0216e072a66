"""Questions and related-notes judgments on built indexes of one vault, side by side (ADR 0210).

    python bench/daily_eval.py VAULT GOLDEN RELATED LABEL=INDEX [LABEL=INDEX ...]

Each INDEX is used as it is (nothing is re-indexed, so an index built with
``[index] boilerplate = false`` stays so). Prints nDCG@10 / MRR / Hit@5 /
Recall@10 per kind, and for the related-notes judgments (JSON Lines of
``{"note", "related": [...]}``) the precision at 5 of ``related_notes``'
similar notes, their recall at 10, and the share of daily notes among
the first 5 similar notes of a topic note.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

METRICS = ["ndcg@10", "mrr", "hit@5", "recall@10"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vault", type=Path)
    ap.add_argument("golden", type=Path)
    ap.add_argument("related", type=Path)
    ap.add_argument("indexes", nargs="+")
    ap.add_argument("--per-query", action="store_true")
    a = ap.parse_args()
    from groove.eval.golden import load_golden
    from groove.eval.run import EvalSession, SearchOptions, resolve_vaults
    from groove.operations.related import related_notes

    golden = load_golden(a.golden)
    judged = [json.loads(line) for line in a.related.read_text(encoding="utf-8").splitlines() if line.strip()]
    vault = a.vault.resolve()
    ranks: dict[str, dict[str, object]] = {}
    for spec in a.indexes:
        label, _, path = spec.partition("=")
        sess = EvalSession(golden, resolve_vaults(golden, vault, {}), index_paths={vault: Path(path)})
        run = sess.run(SearchOptions(legs="hybrid"), 10, sess.runtimes)
        agg = run.aggregate()
        print(f"\n== {label}: {len(golden.queries)} questions")
        rows = [("all", agg["overall"])] + sorted(agg["by_kind"].items())
        for kind, m in rows:
            print(f"  {kind[:10]:<10}" + "".join(f"  {k} {m[k]:.3f}" for k in METRICS))
        ranks[label] = {r.golden.query: r.first_rank for r in run.results}
        rt = sess.primary
        p5 = r10 = 0.0
        dailies_of_topics: list[float] = []
        for j in judged:
            sim = [s["path"] for s in related_notes(rt, j["note"], limit=10)["similar"]]
            rel = set(j["related"])
            p5 += len(rel & set(sim[:5])) / 5
            r10 += len(rel & set(sim[:10])) / len(rel)
            if not j["note"].startswith("Daily/"):
                dailies_of_topics.append(sum(p.startswith("Daily/") for p in sim[:5]) / 5)
        n = len(judged)
        share = sum(dailies_of_topics) / max(len(dailies_of_topics), 1)
        print(f"  related ({n} notes): precision@5 {p5 / n:.3f}  recall@10 {r10 / n:.3f}  "
              f"daily notes in a topic note's first 5: {share:.2f}")
        sess.close()
    if a.per_query:
        labels = list(ranks)
        print("\nfirst expected rank: " + " / ".join(labels))
        for q in ranks[labels[0]]:
            print("  " + " / ".join(f"{str(ranks[lb][q]):>4}" for lb in labels) + f"  {q}")


if __name__ == "__main__":
    main()
