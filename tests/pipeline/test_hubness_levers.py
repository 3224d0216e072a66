"""The hubness remedies of issue 49 (index/space.py): each one computed the
way its definition says, from the index's own vectors."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from groove.index.space import CSLS_K, PRF_BETA, PRF_DEPTH, Levers, score, space_of
from groove.pipeline import SearchParams, run_search
from stagekit import small_rt  # noqa: F401  (fixture)


def _vectors(rt, table: str) -> tuple[np.ndarray, np.ndarray]:
    rows = list(rt.index.conn.execute(f"SELECT rowid, embedding FROM {table} ORDER BY rowid"))
    return np.array([r[0] for r in rows]), np.vstack([np.frombuffer(r[1], dtype=np.float32) for r in rows])


def _unit(x):
    return x / np.linalg.norm(x, axis=-1, keepdims=True)


def test_centring_is_the_cosine_after_subtracting_the_vault_mean(small_rt):  # noqa: F811
    q = np.asarray(small_rt.embedder.embed_query("keep notes in sync"), dtype=np.float32)
    ids, X = _vectors(small_rt, "vec_chunks")
    nids, N = _vectors(small_rt, "vec_notes")
    got = score(space_of(small_rt.index), q, Levers(centre=True))
    mu, nu = X.mean(axis=0), N.mean(axis=0)
    assert np.allclose(got.chunk_scores, _unit(X - mu) @ _unit(q - mu), atol=1e-5)
    assert np.allclose(got.note_scores, _unit(N - nu) @ _unit(q - nu), atol=1e-5)
    assert np.allclose(got.chunk_cos, X @ q, atol=1e-6)  # what low_confidence reads stays the plain cosine
    assert not np.allclose(got.chunk_scores, X @ q, atol=1e-3)


def test_csls_subtracts_half_the_mean_similarity_to_other_notes_nearest_rows(small_rt):  # noqa: F811
    q = np.asarray(small_rt.embedder.embed_query("keep notes in sync"), dtype=np.float32)
    nids, N = _vectors(small_rt, "vec_notes")
    got = score(space_of(small_rt.index), q, Levers(csls=True))
    sims = N @ N.T
    np.fill_diagonal(sims, -np.inf)
    k = min(CSLS_K, len(N) - 1)
    r = np.sort(sims, axis=1)[:, -k:].mean(axis=1)
    assert np.allclose(got.note_scores, N @ q - r / 2, atol=1e-5)


def test_section_evidence_blends_a_notes_summary_with_its_best_chunk(small_rt):  # noqa: F811
    q = np.asarray(small_rt.embedder.embed_query("conflict between two devices"), dtype=np.float32)
    ids, X = _vectors(small_rt, "vec_chunks")
    nids, N = _vectors(small_rt, "vec_notes")
    doc_of = dict(small_rt.index.conn.execute("SELECT id, doc_id FROM chunks"))
    got = score(space_of(small_rt.index), q, Levers(section_weight=0.5))
    for i, d in enumerate(nids):
        best = max(float(X[j] @ q) for j, c in enumerate(ids) if doc_of[int(c)] == d)
        assert abs(got.note_scores[i] - (0.5 * float(N[i] @ q) + 0.5 * best)) < 1e-5


def test_feedback_moves_the_query_toward_its_nearest_chunks(small_rt):  # noqa: F811
    q = np.asarray(small_rt.embedder.embed_query("keep notes in sync"), dtype=np.float32)
    ids, X = _vectors(small_rt, "vec_chunks")
    top = np.argsort(-(X @ q))[:PRF_DEPTH]
    q1 = _unit(q + PRF_BETA * X[top].mean(axis=0))
    got = score(space_of(small_rt.index), q, Levers(prf=True))
    assert np.allclose(got.chunk_scores, X @ q1, atol=1e-5)


def test_each_switch_reaches_the_search_and_the_defaults_are_the_shipped_path(small_rt):  # noqa: F811
    rt = small_rt
    params = SearchParams(query="keep notes in sync between phone and computer", limit=10)
    base = [(h.path, h.score) for h in run_search(rt, params).results]
    cfg = rt.config.search
    assert cfg.fusion.section_weight == 0.25  # section evidence ships on (ADR 0265)
    for kw in ({"centre": True}, {"csls": True}, {"section_weight": 1.0}, {"section_weight": 0.0}, {"prf": True}):
        on = replace(rt, config=replace(rt.config, search=replace(cfg, fusion=replace(cfg.fusion, **kw))))
        got = [(h.path, h.score) for h in run_search(on, params).results]
        assert got and got != base, kw
    zero = replace(rt, config=replace(rt.config, search=replace(cfg, fusion=replace(cfg.fusion))))
    assert [(h.path, h.score) for h in run_search(zero, params).results] == base


def test_a_chunk_with_no_words_of_its_own_is_empty():
    from groove.index.own_words import is_empty

    for text in ("https://www.youtube.com/watch?v=abc", "![[diagram.png]]", "![](img/a.png)\n",
                 "## Links\n\nhttps://example.org/page"):
        assert is_empty(text), text
    for text in ("The electrical pressure", "See [[Cron]] for this", "## Sleep\n\nNREM comes first.", "睡眠"):
        assert not is_empty(text), text


def test_empty_chunks_do_not_rank_in_the_vector_leg_when_asked(tmp_path, default_embedder):
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path, {"Video.md": "https://www.youtube.com/watch?v=sleep-nrem\n",
                                    "Sleep.md": "# Sleep\n\nNREM sleep comes before REM sleep in each cycle.\n"},
                         default_embedder)
    try:
        q = np.asarray(rt.embedder.embed_query("youtube video about sleep"), dtype=np.float32)
        space = space_of(rt.index)
        video = rt.index.conn.execute(
            "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'Video.md'").fetchone()[0]
        assert video in {h[0] for h in score(space, q, Levers(centre=True)).top_chunks(10, None, set())}
        assert video not in {h[0] for h in score(space, q, Levers(skip_empty=True)).top_chunks(10, None, set())}
    finally:
        rt.close()


def test_the_question_side_can_be_centred_by_the_titles_asked_as_questions(small_rt):  # noqa: F811
    rt = small_rt
    space = space_of(rt.index)
    titles = [t for (t,) in rt.index.conn.execute("SELECT title FROM documents WHERE title != ''")]
    mq = np.mean([np.asarray(rt.embedder.embed_query(t), dtype=np.float32) for t in titles], axis=0)
    assert np.allclose(space.question_mean(rt.index.conn, rt.embedder.embed_query), mq, atol=1e-6)
    q = np.asarray(rt.embedder.embed_query("keep notes in sync"), dtype=np.float32)
    ids, X = _vectors(rt, "vec_chunks")
    got = score(space, q, Levers(centre=True, question_mean=True), mq)
    assert np.allclose(got.chunk_scores, _unit(X - X.mean(axis=0)) @ _unit(q - mq), atol=1e-5)
