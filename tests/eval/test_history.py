from __future__ import annotations

import dataclasses
import json

from groove.eval.history import (
    FORMAT_VERSION,
    ConfigFingerprint,
    append_run,
    compare_runs,
    fingerprint_diff,
    history_path,
    load_history,
    previous_run,
)

FP = ConfigFingerprint(
    embedder_model="e5", embedder_sha256="abc", reranker="", reranker_sha256="", rerank=False, mmr=False,
    mmr_lambda=0.7, mmr_same_doc_penalty=0.0, parent_retriever=False, legs="hybrid", limit=10, candidates=50,
    rrf_k=60.0, heading_weight=2.0, context_weight=1.0, content_weight=1.0, vec_weight=1.0, fts_weight=1.0,
    query_compiler_version="1", short_cjk=True, exclusion_scope="chunk", groove_version="0.1.0",
)


def record(sha="g1", fp=FP, ndcg=(1.0, 0.5), ranks=({"A.md": 1}, {"B.md": 2})):
    qs = [{"key": f"en\t\tq{i}", "query": f"q{i}", "kind": "natural", "lang": "en", "ranks": r,
           "metrics": {"ndcg@10": n, "mrr": n}} for i, (n, r) in enumerate(zip(ndcg, ranks))]
    mean = sum(ndcg) / len(ndcg)
    return {"date": "2026-12-02T10:00:00+0000", "golden": {"sha256": sha}, "fingerprint": fp.to_json(),
            "metrics": {"overall": {"n": len(ndcg), "ndcg@10": mean, "mrr": mean}}, "queries": qs}


def test_history_file_format_is_versioned_list_of_runs_oldest_first(tmp_path):
    p = history_path(tmp_path)
    assert p.name == ".groove-eval-history.json" and p.parent == tmp_path  # at the vault's root (SPEC §2)
    assert append_run(p, record(sha="g1")) == []
    append_run(p, record(sha="g2"))
    data = json.loads(p.read_text(encoding="utf-8"))
    assert data["version"] == FORMAT_VERSION
    assert [r["golden"]["sha256"] for r in data["runs"]] == ["g1", "g2"]
    assert data["runs"][0]["fingerprint"]["rrf_k"] == 60.0
    assert not list(tmp_path.glob("*.tmp"))  # the atomic write left no temp file behind


def test_corrupt_history_is_moved_aside_with_a_warning_and_a_new_one_starts(tmp_path):
    p = history_path(tmp_path)
    p.write_text('{"runs": [ {"date": ', encoding="utf-8")
    warnings = append_run(p, record())
    assert len(warnings) == 1 and "moved it to" in warnings[0]
    aside = list(p.parent.glob(p.name + ".corrupt-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == '{"runs": [ {"date": '
    runs, w = load_history(p)
    assert len(runs) == 1 and w == []


def test_wrong_shape_counts_as_corrupt(tmp_path):
    p = history_path(tmp_path)
    p.write_text('[1, 2]', encoding="utf-8")
    runs, warnings = load_history(p)
    assert runs == [] and warnings and not p.exists()


def test_previous_run_is_the_latest_on_the_same_golden_file():
    runs = [record(sha="g1", ndcg=(0.1, 0.1)), record(sha="g2"), record(sha="g1", ndcg=(0.2, 0.2))]
    assert previous_run(runs, "g1")["metrics"]["overall"]["ndcg@10"] == 0.2
    assert previous_run(runs, "other") is None


def test_fingerprint_diff_lists_only_changed_fields():
    new = dataclasses.replace(FP, rrf_k=30.0, mmr=True).to_json()
    diffs = fingerprint_diff(FP.to_json(), new)
    assert [(d.name, d.old, d.new) for d in diffs] == [("mmr", False, True), ("rrf_k", 60.0, 30.0)]
    assert fingerprint_diff(FP.to_json(), FP.to_json()) == []


def test_extra_knobs_are_flattened_into_the_record_and_diffed():
    old = dataclasses.replace(FP, extra={"title_weight": 0.0}).to_json()
    new = dataclasses.replace(FP, extra={"title_weight": 1.0, "rrf_k": 1.0}).to_json()
    assert "extra" not in new and new["rrf_k"] == 60.0  # a named field is never shadowed
    assert [(d.name, d.old, d.new) for d in fingerprint_diff(old, new)] == [("title_weight", 0.0, 1.0)]


def test_fingerprint_diff_flags_a_field_the_old_record_lacks():
    old = FP.to_json()
    del old["exclusion_scope"]
    assert [d.name for d in fingerprint_diff(old, FP.to_json())] == ["exclusion_scope"]


def test_compare_reports_metric_deltas_and_worse_and_better_queries_with_ranks():
    old = record(ndcg=(1.0, 0.5), ranks=({"A.md": 1}, {"B.md": 2}))
    new = record(fp=dataclasses.replace(FP, mmr=True), ndcg=(0.5, 1.0), ranks=({"A.md": 2}, {"B.md": 1}))
    c = compare_runs(old, new)
    assert c.comparable and [f.name for f in c.fingerprint_changes] == ["mmr"]
    assert c.metric_deltas["ndcg@10"] == (0.75, 0.75)
    assert [(w.query, w.old_ranks, w.new_ranks) for w in c.worse] == [("q0", {"A.md": 1}, {"A.md": 2})]
    assert [b.query for b in c.better] == ["q1"]


def test_other_query_compiler_version_is_not_reported_as_a_regression():
    old = record(fp=dataclasses.replace(FP, query_compiler_version="0"), ndcg=(1.0, 1.0))
    new = record(ndcg=(0.0, 0.0))
    c = compare_runs(old, new)
    assert not c.comparable and "query compiler" in c.reason
    assert c.worse == [] and c.better == []
    assert any(f.name == "query_compiler_version" for f in c.fingerprint_changes)
