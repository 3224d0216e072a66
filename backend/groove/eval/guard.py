"""The quality guard: a fixed golden set on a fixed slice of real vaults, scored
against a committed baseline (issue 36, docs/eval.md).

A ranking change that costs unseen questions their first place moves mean
nDCG@10 and MRR only by a few hundredths, and no unit test sees it. The
guard runs the real pipeline with the default model, as ``groove eval``
does, and fails when either mean drops by more than ``tolerance`` below the
baseline file. The tolerance absorbs what another CPU's llama.cpp kernels do
to near-tied ranks (a flip or two); a lost lever costs more.

The baseline is written only on purpose (``bench/quality_guard.py --write``),
with the reason in the commit that changes it.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .golden import load_golden
from .run import EvalSession, SearchOptions

K = 10


@dataclass(frozen=True)
class Figures:
    """One language's means over the guard's questions."""

    ndcg: float
    mrr: float
    queries: int


@dataclass(frozen=True)
class Baseline:
    tolerance: float
    figures: dict[str, Figures]
    reason: str = ""


def slice_vault(src: Path, dst: Path, keep: set[str], every: int) -> list[str]:
    """Copy into ``dst`` the notes of ``src`` named in ``keep`` and, as
    distractors, every ``every``-th other note (sorted, so the slice is the
    same on every machine). Returns the copied paths."""
    if dst.exists():
        shutil.rmtree(dst)
    others = sorted(p.relative_to(src).as_posix() for p in src.rglob("*.md")
                    if p.relative_to(src).as_posix() not in keep)
    chosen = sorted(keep | set(others[::every]))
    for rel in chosen:
        t = dst / rel
        t.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src / rel, t)
    return chosen


def measure(golden_path: Path, vaults: Mapping[str, Path], *, embedder: Any = None,
            search_cfg: Any = None, legs: str = "hybrid") -> dict[str, Figures]:
    """Index ``vaults`` (lang -> vault; incremental) and score the golden file,
    per language. ``search_cfg`` swaps in another ``SearchConfig``, ``legs``
    runs some legs alone."""
    golden = load_golden(golden_path)
    sess = EvalSession(golden, {q.key: vaults[q.lang or ""] for q in golden.queries}, embedder=embedder)
    try:
        sess.reindex()
        rts = sess.variant(search_cfg) if search_cfg is not None else None
        by_lang = sess.run(SearchOptions(legs=legs), K, rts).aggregate()["by_lang"]
    finally:
        sess.close()
    return {lang: Figures(round(m["ndcg@10"], 4), round(m["mrr"], 4), int(m.get("n", 0) or 0))
            for lang, m in sorted(by_lang.items())}


def regressions(measured: Mapping[str, Figures], baseline: Baseline) -> list[str]:
    """What fell more than the tolerance below the baseline, one line each."""
    out = []
    for lang, base in sorted(baseline.figures.items()):
        got = measured.get(lang)
        if got is None:
            out.append(f"{lang}: not measured")
            continue
        for name in ("ndcg", "mrr"):
            b, g = getattr(base, name), getattr(got, name)
            if g < b - baseline.tolerance:
                out.append(f"{lang} {name}: {g:.3f} < baseline {b:.3f} - {baseline.tolerance}")
    return out


def load_baseline(path: Path) -> Baseline:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Baseline(float(data["tolerance"]), {k: Figures(**v) for k, v in data["figures"].items()},
                    data.get("reason", ""))


def write_baseline(path: Path, baseline: Baseline) -> None:
    data = {"tolerance": baseline.tolerance, "reason": baseline.reason,
            "figures": {k: asdict(v) for k, v in sorted(baseline.figures.items())}}
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
