"""Search across two vaults against each vault alone (issue 39, ADR 0205).

    python bench/multi_vault.py [GOLDEN ...] [--index-dir DIR] [--no-answer SET ...]

The English and Japanese Obsidian help served together, as `groove mcp
--vault vault-en --vault vault-ja` serves them: each query of a golden set
runs in both vaults and the two lists are fused by the MCP server's own
``vaults.fuse``. Scored with the eval code ``bench/levers.py`` uses
(``groove.eval``): nDCG@10 / MRR / Hit@5 per language, alone and fused, and
the difference (the issue's bar: each language within 0.01 of its vault
alone). A hit from the other vault never counts as relevant, even under the
same path. Also: how many fused top-10s hold a hit of the other vault, and
``low_confidence`` on the no-answer sets (flagged share, alone vs fused) and
on the answerable ones (false flags).

``--index-dir DIR`` uses ``DIR/en.sqlite`` and ``DIR/ja.sqlite`` (built on
first use, reused after).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"
ANSWERABLE = [EVAL / "golden-dev.jsonl", GOLDEN / "golden-holdout.jsonl", GOLDEN / "golden-unseen.jsonl",
              GOLDEN / "golden-fresh.jsonl", GOLDEN / "golden-extra.jsonl", GOLDEN / "golden-multivault-holdout.jsonl"]
NO_ANSWER = [GOLDEN / "no-answer-dev.jsonl", GOLDEN / "no-answer-holdout.jsonl", GOLDEN / "no-answer-fresh.jsonl",
             GOLDEN / "no-answer.jsonl", GOLDEN / "no-answer-multivault-holdout.jsonl"]
LANGS = ("en", "ja")
K = 10
METRICS = ("ndcg@10", "mrr", "hit@5")


@dataclasses.dataclass
class Lists:
    """One query's answers: each vault's response, and the fused one."""

    own: str
    by_vault: dict[str, dict[str, Any]]
    fused: dict[str, Any]

    def paths(self, resp: dict[str, Any]) -> list[str]:
        # The other vault's hits are marked so they never match an expected path.
        return [h["path"] if h.get("vault", self.own) == self.own else f'{h["vault"]}::{h["path"]}'
                for h in resp["results"]]


def _no_answer(path: Path) -> list[tuple[str, str]]:
    """(query, lang) of a no-answer set (lines without ``expected``)."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return [(r["query"], r["lang"]) for r in rows if r.get("lang") in LANGS]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("golden", nargs="*", type=Path, default=ANSWERABLE)
    ap.add_argument("--no-answer", nargs="*", type=Path, default=NO_ANSWER)
    ap.add_argument("--index-dir", type=Path, default=None, help="use <dir>/<lang>.sqlite as the indexes")
    a = ap.parse_args()

    from groove.eval.golden import load_golden
    from groove.eval.metrics import collapse_to_documents
    from groove.eval.run import EvalSession, SearchOptions, evaluate, resolve_vaults
    from groove.mcp.vaults import fuse
    from groove.pipeline import run_search

    vaults = {lang: (EVAL / f"vault-{lang}").resolve() for lang in LANGS}
    idx = {vaults[lang]: a.index_dir / f"{lang}.sqlite" for lang in LANGS} if a.index_dir else None
    first = load_golden(a.golden[0])
    sess = EvalSession(first, resolve_vaults(first, None, vaults), index_paths=idx)
    sess.reindex()
    rts = {lang: sess.runtimes[vaults[lang]] for lang in LANGS}
    cache: dict[tuple[str, str], Lists] = {}

    def lists(query: str, lang: str) -> Lists:
        if (query, lang) not in cache:
            p = dataclasses.replace(SearchOptions().params(query, K), explain=True)
            by = {v: run_search(rt, p, max_limit=None).to_json() for v, rt in rts.items()}
            solo = fuse([(lang, by[lang])], K)  # one vault through the fusion: its own list, unchanged
            assert [h["chunk_id"] for h in solo["results"]] == [h["chunk_id"] for h in by[lang]["results"]]
            cache[query, lang] = Lists(lang, by, fuse([(v, by[v]) for v in LANGS], K))
        return cache[query, lang]

    def plain(query: str, lang: str) -> list[str]:
        return [h.path for h in run_search(rts[lang], SearchOptions().params(query, K), max_limit=None).results]

    print(f"{'set':<36}{'lang':<5}{'n':>4}" + "".join(f"{m + ' alone':>14}{'fused':>7}{'diff':>8}" for m in METRICS)
          + f"{'mixed':>7}")
    lowrows: list[str] = []
    moved: list[str] = []
    for gpath in a.golden:
        golden = load_golden(gpath)

        def have(g: Any) -> set[str]:
            return set(sess.notes(vaults[g.lang]))

        def ask(g: Any, which: str) -> list[str]:
            ls = lists(g.query, g.lang)
            return ls.paths(ls.fused if which == "fused" else ls.by_vault[g.lang])

        alone = evaluate(golden.queries, lambda g: ask(g, "alone"), K, have)
        fused = evaluate(golden.queries, lambda g: ask(g, "fused"), K, have)
        changed = sum(collapse_to_documents(plain(g.query, g.lang))[:K] != r.docs
                      for g, r in zip(golden.queries, alone.results))
        assert not changed, f"asking for explain changed {changed} rankings"
        for lang in LANGS:
            qs = [g for g in golden.queries if g.lang == lang]
            if not qs:
                continue
            mixed = sum(any(h["vault"] != lang for h in lists(g.query, lang).fused["results"]) for g in qs)
            low = [(lists(g.query, lang).by_vault[lang]["low_confidence"], lists(g.query, lang).fused["low_confidence"])
                   for g in qs]
            lowrows.append(f"{gpath.name:<36}{lang:<5}{len(qs):>4}{'answerable':>12}"
                           f"{sum(x for x, _ in low):>8}{sum(y for _, y in low):>8}")
            for g, ra, rf in zip(golden.queries, alone.results, fused.results):
                if g.lang == lang and rf.metrics["ndcg@10"] != ra.metrics["ndcg@10"]:
                    first = [h["vault"] for h in lists(g.query, lang).fused["results"]][:5]
                    moved.append(f"{gpath.name:<36}{lang:<5}{g.query[:40]:<42}{ra.metrics['ndcg@10']:>7.3f}"
                                 f"{rf.metrics['ndcg@10']:>7.3f}  {' '.join(first)}")
            ma, mf = alone.aggregate()["by_lang"][lang], fused.aggregate()["by_lang"][lang]
            print(f"{gpath.name:<36}{lang:<5}{len(qs):>4}"
                  + "".join(f"{ma[m]:>14.3f}{mf[m]:>7.3f}{mf[m] - ma[m]:>+8.3f}" for m in METRICS) + f"{mixed:>7}")
    for npath in a.no_answer:
        rows = _no_answer(npath)
        for lang in LANGS:
            qs = [q for q, la in rows if la == lang]
            if qs:
                lowrows.append(f"{npath.name:<36}{lang:<5}{len(qs):>4}{'no answer':>12}"
                               f"{sum(lists(q, lang).by_vault[lang]['low_confidence'] for q in qs):>8}"
                               f"{sum(lists(q, lang).fused['low_confidence'] for q in qs):>8}")
    print("\nqueries whose nDCG@10 moved (alone, fused, the vaults of the fused top 5)")
    print("\n".join(moved) or "(none)")
    print("\nlow_confidence: queries flagged, own vault alone vs the two fused (no answer: higher is better; "
          "answerable: lower is better)")
    print(f"{'set':<36}{'lang':<5}{'n':>4}{'kind':>12}{'alone':>8}{'fused':>8}")
    print("\n".join(lowrows))
    sess.close()


if __name__ == "__main__":
    main()
