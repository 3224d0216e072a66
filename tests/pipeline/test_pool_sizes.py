"""Candidate pool sizes (docs/design.md §1.3): MMR on → limit×5, at least 50; MMR off →
limit, or limit×5 when only the reranker is on; the parent retriever never
changes it. Observed on what the reranker and MMR are actually handed."""

from __future__ import annotations

import pytest

import groove.pipeline as pipeline
from groove.config import MMRConfig, ParentRetrieverConfig, SearchConfig
from groove.models.reranker import LlamaReranker
from groove.pipeline import SearchParams, resolve_params, run_search
from stagekit import indexed_runtime, small_rt, with_search  # noqa: F401
from tinymodels import write_tiny_cross_encoder

TOPICS = ["coffee", "tea", "garden", "music", "travel", "python", "bread", "cats"]


@pytest.mark.parametrize("limit,mmr,rerank,parent,want", [
    (10, True, False, False, 50),
    (10, True, True, False, 50),
    (3, True, False, False, 50),  # at least 50
    (20, True, False, False, 100),  # limit×5 above 50
    (20, True, True, True, 100),
    (10, False, True, False, 50),  # reranker only: limit×5
    (4, False, True, False, 20),  # ... without the floor of 50
    (4, False, False, False, 4),  # nothing optional: limit
    (4, False, False, True, 4),  # the parent retriever never enlarges it
    (4, False, True, True, 20),
    (3, True, False, True, 50),
])
def test_resolved_pool_size_follows_the_spec(limit, mmr, rerank, parent, want):
    cfg = SearchConfig(reranker="r.gguf", mmr=MMRConfig(enabled=mmr),
                       parent_retriever=ParentRetrieverConfig(enabled=parent))
    r = resolve_params(SearchParams("q", limit=limit, rerank=rerank), cfg)
    assert (r.mmr, r.rerank, r.parent_retriever) == (mmr, rerank, parent)
    assert r.pool_size == want
    assert r.candidates >= want  # each leg fetches at least the pool


@pytest.fixture(scope="module")
def big_rt(tiny_embedder, tmp_path_factory):
    """~160 chunks that all contain 'note', so stage 1 can fill any pool asked for."""
    vault = tmp_path_factory.mktemp("big-vault")
    for i in range(40):
        t = TOPICS[i % len(TOPICS)]
        body = "\n\n".join(f"## Part {j}\n\nA note about {t} number {i}, part {j}." for j in range(4))
        (vault / f"note {i:02d}.md").write_text(f"# {t} {i}\n\n{body}\n", encoding="utf-8")
    rt = indexed_runtime(vault, tiny_embedder, tmp_path_factory.mktemp("big-idx") / "index.sqlite")
    yield rt
    rt.close()


class CountingReranker:
    """The real tiny cross-encoder, recording how many passages each call gets."""

    def __init__(self, inner: LlamaReranker) -> None:
        self.inner, self.calls = inner, []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def score_pairs(self, query, passages):
        self.calls.append(len(passages))
        return self.inner.score_pairs(query, passages)


@pytest.fixture(scope="module")
def counting(tmp_path_factory):
    r = LlamaReranker(write_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "tiny-reranker.gguf"))
    yield CountingReranker(r)
    r.close()


@pytest.fixture
def mmr_pools(monkeypatch):
    seen: list[int] = []
    real = pipeline.apply_mmr

    def spy(idx, pool, *a, **kw):
        seen.append(len(pool))
        return real(idx, pool, *a, **kw)

    monkeypatch.setattr(pipeline, "apply_mmr", spy)
    return seen


def run(rt, counting, **kw):
    counting.calls.clear()
    rt = with_search(rt, reranker="counting")
    rt._rerankers = {"counting": counting}
    return run_search(rt, SearchParams("note about coffee", **kw))


@pytest.mark.parametrize("parent", [False, True])
@pytest.mark.parametrize("limit,mmr,rerank,want", [
    (10, True, False, 50),
    (3, True, True, 50),
    (20, True, True, 100),
    (10, False, True, 50),
    (4, False, True, 20),
])
def test_the_reranker_and_mmr_are_handed_exactly_the_spec_pool(big_rt, counting, mmr_pools,
                                                               limit, mmr, rerank, want, parent):
    resp = run(big_rt, counting, limit=limit, mmr=mmr, rerank=rerank, parent_retriever=parent)
    assert len(resp.results) == limit
    assert counting.calls == ([want] if rerank else [])
    assert mmr_pools == ([want] if mmr else [])


def test_with_nothing_optional_on_stage1_is_cut_to_the_limit(big_rt, counting, mmr_pools):
    resp = run(big_rt, counting, limit=7, mmr=False, rerank=False, parent_retriever=True)
    assert len(resp.results) == 7 and counting.calls == [] and mmr_pools == []


def test_a_pool_larger_than_the_index_holds_is_every_candidate(small_rt, counting):
    n = small_rt.index.counts()[1]
    resp = run(small_rt, counting, limit=10, rerank=True)
    assert counting.calls == [n]  # the vector leg returns every chunk; no padding to 50
    assert len(resp.results) == 10


def test_stage1_loads_the_pool_and_a_chunk_deleted_meanwhile_lets_the_next_move_up(tmp_path, tiny_embedder,
                                                                                      monkeypatch):
    """Stage 1 loads only the first ``pool_size`` fused chunks; one deleted
    between the legs and the load (a live reindex) gives its place to the next."""
    import shutil

    from groove.pipeline import fusion
    from groove.pipeline.filters import build_restriction
    from groove.query import parse_query
    from groove.storage import chunks
    from stagekit import VAULT_SMALL

    vault = tmp_path / "vault"
    shutil.copytree(VAULT_SMALL, vault)
    rt = indexed_runtime(vault, tiny_embedder, tmp_path / "index.sqlite")
    try:
        r = resolve_params(SearchParams("coffee beans and bread", limit=3), rt.config.search)
        parsed = parse_query(r.query)
        qvec = rt.embedder.embed_query(parsed.embed_text)

        def stage1():
            return fusion.hybrid_candidates(rt.index, parsed, qvec, r, build_restriction(rt.index, r))

        before = [c.chunk_id for c in stage1().candidates]
        assert len(before) == r.pool_size == 3
        load, gone = chunks.load_candidates, before[0]

        def deleting_first(idx, ids):
            if gone in ids:  # as another connection's reindex would, just before the load
                with idx.atomic() as c:
                    c.execute("DELETE FROM chunks WHERE id = ?", (gone,))
            return load(idx, ids)

        monkeypatch.setattr(chunks, "load_candidates", deleting_first)
        after = [c.chunk_id for c in stage1().candidates]
        assert len(after) == 3 and gone not in after and after[:2] == before[1:]
    finally:
        rt.close()
