"""Bit-identity (retrieval-pipeline: 各任意段は…off なら no-op): with every
optional stage off, the JSON output is byte-for-byte the stage-1-only
pipeline's, whatever the config says about the stages that are off.

Golden file: tests/fixtures/vault-small.golden.json holds the `--json` text of
every query below on tests/fixtures/vault-small, embedded with the tiny test
BERT (tests/tinymodels.py, seed 0, conftest's ``tiny_embedder``). When a
deliberate change moves stage 1 (chunking, query compiler, fusion, the tiny
model, the fixture vault), regenerate it and review the diff:

    GROOVE_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/pipeline/test_bit_identity.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from groove.pipeline import SearchParams, _hit, _low_confidence, resolve_params, run_search
from groove.pipeline.answers import answer_spans
from groove.pipeline.filters import build_restriction
from groove.pipeline.fusion import hybrid_candidates
from groove.pipeline.spans import match_spans
from groove.query import parse_query, span_terms
from groove.wire.search import SearchResponse
from stagekit import small_rt, with_search  # noqa: F401  (fixture)

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "vault-small.golden.json"

QUERIES: list[SearchParams] = [
    SearchParams("keep notes in sync between phone and computer"),
    SearchParams("coffee grind", limit=3),
    SearchParams("東京 ラーメン"),
    SearchParams("猫の世話", limit=4),
    SearchParams('"conflict file" backup'),
    SearchParams("search -garden", limit=5),
    SearchParams("project plan", tags_any=("daily",)),
    SearchParams("notes", path_globs=("journal/**",)),
    SearchParams("tomatoes 🍅 garden", limit=2),
    SearchParams("bread dough", min_confidence_ratio=0.5),
    SearchParams("会議", limit=3),
]


def stage1_only(rt, p: SearchParams) -> SearchResponse:
    """The pipeline as it is without stages 2-4: stage 1, cut to the limit, match_spans."""
    r = resolve_params(p, rt.config.search)
    parsed = parse_query(r.query, short_cjk=r.short_cjk)
    restriction = build_restriction(rt.index, r)
    qvec = rt.embedder.embed_query(parsed.embed_text) if r.legs != "fts" and parsed.embed_text.strip() else None
    stage1 = hybrid_candidates(rt.index, parsed, qvec, r, restriction)
    top = stage1.candidates[: r.limit]
    hits = [_hit(c, rank) for rank, c in enumerate(top, start=1)]
    terms = span_terms(parsed)
    for h in hits:
        h.match_spans = match_spans(h.content, terms)
    if qvec is not None and hits:  # like match_spans, part of every response (ADR 0256)
        answer_spans(hits, qvec, rt.embedder, rt.index if rt.config.search.answers_beyond else None)  # ADR 0269
    warnings = list(r.warnings) + list(parsed.warnings)
    conf = _low_confidence(rt.index, parsed, top, stage1, r)
    warnings += [conf.warning] if conf.warning else []
    return SearchResponse(hits, conf.low, restriction.applied, warnings)


def as_cli_json(resp: SearchResponse) -> str:
    """Exactly what `groove search --json` prints."""
    return json.dumps(resp.to_json(), ensure_ascii=False, indent=2)


def stages_off_configs(rt, tmp_path: Path):
    """Configs whose optional stages are all off, and the params that keep them off."""
    missing = str(tmp_path / "never-loaded-reranker.gguf")  # loading it would fail loudly
    yield "defaults", rt, {}
    yield "configured but off", with_search(
        rt, reranker=missing, rerank_by_default=False,
        mmr={"enabled": False, "lambda_": 0.3, "same_doc_penalty": 0.5},
        parent={"enabled": False, "whole_doc_threshold_tokens": 10**6, "max_expanded_tokens": 5},
    ), {}
    yield "on in the config, off by flags", with_search(
        rt, reranker=missing, rerank_by_default=True, mmr={"enabled": True, "lambda_": 0.5},
        parent={"enabled": True},
    ), {"rerank": False, "mmr": False, "parent_retriever": False}


def with_kw(p: SearchParams, **kw) -> SearchParams:
    from dataclasses import replace

    return replace(p, **kw)


def test_with_every_optional_stage_off_the_json_is_byte_identical_to_stage1_only(small_rt, tmp_path):
    for name, rt, kw in stages_off_configs(small_rt, tmp_path):
        for p in QUERIES:
            p = with_kw(p, **kw)
            assert as_cli_json(run_search(rt, p)) == as_cli_json(stage1_only(small_rt, p)), (name, p.query)


def test_stage1_only_output_matches_the_committed_golden_file(small_rt):
    text = json.dumps(
        [{"query": p.query, "response": json.loads(as_cli_json(run_search(small_rt, p)))} for p in QUERIES],
        ensure_ascii=False, indent=2,
    ) + "\n"
    if os.environ.get("GROOVE_REGEN_GOLDEN"):
        GOLDEN.write_text(text, encoding="utf-8")
        pytest.skip(f"regenerated {GOLDEN}")
    assert GOLDEN.exists(), f"missing {GOLDEN}; see this module's docstring to generate it"
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_the_cli_json_output_is_the_golden_text(small_rt):
    from groove.cli import cli
    from groove.runtime import Runtime

    golden = {g["query"]: g["response"] for g in json.loads(GOLDEN.read_text(encoding="utf-8"))}
    p = QUERIES[0]
    orig = Runtime.embedder
    try:
        Runtime.embedder = property(lambda self: small_rt._embedder)
        out = CliRunner().invoke(cli, ["search", p.query, "--vault", str(small_rt.vault),
                                       "--index", str(small_rt.index.path), "--json", "--no-mmr", "--no-parent",
                                       "--no-rerank"])
    finally:
        Runtime.embedder = orig
    assert out.exit_code == 0, out.output
    assert out.stdout == json.dumps(golden[p.query], ensure_ascii=False, indent=2) + "\n"


def test_the_golden_file_exercises_spans_filters_and_japanese(small_rt):
    """Guard against a golden that pins nothing (empty results, no spans)."""
    golden = json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert len(golden) == len(QUERIES)
    results = [h for g in golden for h in g["response"]["results"]]
    assert all(g["response"]["results"] for g in golden)
    assert sum(1 for h in results if h["match_spans"]) >= len(QUERIES)
    assert any(h["path"] == "東京.md" for h in results)
    assert any(g["response"]["filter_applied"] for g in golden)
    assert all(h["expanded_from"] == [] for h in results)
