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


def test_each_switch_reaches_the_search_and_all_off_is_the_shipped_path(small_rt):  # noqa: F811
    rt = small_rt
    params = SearchParams(query="keep notes in sync between phone and computer", limit=10)
    base = [(h.path, h.score) for h in run_search(rt, params).results]
    cfg = rt.config.search
    for kw in ({"centre": True}, {"csls": True}, {"section_weight": 1.0}, {"prf": True}):
        on = replace(rt, config=replace(rt.config, search=replace(cfg, fusion=replace(cfg.fusion, **kw))))
        got = [(h.path, h.score) for h in run_search(on, params).results]
        assert got and got != base, kw
    zero = replace(rt, config=replace(rt.config, search=replace(cfg, fusion=replace(cfg.fusion))))
    assert [(h.path, h.score) for h in run_search(zero, params).results] == base
