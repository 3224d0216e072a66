"""Stage 1 does the lexical work that needs no query vector while the query
is being embedded, the sole holder's check included (ADR 0221), and what it
hands on is what a one-shot process computes from SQLite with the vector
given: the same legs, candidates, ranks and scores (floats within rounding),
for Chinese and Korean questions, short terms, terms one note holds and
exclusions, with the word index, the bigram index and the vector copy on."""

from __future__ import annotations

import random
from concurrent.futures import Future

import pytest

from groove import operations
from groove.config import SearchConfig
from groove.engines.lexical import word_postings
from groove.engines.lexical.word_index import WordPostingsCache
from groove.engines.vectors import cache as vectors
from groove.engines.vectors.cache import VectorCache
from groove.pipeline import SearchParams, fusion, resolve_params
from groove.pipeline.filters import build_restriction
from groove.query import parse_query
from helpers import make_runtime

CHINESE = ["如何在手机和电脑之间同步笔记", "同步冲突", "笔记本电脑", "快捷键设置", "在笔记中嵌入视频",
           "白板上的卡片和连线", "标签", "插件设置", "打开笔记", "命令面板"]
KOREAN = ["휴대폰과 컴퓨터 사이에서 노트를 동기화하려면", "동기화 충돌", "태그를 검색", "보관함에서 동기화",
          "단축키를 지정하는 방법", "노트에 동영상 삽입하기", "플러그인 설정"]
LATIN = ["sync", "note", "canvas", "graph", "plugin", "vault", "Obsidian", "URI"]
QUERIES = ["如何在手机和电脑之间同步笔记", "同步冲突", "标签", "Obsidian URI 打开笔记", "插件 设置 -同步冲突",
           "휴대폰과 컴퓨터 사이에서 노트를 동기화하려면", "태그", "플러그인 설정 -동기화", "蓝莓果酱配方",
           "블루베리잼", "zqxj_blueberry sync"]


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_embedder):
    tmp = tmp_path_factory.mktemp("overlap")
    vault = tmp / "vault"
    vault.mkdir()
    rng = random.Random(11)
    for i in range(60):
        body = "\n\n".join(
            f"## {rng.choice(CHINESE + KOREAN)}\n\n"
            + rng.choice(["，", " ", "。"]).join(rng.choice(rng.choice([CHINESE, KOREAN, LATIN]))
                                                for _ in range(rng.randint(3, 12)))
            for _ in range(rng.randint(1, 3)))
        (vault / f"n{i:03d}.md").write_text(f"# 笔记 {i}\n\n{body}\n", encoding="utf-8")
    # Terms one note holds: the sole holder's rule names it (ADR 0142).
    (vault / "jam.md").write_text("# 果酱\n\n蓝莓果酱配方。블루베리잼 만들기. zqxj_blueberry sync\n", encoding="utf-8")
    runtime = make_runtime(vault, tiny_embedder, tmp)
    operations.reindex(runtime)
    yield runtime
    runtime.close()


class _Late(Future):
    """The query vector, landing only when stage 1 first asks for it."""

    def __init__(self, vec, log: list[str]) -> None:
        super().__init__()
        self._vec, self._log = vec, log

    def result(self, timeout=None):
        self._log.append("embedding waited for")
        if not self.done():
            self.set_result(self._vec)
        return super().result(timeout)


def _stage1(rt, query: str, qvec) -> tuple:
    r = resolve_params(SearchParams(query=query, explain=True), SearchConfig())
    s = fusion.hybrid_candidates(rt.index, parse_query(r.query, short_cjk=r.short_cjk), qvec, r,
                                 build_restriction(rt.index, r), explain=True)
    legs = [sorted(c.explain["legs"]) for c in s.candidates]
    return (s.fts_ids, s.vec_ids, [c.chunk_id for c in s.candidates], [c.vec_rank for c in s.candidates],
            [c.fts_rank for c in s.candidates], legs), [c.score for c in s.candidates], s.vec_sims


@pytest.mark.parametrize("query", QUERIES)
def test_stage1_with_the_embedding_late_and_the_copies_on_equals_sqlite_with_the_vector_given(
        rt, monkeypatch, query):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)  # the test vault is far below a big vault's size
    monkeypatch.setattr(word_postings, "BIGRAM_MIN_ROWS", 10)
    monkeypatch.setattr(vectors, "MIN_ROWS", 10)
    idx = rt.index
    qvec = rt.embedder.embed_query(query)
    idx.words, idx.vectors = WordPostingsCache(), VectorCache()  # a one-shot process: SQLite answers
    want, want_scores, want_sims = _stage1(rt, query, qvec)
    idx.words.warm(idx.conn)
    idx.vectors.warm(idx.conn)
    wp = idx.word_postings()
    assert wp is not None and wp.bigrams is not None  # the daemon's copies answer now
    log: list[str] = []
    real = fusion.sole_holder
    monkeypatch.setattr(fusion, "sole_holder", lambda *a, **k: log.append("sole holder") or real(*a, **k))
    got, scores, sims = _stage1(rt, query, _Late(qvec, log))
    assert got == want
    assert scores == pytest.approx(want_scores, rel=1e-6, abs=1e-9)
    assert sims == pytest.approx(want_sims, abs=1e-5)
    if "sole holder" in log:  # looked up before the vector legs waited for the embedding
        assert log.index("sole holder") < log.index("embedding waited for")
    idx.words, idx.vectors = WordPostingsCache(), VectorCache()


def test_the_sole_holder_is_named_for_a_term_one_note_holds(rt):
    for query in ("蓝莓果酱配方", "블루베리잼", "zqxj_blueberry sync"):
        r = resolve_params(SearchParams(query=query, explain=True), SearchConfig())
        s = fusion.hybrid_candidates(rt.index, parse_query(r.query, short_cjk=r.short_cjk),
                                     rt.embedder.embed_query(query), r, build_restriction(rt.index, r), explain=True)
        assert s.candidates[0].path == "jam.md" and "sole_holder" in s.candidates[0].explain["legs"], query


def test_the_lexical_work_runs_before_stage1_waits_for_the_embedding(rt):
    query = "zqxj_blueberry sync"
    r = resolve_params(SearchParams(query=query), SearchConfig())
    parsed = parse_query(r.query, short_cjk=r.short_cjk)
    calls: list[str] = []
    real = fusion.sole_holder

    def sole(*a, **k):
        calls.append("sole holder")
        return real(*a, **k)

    fusion.sole_holder = sole
    try:
        late = _Late(rt.embedder.embed_query(query), calls)
        fusion.hybrid_candidates(rt.index, parsed, late, r, build_restriction(rt.index, r))
    finally:
        fusion.sole_holder = real
    assert calls[:2] == ["sole holder", "embedding waited for"]
