"""The quality guard, by hand: measure, compare with the baseline, or write it.

    python bench/quality_guard.py                 # measure and compare (what make test does)
    python bench/quality_guard.py --variant SPEC  # the same under a config variant (levers.py syntax)
    python bench/quality_guard.py --write --reason "why the baseline moves"

The guard's questions are tests/quality/guard.jsonl; its vaults are slices of
the English and Japanese help vaults in ../shared/eval (the pages the
questions expect plus every fourth other page). Write the baseline only on
purpose, with the reason in the commit.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402
from levers import VARIANTS, _cfg, _inline  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "quality" / "guard.jsonl"
BASELINE = ROOT / "tests" / "quality" / "baseline.json"
TOLERANCE = 0.02
DISTRACTOR_EVERY = 4


def guard_vaults(work: Path) -> dict[str, Path]:
    """lang -> the guard's slice of that help vault, built under ``work``."""
    from groove.eval.golden import load_golden
    from groove.eval.guard import slice_vault

    golden = load_golden(GOLDEN)
    out = {}
    for lang in sorted({q.lang for q in golden.queries}):
        keep = {p for q in golden.queries if q.lang == lang for p in (*q.expected, *q.partial)}
        out[lang] = work / f"vault-{lang}"
        slice_vault(EVAL / f"vault-{lang}", out[lang], keep, DISTRACTOR_EVERY)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", default="", help="a levers.py variant name or inline spec")
    ap.add_argument("--write", action="store_true", help="write the measured figures as the baseline")
    ap.add_argument("--reason", default="", help="why the baseline moves (kept in the file)")
    ap.add_argument("--work", type=Path, default=None, help="keep the slices and indexes here")
    a = ap.parse_args()
    from groove.config import SearchConfig
    from groove.eval.guard import Baseline, load_baseline, measure, regressions, write_baseline

    cfg, legs = None, "hybrid"
    if a.variant:
        legs, ov = VARIANTS[a.variant] if a.variant in VARIANTS else _inline(a.variant)
        cfg = _cfg(SearchConfig(), ov)
    with tempfile.TemporaryDirectory() as tmp:
        work = a.work or Path(tmp)
        got = measure(GOLDEN, guard_vaults(work), search_cfg=cfg, legs=legs)
    base = load_baseline(BASELINE) if BASELINE.exists() else None
    for lang, f in got.items():
        b = base.figures.get(lang) if base else None
        was = f"   baseline {b.ndcg:.3f} / {b.mrr:.3f}" if b else ""
        print(f"{lang}: nDCG@10 {f.ndcg:.3f}  MRR {f.mrr:.3f}  ({f.queries} questions){was}")
    if a.write:
        if not a.reason:
            raise SystemExit("--write needs --reason: say why the baseline moves")
        write_baseline(BASELINE, Baseline(TOLERANCE, got, a.reason))
        print(f"wrote {BASELINE.relative_to(ROOT)}")
    elif base:
        bad = regressions(got, base)
        print("\n".join(bad) if bad else f"within {base.tolerance} of the baseline")
        sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
