"""`groove tune`: do the fusion knobs move quality on *this* KB at all?

A grid over ``rrf_k`` × a few bm25 column-weight settings, each cell scored
on the golden set and compared per query with the configured values (the
baseline) by a paired bootstrap plus a sign test (``eval.stats``, ADR 0030).
The verdict is about the primary metric, nDCG@10 (MRR when ``k`` < 10);
the other deltas are shown for context, not tested, to keep the number of
comparisons — and false alarms — down.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..pipeline.params import with_overrides
from .run import EvalRun, EvalSession, SearchOptions
from .stats import Significance, compare

RRF_KS: tuple[float, ...] = (10.0, 30.0, 60.0, 100.0, 200.0)
# (label, heading, context, content): the default, flat, and each side pushed.
WEIGHT_SETTINGS: tuple[tuple[str, float, float, float], ...] = (
    ("2/1/1", 2.0, 1.0, 1.0),
    ("1/1/1", 1.0, 1.0, 1.0),
    ("4/1/1", 4.0, 1.0, 1.0),
    ("1/1/2", 1.0, 1.0, 2.0),
)
NO_EFFECT = "these knobs don't move quality on this KB"


@dataclass(frozen=True)
class Cell:
    rrf_k: float
    weights: tuple[float, float, float]
    label: str
    means: dict[str, float]
    deltas: dict[str, float]  # mean metric minus the baseline's
    significance: Significance  # on the primary metric
    is_baseline: bool


@dataclass(frozen=True)
class TuneResult:
    primary: str
    baseline: Cell
    cells: list[Cell]
    rrf_ks: list[float]
    weight_labels: list[str]

    @property
    def significant(self) -> list[Cell]:
        return [c for c in self.cells if not c.is_baseline and c.significance.significant]

    @property
    def best(self) -> Cell:
        return max(self.cells, key=lambda c: (c.means[self.primary], c.is_baseline))

    def verdict(self) -> str:
        sig = self.significant
        if not sig:
            spread = max(abs(c.deltas[self.primary]) for c in self.cells)
            return (f"{NO_EFFECT}: no setting differs from the baseline by more than noise on "
                    f"{self.primary} (largest mean change {spread:+.4f}); keep the defaults.")
        ups = [c for c in sig if c.deltas[self.primary] > 0]
        if not ups:
            return (f"the baseline is as good as it gets here: {len(sig)} setting(s) are distinguishably "
                    f"worse on {self.primary}, none better; keep the current values.")
        b = max(ups, key=lambda c: c.deltas[self.primary])
        ci = b.significance.bootstrap
        tested = len(self.cells) - 1
        # With ~20 settings tested, one chance pass at 5% is expected: say so.
        caution = (f" Only {len(sig)} of {tested} settings passed, so this may be chance across the grid: "
                   "confirm on more queries before changing the defaults."
                   if len(sig) <= max(1, round(0.05 * tested)) else "")
        return (f"rrf_k = {b.rrf_k:g}, heading/context/content = {b.label} improves {self.primary} by "
                f"{b.deltas[self.primary]:+.4f} (95% CI {ci.ci_low:+.4f}..{ci.ci_high:+.4f}, sign test "
                f"p = {b.significance.sign.p_value:.3f}); to use it, set it in groove.toml [search.fusion] "
                f"and re-run eval.{caution}")


def cell_grid(base_rrf_k: float, base_weights: tuple[float, float, float],
              rrf_ks: Sequence[float] = RRF_KS,
              weights: Sequence[tuple[str, float, float, float]] = WEIGHT_SETTINGS
              ) -> tuple[list[float], list[tuple[str, tuple[float, float, float]]]]:
    """The grid axes, with the configured values added when they are not on it
    (the baseline must be a cell, or there is nothing to compare against)."""
    ks = sorted(set(float(k) for k in rrf_ks) | {float(base_rrf_k)})
    ws = [(label, (h, c, t)) for label, h, c, t in weights]
    if tuple(base_weights) not in [w for _, w in ws]:
        h, c, t = base_weights
        ws.insert(0, ("/".join(f"{x:g}" for x in base_weights), (h, c, t)))
    return ks, ws


def primary_metric(k: int) -> str:
    return "ndcg@10" if k >= 10 else "mrr"


def _per_query(run: EvalRun, metric: str) -> list[float]:
    return [r.metrics[metric] for r in run.results]


Weights = tuple[float, float, float]


def summarize(runs: dict[tuple[float, Weights], EvalRun], labels: dict[Weights, str],
              baseline: tuple[float, Weights], primary: str) -> TuneResult:
    """Pure: per-cell means, deltas and significance from the runs of each cell."""
    base_run = runs[baseline]
    base_means = base_run.aggregate()["overall"]
    base_pq = _per_query(base_run, primary)
    cells: list[Cell] = []
    for (k, w), run in runs.items():
        means = {m: v for m, v in run.aggregate()["overall"].items() if m != "n"}
        pq = _per_query(run, primary)
        sig = compare([a - b for a, b in zip(pq, base_pq)])
        cells.append(Cell(k, w, labels[w], means, {m: means[m] - base_means[m] for m in means}, sig,
                          (k, w) == baseline))
    ks = sorted({c.rrf_k for c in cells})
    wl = list(dict.fromkeys(labels[w] for _, w in runs))
    base_cell = next(c for c in cells if c.is_baseline)
    return TuneResult(primary, base_cell, cells, ks, wl)


def run_tune(session: EvalSession, opts: SearchOptions, k: int,
             rrf_ks: Sequence[float] = RRF_KS,
             weights: Sequence[tuple[str, float, float, float]] = WEIGHT_SETTINGS,
             progress: Any = None) -> TuneResult:
    cfg = session.primary.config.search
    f = cfg.fusion
    base_w = (f.heading_weight, f.context_weight, f.content_weight)
    ks, ws = cell_grid(f.rrf_k, base_w, rrf_ks, weights)
    labels = {w: label for label, w in ws}
    runs: dict[tuple[float, tuple[float, float, float]], EvalRun] = {}
    total = len(ks) * len(ws)
    for _label, w in ws:
        for rk in ks:
            variant = with_overrides(cfg, rrf_k=rk, heading_weight=w[0], context_weight=w[1], content_weight=w[2])
            runs[(rk, w)] = session.run(opts, k, session.variant(variant))
            if progress:
                progress(len(runs), total)
    return summarize(runs, labels, (float(f.rrf_k), base_w), primary_metric(k))


def plot_heatmap(result: TuneResult, path: Path) -> None:
    """nDCG@10 (the primary metric) over the grid; raises ImportError without matplotlib."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    grid = [[next(c.means[result.primary] for c in result.cells if c.label == wl and c.rrf_k == k)
             for k in result.rrf_ks] for wl in result.weight_labels]
    fig, ax = plt.subplots(figsize=(1.3 * len(result.rrf_ks) + 2, 0.7 * len(result.weight_labels) + 1.6))
    im = ax.imshow(grid, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(result.rrf_ks)), [f"{k:g}" for k in result.rrf_ks])
    ax.set_yticks(range(len(result.weight_labels)), result.weight_labels)
    ax.set_xlabel("rrf_k")
    ax.set_ylabel("bm25 heading/context/content")
    lo, hi = min(min(r) for r in grid), max(max(r) for r in grid)
    for i, row in enumerate(grid):
        for j, v in enumerate(row):
            c = next(c for c in result.cells if c.label == result.weight_labels[i] and c.rrf_k == result.rrf_ks[j])
            mark = "*" if c.significance.significant else ("=" if c.is_baseline else "")
            ax.text(j, i, f"{v:.3f}{mark}", ha="center", va="center", fontsize=8,
                    color="black" if hi > lo and (v - lo) / (hi - lo) > 0.6 else "white")
    # The colour scale spans only the observed range: read the numbers, not the colours.
    ax.set_title(f"{result.primary}  (= baseline, * differs beyond noise; colours span {lo:.3f}..{hi:.3f})",
                 fontsize=9)
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
