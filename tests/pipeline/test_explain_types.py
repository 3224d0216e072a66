"""The explain objects a search writes are the ones the wire declares
(``wire/explain.py``, hence protocol.json and the plugins' protocol.ts):
every key the pipeline writes is declared, with its declared type."""

from __future__ import annotations

from groove.pipeline import SearchParams, run_search
from stagekit import small_rt, with_search  # noqa: F401  (fixture)
from wirecheck import problems


def test_hit_explain_and_confidence_are_the_declared_types(small_rt):
    plain = small_rt
    widened = with_search(small_rt, mmr={"enabled": True, "lambda_": 0.3}, parent={"enabled": True})
    seen: set[str] = set()
    for rt in (plain, widened):
        for q in ("bread dough", "東京", "sync my notes", "garden -roses", "zzqx unknownword"):
            resp = run_search(rt, SearchParams(q, limit=8, explain=True))
            assert problems(resp.confidence, "ConfidenceExplain") == [], q
            for h in resp.results:
                assert problems(h.explain, "HitExplain") == [], (q, h.explain)
                seen |= set(h.explain) | set(h.explain["legs"])
    # The search above exercised the optional parts too, so the check saw them.
    assert {"mmr", "expanded", "final_rank", "vector", "full_text"} <= seen


def test_the_check_sees_a_key_the_wire_does_not_declare(small_rt):
    h = run_search(small_rt, SearchParams("bread dough", limit=1, explain=True)).results[0]
    assert problems({**h.explain, "new_stage": 1}, "HitExplain") == ["undeclared key HitExplain.new_stage"]
    legs = {**h.explain["legs"], "vector": {"rank": "1", "rrf": 0.1}}
    assert problems({**h.explain, "legs": legs}, "HitExplain")
