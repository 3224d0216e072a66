"""`explain` (ADR 0123): each hit says which legs found it and what the later
stages did, and asking for it changes nothing else."""

from __future__ import annotations

import pytest

from groove.pipeline import SearchParams, run_search
from stagekit import small_rt, with_search  # noqa: F401  (fixture)

QUERIES = ["bread dough", "coffee", "東京", "sync my notes", "garden -roses"]


@pytest.mark.parametrize("q", QUERIES)
def test_explained_hits_are_the_same_hits_in_the_same_order(small_rt, q):
    plain = run_search(small_rt, SearchParams(q, limit=8))
    told = run_search(small_rt, SearchParams(q, limit=8, explain=True))
    assert [(h.chunk_id, h.score) for h in told.results] == [(h.chunk_id, h.score) for h in plain.results]
    assert all(h.explain is None for h in plain.results)
    assert "explain" not in plain.to_json()["results"][0]


def test_the_legs_rrf_shares_add_up_to_the_fused_score_and_order_stage_one(small_rt):
    resp = run_search(small_rt, SearchParams("bread dough recipe", limit=8, explain=True))
    assert resp.results
    for h in resp.results:
        e = h.explain
        assert e["legs"], "every candidate came from at least one leg"
        assert sum(leg["rrf"] for leg in e["legs"].values()) == pytest.approx(e["fused_score"], abs=1e-5)
        assert e["final_rank"] == h.rank
        if "full_text" in e["legs"]:
            assert 0 < e["legs"]["full_text"]["coverage"] <= 1
        if "vector" in e["legs"]:
            assert -1 <= e["legs"]["vector"]["cosine"] <= 1
    # No MMR, no reranker: the final order is stage 1's.
    assert [h.explain["stage1_rank"] for h in resp.results] == sorted(h.explain["stage1_rank"] for h in resp.results)
    fused = [h.explain["fused_score"] for h in resp.results]
    assert fused == sorted(fused, reverse=True)


def test_mmr_and_the_parent_retriever_are_reported(small_rt):
    rt = with_search(small_rt, mmr={"enabled": True, "lambda_": 0.3}, parent={"enabled": True})
    resp = run_search(rt, SearchParams("bread", limit=5, explain=True))
    assert resp.results
    for h in resp.results:
        assert h.explain["mmr"]["rank_after"] == h.rank
        assert h.explain["mmr"]["rank_before"] >= 1
        assert h.explain["expanded"] == bool(h.expanded_from)
