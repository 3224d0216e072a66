"""Stage 2, the cross-encoder reranker (docs/design.md §1.3), on a real llama.cpp
cross-encoder: the tiny random BERT with a classification head and rank
pooling from tests/tinymodels.py (its scores mean nothing, but they are
deterministic and differ between passages)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from click.testing import CliRunner

from groove.cli import cli
from groove.errors import GrooveError
from groove.models.reranker import LlamaReranker
from groove.pipeline import SearchParams, run_search
from groove.pipeline.rerank import rerank_candidates
from groove.query import parse_query
from groove.storage.store import embed_text
from groove.types import Candidate
from stagekit import small_rt, with_search  # noqa: F401  (fixture)
from tinymodels import write_tiny_cross_encoder


@pytest.fixture(scope="module")
def ce_path(tmp_path_factory):
    return write_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "tiny-reranker.gguf")


@pytest.fixture(scope="module")
def ce(ce_path):
    r = LlamaReranker(ce_path)
    yield r
    r.close()


@pytest.fixture
def broken(tmp_path):
    """A missing file and a corrupt one (GGUF magic, then garbage)."""
    corrupt = tmp_path / "corrupt-reranker.gguf"
    corrupt.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\xff" * 64)
    return {"missing": tmp_path / "no-such-reranker.gguf", "corrupt": corrupt}


def context_of(rt, chunk_id: int) -> str:
    return rt.index.conn.execute("SELECT context FROM chunks WHERE id = ?", (chunk_id,)).fetchone()[0]


def candidate(cid: int, content: str, score: float) -> Candidate:
    return Candidate(cid, 1, "a.md", "a", ["a"], 1, "a > h", content, (0, 1), (1, 1), None, score)


# ---------------------------------------------------------------- what reranking does

def test_score_becomes_the_rerankers_raw_score_of_context_plus_chunk(small_rt, ce, ce_path):
    q = "keep notes in sync"
    resp = run_search(small_rt, SearchParams(q, limit=5, reranker=str(ce_path)))
    embed_q = parse_query(q).embed_text
    passages = [embed_text(context_of(small_rt, h.chunk_id), h.content) for h in resp.results]
    want = ce.score_pairs(embed_q, passages)
    assert [h.score for h in resp.results] == pytest.approx(want, rel=1e-4, abs=1e-5)
    assert [h.score for h in resp.results] == sorted((h.score for h in resp.results), reverse=True)
    assert [h.rank for h in resp.results] == [1, 2, 3, 4, 5]


def test_the_reranker_reorders_the_limit_times_five_stage1_pool(small_rt, ce, ce_path):
    q = "coffee beans and tea"
    pool = run_search(small_rt, SearchParams(q, limit=15)).results  # stage 1's top 15 = the reranker's pool
    scores = ce.score_pairs(parse_query(q).embed_text,
                            [embed_text(context_of(small_rt, h.chunk_id), h.content) for h in pool])
    best = [h.chunk_id for _, h in sorted(zip(scores, pool), key=lambda t: -t[0])][:3]
    got = run_search(small_rt, SearchParams(q, limit=3, reranker=str(ce_path)))
    assert [h.chunk_id for h in got.results] == best


class ConstantReranker:
    """Scores every passage the same. Only for the tie rule: the real model's
    scores for identical passages differ in the last float bits depending on
    their slot in a packed decode (seen here: 4.0248823 vs 4.0248795)."""

    model_id = model_path = "constant"
    max_tokens = 512

    def score_pairs(self, query, passages):
        return [2.5] * len(passages)


def test_equal_scores_keep_the_stage1_order():
    pool = [candidate(i, f"passage {i}", 1.0 - i / 10) for i in range(4)]
    out, _ = rerank_candidates(pool, "coffee", ConstantReranker())
    assert [c.chunk_id for c in out] == [0, 1, 2, 3] and {c.score for c in out} == {2.5}


def test_a_nan_score_sorts_last_instead_of_scrambling_the_order():
    class NaNReranker(ConstantReranker):
        def score_pairs(self, query, passages):
            return [1.0, float("nan"), 3.0, 2.0][: len(passages)]

    out, _ = rerank_candidates([candidate(i, f"p{i}", 0.5) for i in range(4)], "q", NaNReranker())
    assert [c.chunk_id for c in out] == [2, 3, 0, 1]


def test_reranking_returns_new_candidates_and_leaves_the_pool_unchanged(ce):
    pool = [candidate(i, text, 1.0 - i / 10) for i, text in enumerate(["tea", "coffee beans", "a cat"])]
    out, warnings = rerank_candidates(pool, "coffee", ce)
    assert warnings == [] and sorted(c.chunk_id for c in out) == [0, 1, 2]
    assert [c.score for c in pool] == [1.0, 0.9, 0.8]  # the input keeps stage-1 scores
    assert [c.score for c in out] == sorted((c.score for c in out), reverse=True)


def test_passages_longer_than_the_model_context_are_truncated_and_the_response_says_so(small_rt, ce_path):
    short_ctx = LlamaReranker(ce_path, max_tokens=32)
    try:
        long = candidate(1, "coffee " * 80, 0.5)
        _, warnings = rerank_candidates([long, candidate(2, "tea", 0.4)], "coffee", short_ctx)
        assert len(warnings) == 1 and "1 of 2 passage(s)" in warnings[0] and "32 tokens" in warnings[0]
        _, warnings = rerank_candidates([candidate(2, "tea", 0.4)], "coffee", short_ctx)
        assert warnings == []

        rt = replace(small_rt, _rerankers={"short-context": short_ctx})
        resp = run_search(rt, SearchParams("coffee beans grind", limit=3, reranker="short-context"))
        assert any("truncated" in w for w in resp.warnings)
    finally:
        short_ctx.close()


# ---------------------------------------------------------------- which reranker runs

def stage1_json(rt, q: str) -> str:
    return json.dumps(run_search(rt, SearchParams(q, limit=4, rerank=False)).to_json())


def test_a_configured_reranker_with_rerank_by_default_reranks_every_query(small_rt, ce_path):
    rt = with_search(small_rt, reranker=str(ce_path), rerank_by_default=True)
    by_config = run_search(rt, SearchParams("sync backup", limit=4))
    explicit = run_search(small_rt, SearchParams("sync backup", limit=4, reranker=str(ce_path)))
    assert by_config.to_json() == explicit.to_json()
    assert json.dumps(by_config.to_json()) != stage1_json(small_rt, "sync backup")


def test_a_configured_reranker_without_rerank_by_default_does_not_run(small_rt, ce_path):
    rt = with_search(small_rt, reranker=str(ce_path), rerank_by_default=False)
    assert json.dumps(run_search(rt, SearchParams("sync backup", limit=4)).to_json()) == stage1_json(
        small_rt, "sync backup")


def test_rerank_flag_turns_on_the_configured_reranker(small_rt, ce_path):
    rt = with_search(small_rt, reranker=str(ce_path), rerank_by_default=False)
    on = run_search(rt, SearchParams("sync backup", limit=4, rerank=True))
    explicit = run_search(small_rt, SearchParams("sync backup", limit=4, reranker=str(ce_path)))
    assert on.to_json() == explicit.to_json()


def test_a_reranker_named_for_the_query_wins_over_the_configured_one(small_rt, ce_path, broken):
    rt = with_search(small_rt, reranker=str(broken["missing"]), rerank_by_default=True)
    resp = run_search(rt, SearchParams("sync backup", limit=4, reranker=str(ce_path)))
    assert resp.warnings == []
    assert resp.to_json() == run_search(small_rt, SearchParams("sync backup", limit=4,
                                                               reranker=str(ce_path))).to_json()


@pytest.mark.parametrize("cfg", [{}, {"rerank_by_default": True}])
def test_no_rerank_wins_over_a_named_reranker_and_the_config_default(small_rt, ce_path, cfg):
    rt = with_search(small_rt, reranker=str(ce_path), **cfg)
    off = run_search(rt, SearchParams("sync backup", limit=4, rerank=False, reranker=str(ce_path)))
    assert json.dumps(off.to_json()) == stage1_json(small_rt, "sync backup")


# ---------------------------------------------------------------- bad reranker files

@pytest.mark.parametrize("kind", ["missing", "corrupt"])
def test_a_broken_reranker_from_config_answers_without_reranking_and_warns_naming_the_file(small_rt, broken, kind):
    path = broken[kind]
    rt = with_search(small_rt, reranker=str(path), rerank_by_default=True)
    resp = run_search(rt, SearchParams("sync backup", limit=4))
    stage1 = run_search(small_rt, SearchParams("sync backup", limit=4))
    assert [h.to_json() for h in resp.results] == [h.to_json() for h in stage1.results]
    assert len(resp.warnings) == 1
    assert str(path) in resp.warnings[0] and "not reranked" in resp.warnings[0]


@pytest.mark.parametrize("kind", ["missing", "corrupt"])
def test_a_broken_reranker_named_for_the_query_is_an_error_naming_the_file(small_rt, broken, kind):
    with pytest.raises(GrooveError, match=str(broken[kind]).replace(".", r"\.")):
        run_search(small_rt, SearchParams("sync backup", reranker=str(broken[kind])))


def test_rerank_flag_with_a_broken_configured_reranker_is_an_error(small_rt, broken):
    rt = with_search(small_rt, reranker=str(broken["missing"]), rerank_by_default=False)
    with pytest.raises(GrooveError, match="no-such-reranker"):
        run_search(rt, SearchParams("sync backup", rerank=True))


def test_rerank_flag_without_any_reranker_configured_is_an_error(small_rt):
    with pytest.raises(GrooveError, match="no reranker is configured"):
        run_search(small_rt, SearchParams("sync backup", rerank=True))


def test_an_embedding_model_is_refused_as_a_reranker_naming_the_file(small_rt, tiny_model_path):
    with pytest.raises(GrooveError, match="not a cross-encoder") as e:
        run_search(small_rt, SearchParams("sync backup", reranker=str(tiny_model_path)))
    assert str(tiny_model_path) in str(e.value)


# ---------------------------------------------------------------- the CLI

def test_cli_reranker_flag_reranks_and_a_missing_one_exits_2_naming_the_file(small_rt, ce_path, broken):
    args = ["search", "sync backup", "--vault", str(small_rt.vault), "--index", str(small_rt.index.path),
            "--limit", "3", "--json"]
    runner = CliRunner()
    from groove.runtime import Runtime

    # The CLI builds its own Runtime; give it the already-loaded tiny embedder.
    orig = Runtime.embedder
    try:
        Runtime.embedder = property(lambda self: small_rt._embedder)
        ok = runner.invoke(cli, args + ["--reranker", str(ce_path)])
        assert ok.exit_code == 0, ok.output
        want = run_search(small_rt, SearchParams("sync backup", limit=3, reranker=str(ce_path)))
        assert json.loads(ok.stdout)["results"] == want.to_json()["results"]
        bad = runner.invoke(cli, args + ["--reranker", str(broken["missing"])])
        assert bad.exit_code == 2
        assert str(broken["missing"]) in bad.output
    finally:
        Runtime.embedder = orig
