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
    assert plain.confidence is None and plain.to_json()["confidence"] is None
    assert told.low_confidence == plain.low_confidence and told.confidence["low_confidence"] == told.low_confidence


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


def test_an_explained_search_says_why_low_confidence_is_what_it_is(small_rt):
    from groove.explain_text import describe_confidence
    from groove.wire.search import SearchResponse

    for q in QUERIES:
        c = run_search(small_rt, SearchParams(q, limit=5, explain=True)).confidence
        assert c["rule"] == "calibrated"
        # A query that names a hit's note is never low (ADR 0251).
        assert c["low_confidence"] == ((c["score"] < c["threshold"] or bool(c.get("unknown_names")))
                                       and not c.get("named_note"))
        # score = z - 3 x unknown share (pipeline/confidence.py)
        assert c["score"] == pytest.approx(c["best_passage_z"] - 3 * (1 - c["known_share"]), abs=1e-3)
        assert describe_confidence(c).startswith("low: " if c["low_confidence"] else "not low: ")
    margin = run_search(small_rt, SearchParams("coffee", limit=5, explain=True, min_confidence_ratio=0.12))
    assert margin.confidence["rule"] == "margin" and margin.confidence["threshold"] == 0.12
    assert "best_passage_z" not in margin.confidence
    empty = run_search(small_rt, SearchParams("zzqqxxyy", limit=5, explain=True, legs="fts"))
    assert empty.confidence == {"low_confidence": True, "rule": "empty"}
    assert describe_confidence(empty.confidence) == "low: nothing matched"
    # A name the vault never contains flags the search whatever the score (ADR 0220).
    named = run_search(small_rt, SearchParams("bread from Joplin", limit=5, explain=True)).confidence
    assert named["low_confidence"] and named["unknown_names"] == ["Joplin"]
    assert describe_confidence(named).startswith("low: ")
    assert describe_confidence(named).endswith('the vault never mentions "Joplin")')
    # The wire form carries it both ways (the CLI reads the daemon's answer back).
    told = run_search(small_rt, SearchParams("coffee", limit=5, explain=True))
    assert SearchResponse.from_json(told.to_json()).confidence == told.confidence
