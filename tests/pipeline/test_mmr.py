"""MMR diversity selection (docs/design.md §1.4)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groove.config import SearchConfig, parse_config
from groove.errors import ConfigError, InvalidArgument
from groove.pipeline import SearchParams, resolve_params, run_search
from groove.pipeline.mmr import load_embeddings, mmr_select
from stagekit import small_rt, with_search  # noqa: F401  (fixture)

FOOTGUN = "lambda = 1.0"


def objective(rel, emb, docs, lam, pen, i, picked):
    """The MMR objective (docs/design.md §1.4) for candidate ``i``, written out pair by pair."""
    lo, hi = min(rel), max(rel)
    norm = (rel[i] - lo) / (hi - lo) if hi > lo else 1.0

    def cos(a, b):
        na, nb = math.sqrt(sum(x * x for x in a)), math.sqrt(sum(x * x for x in b))
        return 0.0 if na == 0 or nb == 0 else sum(x * y for x, y in zip(a, b)) / (na * nb)

    sim = max((cos(emb[i], emb[j]) for j in picked), default=0.0)
    same = any(docs[j] == docs[i] for j in picked)
    return lam * norm - (1 - lam) * sim - pen * same


# ---------------------------------------------------------------- the formula

def test_near_duplicate_gives_way_to_a_different_candidate():
    rel = np.array([1.0, 0.95, 0.9, 0.0])
    emb = np.array([[1.0, 0.0], [0.99, 0.01], [0.0, 1.0], [-1.0, 0.0]])
    assert mmr_select(rel, emb, [1, 2, 3, 4], lam=0.7, same_doc_penalty=0.0, limit=4) == [0, 2, 1, 3]
    assert mmr_select(rel, emb, [1, 2, 3, 4], lam=1.0, same_doc_penalty=0.0, limit=4) == [0, 1, 2, 3]


def test_relevance_is_min_max_normalised_so_the_score_scale_does_not_matter():
    rng = np.random.default_rng(3)
    emb = rng.standard_normal((30, 8))
    docs = list(rng.integers(0, 6, 30))
    rrf = np.sort(rng.uniform(0.01, 0.033, 30))[::-1]  # RRF-sized scores
    reranker = rrf * 900 - 15  # reranker-sized: same order, another affine scale
    a = mmr_select(rrf, emb, docs, 0.7, 0.1, 10)
    b = mmr_select(reranker, emb, docs, 0.7, 0.1, 10)
    assert a == b
    assert a != list(range(10))  # diversity did change something


def test_lambda_one_returns_the_pool_order():
    rng = np.random.default_rng(4)
    rel = np.sort(rng.uniform(0, 1, 20))[::-1]
    assert mmr_select(rel, rng.standard_normal((20, 4)), list(range(20)), 1.0, 0.0, 10) == list(range(10))


def test_first_pick_is_the_best_scored_candidate_whenever_relevance_counts():
    rel = np.array([0.2, 0.9, 0.5])
    for lam in (0.1, 0.7, 1.0):
        assert mmr_select(rel, np.eye(3), [1, 1, 1], lam, 5.0, 1) == [1]


def test_lambda_zero_then_picks_the_candidate_least_like_those_picked():
    rel = np.array([1.0, 0.9, 0.1])
    emb = np.array([[1.0, 0.0], [0.9, 0.1], [-1.0, 0.0]])
    assert mmr_select(rel, emb, [1, 2, 3], 0.0, 0.0, 3)[1] == 2


def test_same_doc_penalty_pushes_a_second_chunk_of_a_picked_note_down():
    rel = np.array([1.0, 0.9, 0.8])
    emb = np.eye(3)  # all orthogonal: similarity plays no part
    docs = [7, 7, 8]
    assert mmr_select(rel, emb, docs, 0.7, 0.0, 3) == [0, 1, 2]
    assert mmr_select(rel, emb, docs, 0.7, 0.5, 3) == [0, 2, 1]


def test_equal_scores_leave_only_diversity_to_decide():
    emb = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    assert mmr_select(np.array([0.5, 0.5, 0.5]), emb, [1, 2, 3], 0.7, 0.0, 2) == [0, 2]


def test_zero_vectors_and_tiny_pools_do_not_break_selection():
    assert mmr_select(np.array([]), np.zeros((0, 4)), [], 0.7, 0.0, 5) == []
    assert mmr_select(np.array([1.0]), np.zeros((1, 4)), [1], 0.7, 0.0, 5) == [0]
    assert sorted(mmr_select(np.array([1.0, 0.5]), np.zeros((2, 4)), [1, 2], 0.5, 0.0, 5)) == [0, 1]


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 12).flatmap(lambda n: st.tuples(
        st.lists(st.floats(-20, 20), min_size=n, max_size=n),
        st.lists(st.lists(st.floats(-1, 1), min_size=3, max_size=3), min_size=n, max_size=n),
        st.lists(st.integers(0, 3), min_size=n, max_size=n),
    )),
    st.sampled_from([0.0, 0.3, 0.7, 1.0]),
    st.sampled_from([0.0, 0.2, 1.0]),
    st.integers(1, 12),
)
def test_every_pick_maximises_the_formula_over_the_candidates_left(pool, lam, pen, limit):
    rel, emb, docs = pool
    got = mmr_select(np.array(rel), np.array(emb), docs, lam, pen, limit)
    assert len(got) == min(limit, len(rel)) and len(set(got)) == len(got)
    for k, i in enumerate(got):
        left = [j for j in range(len(rel)) if j not in got[:k]]
        best = max(objective(rel, emb, docs, lam, pen, j, got[:k]) for j in left)
        # 1e-6: similarities are float32 products, so exact near-ties may go either way.
        assert objective(rel, emb, docs, lam, pen, i, got[:k]) >= best - 1e-6


# ---------------------------------------------------------------- stored embeddings

def test_load_embeddings_reads_the_stored_vectors_in_the_asked_order(small_rt):
    rows = list(small_rt.index.conn.execute("SELECT id, context, content FROM chunks ORDER BY id DESC LIMIT 4"))
    cids = [r[0] for r in rows] + [10**9]
    emb = load_embeddings(small_rt.index, cids)
    from groove.storage.store import embed_text

    fresh = small_rt.embedder.embed_passages([embed_text(c, t) for _, c, t in rows])
    np.testing.assert_allclose(emb[:4], fresh, atol=1e-5)
    assert not emb[4].any()  # no vector: a zero row


def test_mmr_in_the_pipeline_keeps_stage_two_scores_and_spreads_notes(small_rt):
    q = SearchParams("coffee", limit=4)  # stage 1 returns several chunks of Coffee.md
    off = run_search(small_rt, q)
    on = run_search(small_rt, SearchParams(q.query, limit=4, mmr=True, mmr_lambda=0.3, mmr_same_doc_penalty=1.0))
    assert on.results[0].chunk_id == off.results[0].chunk_id
    stage1 = {h.chunk_id: h.score for h in run_search(small_rt, SearchParams(q.query, limit=50)).results}
    assert all(h.score == stage1[h.chunk_id] for h in on.results)  # MMR reorders, never rescores
    assert [h.rank for h in on.results] == [1, 2, 3, 4]
    assert len({h.path for h in on.results}) > len({h.path for h in off.results})


def test_mmr_with_lambda_one_returns_the_same_hits_as_mmr_off(small_rt):
    for query in ("sync notes", "東京 ラーメン", "garden project"):
        off = run_search(small_rt, SearchParams(query, limit=5))
        on = run_search(small_rt, SearchParams(query, limit=5, mmr=True, mmr_lambda=1.0))
        assert [h.to_json() for h in on.results] == [h.to_json() for h in off.results]


# ---------------------------------------------------------------- the λ = 1.0 footgun and bad knobs

def test_mmr_on_with_lambda_one_warns_in_the_response(small_rt):
    resp = run_search(small_rt, SearchParams("sync", mmr=True, mmr_lambda=1.0))
    assert any(FOOTGUN in w for w in resp.warnings)


def test_mmr_enabled_with_lambda_one_in_groove_toml_warns_at_load_and_per_query(small_rt):
    cfg = parse_config("[search.mmr]\nenabled = true\nlambda = 1.0\n", "groove.toml")
    assert any(FOOTGUN in w and "[search.mmr]" in w for w in cfg.warnings)
    assert any(FOOTGUN in w for w in resolve_params(SearchParams("x"), cfg.search).warnings)


@pytest.mark.parametrize("params", [
    SearchParams("x", mmr=False, mmr_lambda=1.0),
    SearchParams("x", mmr=True, mmr_lambda=0.99),
])
def test_no_footgun_warning_when_mmr_is_off_or_lambda_is_below_one(params):
    assert not any(FOOTGUN in w for w in resolve_params(params, SearchConfig()).warnings)
    assert not parse_config("[search.mmr]\nenabled = false\nlambda = 1.0\n").warnings


@pytest.mark.parametrize("kw,key", [
    ({"mmr_lambda": 1.5}, "mmr_lambda"),
    ({"mmr_lambda": -0.1}, "mmr_lambda"),
    ({"mmr_same_doc_penalty": -1.0}, "mmr_same_doc_penalty"),
])
def test_out_of_range_mmr_knobs_are_invalid_arguments_naming_the_key(kw, key):
    with pytest.raises(InvalidArgument, match=key) as e:
        resolve_params(SearchParams("x", mmr=True, **kw), SearchConfig())
    assert e.value.param == key


@pytest.mark.parametrize("toml,key", [
    ("[search.mmr]\nlambda = 2.0\n", "search.mmr.lambda"),
    ("[search.mmr]\nsame_doc_penalty = -0.5\n", "search.mmr.same_doc_penalty"),
])
def test_out_of_range_mmr_keys_in_groove_toml_name_the_key(toml, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        parse_config(toml)
