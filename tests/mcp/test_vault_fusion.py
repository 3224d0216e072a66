"""The rules of a server of several vaults that need no index (ADR 0205):
how vaults are named, and how their search lists are fused."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from groove.mcp.vaults import RRF_K, fuse, vault_names, vault_weights


def _hits(vault: str, n: int) -> list[dict]:
    return [{"path": f"{vault}-{i}.md", "rank": i, "score": 1.0 - i / 100, "chunk_id": i, "content": "",
             "explain": {"legs": "x"}} for i in range(1, n + 1)]


def _resp(vault: str, n: int, score: float | None, low: bool = False, rule: str = "calibrated",
          across: bool = False) -> dict:
    conf = {"low_confidence": low, "rule": rule, **({"across_languages": True} if across else {})}
    if score is not None:
        conf.update(score=score, threshold=0.75)
    return {"results": _hits(vault, n), "low_confidence": low, "filter_applied": {}, "warnings": [],
            "confidence": conf}


def test_vaults_are_named_by_folder_and_told_apart_by_parent() -> None:
    assert vault_names([Path("/a/Work"), Path("/b/Home")]) == ["Work", "Home"]
    assert vault_names([Path("/x/job/Notes"), Path("/x/home/Notes"), Path("/y/Other")]) == [
        "Notes (job)", "Notes (home)", "Other"]
    assert vault_names([Path("/p/Notes"), Path("/q/p/Notes")]) == ["Notes (p) 1", "Notes (p) 2"]


def test_weights_are_a_softmax_of_calibrated_margins_in_spreads() -> None:
    w = vault_weights([("A", _resp("A", 3, 2.75)), ("B", _resp("B", 3, 0.75))])
    assert [x.rule for x in w] == ["calibrated", "calibrated"]
    assert w[0].weight == pytest.approx(1 / (1 + math.exp(-2)))
    assert w[0].weight + w[1].weight == pytest.approx(1.0)


def test_without_a_calibrated_score_in_every_vault_the_weights_are_equal() -> None:
    w = vault_weights([("A", _resp("A", 3, 5.0)), ("B", _resp("B", 3, 0.1, rule="margin"))])
    assert [(x.rule, x.weight) for x in w] == [("equal", 0.5), ("equal", 0.5)]


def test_a_vault_with_no_hits_has_no_weight() -> None:
    w = vault_weights([("A", _resp("A", 3, 1.0)), ("B", {**_resp("B", 0, None, rule="empty"), "results": []})])
    assert [x.weight for x in w] == [1.0, 0.0]


def test_the_vault_the_question_is_about_leads_the_fused_list() -> None:
    out = fuse([("A", _resp("A", 10, 0.5)), ("B", _resp("B", 10, 3.5))], 10)
    assert [h["vault"] for h in out["results"]] == ["B"] * 10
    assert [h["path"] for h in out["results"]] == [f"B-{i}.md" for i in range(1, 11)]  # B's own order


def test_vaults_that_answer_equally_well_interleave_in_their_own_orders() -> None:
    out = fuse([("A", _resp("A", 3, 1.0)), ("B", _resp("B", 3, 1.0))], 6)
    assert [(h["vault"], h["path"]) for h in out["results"]] == [
        ("A", "A-1.md"), ("B", "B-1.md"), ("A", "A-2.md"), ("B", "B-2.md"), ("A", "A-3.md"), ("B", "B-3.md")]
    assert [h["rank"] for h in out["results"]] == [1, 2, 3, 4, 5, 6]
    assert out["results"][0]["score"] == pytest.approx(0.5 / (RRF_K + 1), abs=1e-8)


def test_one_vault_through_the_fusion_keeps_its_answer() -> None:
    own = _resp("A", 7, -3.0, low=True)
    out = fuse([("A", own)], 5)
    assert [(h["chunk_id"], h["rank"], h["score"], h["vault"]) for h in out["results"]] == [
        (h["chunk_id"], h["rank"], h["score"], "A") for h in own["results"][:5]]
    assert out["low_confidence"] is True and out["confidence"] is None


def test_low_confidence_only_when_every_vault_says_so() -> None:
    sure, unsure = _resp("A", 2, 2.0), _resp("B", 2, -1.0, low=True)
    assert fuse([("A", sure), ("B", unsure)], 4)["low_confidence"] is False
    assert fuse([("A", {**sure, "low_confidence": True}), ("B", unsure)], 4)["low_confidence"] is True


def test_explain_says_each_hits_vault_rank_and_weight_and_is_dropped_otherwise() -> None:
    named = [("A", _resp("A", 2, 1.0)), ("B", {**_resp("B", 2, 1.0), "warnings": ["2 notes changed"]})]
    plain = fuse(named, 4)
    assert all("explain" not in h for h in plain["results"]) and plain["confidence"] is None
    assert plain["warnings"] == ["[B] 2 notes changed"]
    told = fuse(named, 4, explain=True)
    assert told["results"][1]["explain"]["vault"] == {
        "name": "B", "rank": 1, "score": 0.99, "weight": 0.5, "fused": round(0.5 / (RRF_K + 1), 8), "tier": [0, 0]}
    assert told["results"][1]["explain"]["legs"] == "x"
    assert told["confidence"]["rule"] == "every vault"
    assert set(told["confidence"]["vaults"]) == {"A", "B"}


def test_a_vault_reading_the_query_across_languages_comes_after_one_written_in_it() -> None:
    # The English help asked in Japanese scores higher (a lenient yardstick) than the Japanese help.
    out = fuse([("en", _resp("en", 5, 4.0, across=True)), ("ja", _resp("ja", 5, 2.0))], 8)
    assert [h["vault"] for h in out["results"]] == ["ja"] * 5 + ["en"] * 3


def test_a_vault_confident_of_an_answer_comes_before_one_that_is_not() -> None:
    out = fuse([("A", _resp("A", 3, 0.7, low=True)), ("B", _resp("B", 3, 0.76))], 6)
    assert [h["vault"] for h in out["results"]] == ["B"] * 3 + ["A"] * 3
    assert out["low_confidence"] is False


def test_nothing_here_is_judged_by_the_vaults_written_in_the_querys_language() -> None:
    own_low, across_sure = _resp("ja", 3, 0.1, low=True), _resp("en", 3, 3.0, across=True)
    assert fuse([("en", across_sure), ("ja", own_low)], 6)["low_confidence"] is True
    assert fuse([("en", across_sure)], 6)["low_confidence"] is False
    both_across = [("en", across_sure), ("ko", _resp("ko", 3, 0.2, low=True, across=True))]
    assert fuse(both_across, 6)["low_confidence"] is False
