from __future__ import annotations

import pytest

from groove.eval.golden import GoldenQuery
from groove.eval.run import EvalRun, score_results
from groove.eval.tune import NO_EFFECT, cell_grid, summarize

W0, W1 = (2.0, 1.0, 1.0), (1.0, 1.0, 1.0)
LABELS = {W0: "2/1/1", W1: "1/1/1"}


def run_with_first_ranks(ranks):
    """A fake run: query i finds its expected note at document rank ranks[i] (None: not at all)."""
    results = []
    for i, r in enumerate(ranks):
        g = GoldenQuery(f"q{i}", (f"e{i}.md",), line=i + 1)
        docs = [f"x{j}.md" for j in range(10)]
        if r is not None:
            docs.insert(r - 1, f"e{i}.md")
        results.append(score_results(g, docs[:10], 10))
    return EvalRun(10, results, [])


def test_identical_cells_say_the_knobs_do_not_move_quality():
    same = [1, 2, None, 3] * 10
    runs = {(60.0, W0): run_with_first_ranks(same), (10.0, W0): run_with_first_ranks(same),
            (60.0, W1): run_with_first_ranks(same)}
    res = summarize(runs, LABELS, (60.0, W0), "ndcg@10")
    assert res.significant == []
    assert res.verdict().startswith(NO_EFFECT)
    assert all(c.deltas["ndcg@10"] == 0 for c in res.cells)


def test_a_consistently_better_cell_is_named_in_the_verdict():
    runs = {(60.0, W0): run_with_first_ranks([3] * 40), (10.0, W0): run_with_first_ranks([1] * 40)}
    res = summarize(runs, LABELS, (60.0, W0), "ndcg@10")
    assert [c.rrf_k for c in res.significant] == [10.0]
    assert "rrf_k = 10" in res.verdict() and NO_EFFECT not in res.verdict()
    assert "[search.fusion]" in res.verdict()
    assert res.best.rrf_k == 10.0


def test_grid_always_contains_the_configured_baseline():
    ks, ws = cell_grid(45.0, (3.0, 1.0, 1.0))
    assert 45.0 in ks and (3.0, 1.0, 1.0) in [w for _, w in ws]
    ks2, ws2 = cell_grid(60.0, W0)
    assert ks2 == [10.0, 30.0, 60.0, 100.0, 200.0] and len(ws2) == 4


def test_plot_writes_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    from groove.eval.tune import plot_heatmap

    runs = {(k, w): run_with_first_ranks([1, 2] * 3) for k in (10.0, 60.0) for w in (W0, W1)}
    res = summarize(runs, LABELS, (60.0, W0), "ndcg@10")
    out = tmp_path / "grid.png"
    plot_heatmap(res, out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_lone_pass_in_a_big_grid_is_flagged_as_possibly_chance():
    base = [3] * 40
    runs = {(60.0, W0): run_with_first_ranks(base), (10.0, W0): run_with_first_ranks([1] * 40)}
    for k in (20.0, 30.0, 100.0, 200.0, 300.0, 400.0, 500.0):
        runs[(k, W0)] = run_with_first_ranks(base)
        runs[(k, W1)] = run_with_first_ranks(base)
    res = summarize(runs, LABELS, (60.0, W0), "ndcg@10")
    assert len(res.significant) == 1 and "may be chance" in res.verdict()
