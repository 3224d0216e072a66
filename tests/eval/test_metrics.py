"""Each metric against values computed by hand (log2(3) = 1.5849625, log2(5) = 2.3219281)."""

from __future__ import annotations

import pytest

from groove.eval.golden import GoldenQuery
from groove.eval.metrics import (
    collapse_to_documents,
    hit_at,
    metric_names,
    ndcg_at,
    recall_at,
    reciprocal_rank,
    score_query,
)
from groove.eval.run import aggregate, score_results

DOCS = ["a.md", "b.md", "c.md", "d.md", "e.md"]


def test_collapse_keeps_first_occurrence_in_rank_order():
    assert collapse_to_documents(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


def test_recall_counts_distinct_expected_documents_within_the_cutoff():
    assert recall_at(DOCS, ["b.md", "e.md"], 1) == 0.0
    assert recall_at(DOCS, ["b.md", "e.md"], 2) == 0.5
    assert recall_at(DOCS, ["b.md", "e.md"], 5) == 1.0
    assert recall_at(DOCS, ["b.md", "missing.md"], 5) == 0.5  # unreachable stays in the denominator


def test_hit_is_one_when_any_expected_document_is_in_the_cutoff():
    assert hit_at(DOCS, ["c.md"], 1) == 0.0
    assert hit_at(DOCS, ["c.md"], 3) == 1.0
    assert hit_at(DOCS, ["z.md"], 5) == 0.0


def test_reciprocal_rank_uses_the_first_expected_document():
    assert reciprocal_rank(DOCS, ["d.md", "b.md"]) == 0.5
    assert reciprocal_rank(DOCS, ["z.md"]) == 0.0


def test_ndcg_binary_single_expected_at_rank_two():
    # DCG = 1/log2(3); IDCG = 1
    assert ndcg_at(DOCS, ["b.md"], [], 10) == pytest.approx(0.6309298, abs=1e-6)


def test_ndcg_graded_partial_counts_half_and_ideal_orders_expected_before_partial():
    # ranked gains: a 0, b 1 (expected), c 0.5 (partial), d 1 (expected)
    # DCG  = 1/log2(3) + 0.5/log2(4) + 1/log2(5) = 0.6309298 + 0.25 + 0.4306766 = 1.3116063
    # IDCG = 1 + 1/log2(3) + 0.5/log2(4)         = 1 + 0.6309298 + 0.25      = 1.8809298
    got = ndcg_at(DOCS, ["b.md", "d.md"], ["c.md"], 5)
    assert got == pytest.approx(1.3116063 / 1.8809298, abs=1e-6)


def test_ndcg_cutoff_truncates_both_dcg_and_ideal():
    # @2: DCG = 1/log2(3) (b); IDCG = 1 + 1/log2(3) (two expected)
    assert ndcg_at(DOCS, ["b.md", "d.md"], ["c.md"], 2) == pytest.approx(0.6309298 / 1.6309298, abs=1e-6)


def test_ndcg_a_path_both_expected_and_partial_is_expected():
    assert ndcg_at(["b.md"], ["b.md"], ["b.md"], 5) == pytest.approx(1.0)


def test_ndcg_only_partial_retrieved_is_below_one():
    # DCG = 0.5; IDCG = 1 + 0.5/log2(3) = 1.3154649
    assert ndcg_at(["p.md"], ["e.md"], ["p.md"], 10) == pytest.approx(0.5 / 1.3154649, abs=1e-6)


def test_chunks_are_collapsed_to_documents_before_scoring():
    g = GoldenQuery("q", expected=("y.md",), line=1)
    r = score_results(g, ["x.md", "x.md", "x.md", "y.md"], k=10)
    assert r.docs == ["x.md", "y.md"]
    assert r.metrics["mrr"] == 0.5  # rank 2 as a document, not 4 as a chunk
    assert r.metrics["hit@3"] == 1.0
    assert r.ranks == {"y.md": 2}


def test_metrics_above_the_retrieval_depth_are_not_reported():
    assert metric_names(5) == ["recall@1", "recall@5", "hit@1", "hit@3", "hit@5", "mrr", "ndcg@5"]
    assert set(score_query(DOCS, ["a.md"], [], 5)) == set(metric_names(5))


def test_aggregate_means_overall_per_lang_and_per_kind():
    a = score_results(GoldenQuery("q1", ("a.md",), kind="natural", lang="en", line=1), ["a.md"], 10)
    b = score_results(GoldenQuery("q2", ("a.md",), kind="short", lang="ja", line=2), ["z.md", "a.md"], 10)
    agg = aggregate([a, b])
    assert agg["overall"]["n"] == 2
    assert agg["overall"]["mrr"] == pytest.approx(0.75)
    assert agg["by_lang"]["ja"]["mrr"] == 0.5
    assert agg["by_kind"]["natural"]["recall@1"] == 1.0
