from groove.config import SearchConfig
from groove.pipeline.fusion import rrf_fuse
from groove.pipeline.params import SearchParams, resolve_params


def test_rrf_sums_reciprocal_ranks_with_k():
    fused = dict(rrf_fuse([[1, 2, 3], [3, 1]], k=60))
    assert fused[1] == 1 / 61 + 1 / 62
    assert fused[2] == 1 / 62
    assert fused[3] == 1 / 63 + 1 / 61


def test_rrf_orders_by_score_and_breaks_ties_by_first_appearance():
    assert [c for c, _ in rrf_fuse([[1, 2], [2, 1]], k=60)] == [1, 2]
    assert [c for c, _ in rrf_fuse([[5], [7]], k=60)] == [5, 7]


def test_rrf_leg_weights_scale_each_leg():
    fused = dict(rrf_fuse([[1], [2]], k=10, weights=[1.0, 0.5]))
    assert fused[1] == 1 / 11 and fused[2] == 0.5 / 11


def test_an_empty_leg_leaves_the_other_legs_order():
    assert [c for c, _ in rrf_fuse([[4, 5, 6], []], k=60)] == [4, 5, 6]


def test_pool_sizes_follow_the_spec():
    cfg = SearchConfig()
    r = lambda **kw: resolve_params(SearchParams("q", limit=10, **kw), cfg)  # noqa: E731
    assert r().pool_size == 10
    assert r(mmr=True).pool_size == 50
    assert resolve_params(SearchParams("q", limit=20, mmr=True), cfg).pool_size == 100
    assert r(reranker="x.gguf").pool_size == 50
    assert r(reranker="x.gguf", mmr=True).pool_size == 50
    assert r(parent_retriever=True).pool_size == 10


def test_an_explicit_reranker_applies_unconditionally_and_no_rerank_wins():
    cfg = SearchConfig(reranker="cfg.gguf", rerank_by_default=False)
    assert resolve_params(SearchParams("q"), cfg).rerank is False
    assert resolve_params(SearchParams("q", reranker="cli.gguf"), cfg).rerank is True
    assert resolve_params(SearchParams("q", reranker="cli.gguf", rerank=False), cfg).rerank is False
    on = SearchConfig(reranker="cfg.gguf", rerank_by_default=True)
    assert resolve_params(SearchParams("q"), on).rerank is True
    assert resolve_params(SearchParams("q", rerank=False), on).rerank is False


def test_rrf_per_item_votes_scale_one_legs_contribution():
    fused = dict(rrf_fuse([[1, 2], [2, 1]], k=10, votes=[None, {2: 0.25}]))
    assert fused[1] == 1 / 11  # absent from the vote map: no vote at all from leg 2
    assert fused[2] == 1 / 12 + 0.25 / 11
