"""The note-aware vector leg (ADR-0078): a chunk's similarity plus its note's."""

from __future__ import annotations

import numpy as np

from groove.pipeline.filters import Restriction
from groove.pipeline.fusion import nearest_notes, note_aware_ranking, vector_leg
from stagekit import small_rt  # noqa: F401  (fixture)


def _all_vectors(rt, table: str) -> dict[int, np.ndarray]:
    return {r[0]: np.frombuffer(r[1], dtype=np.float32)
            for r in rt.index.conn.execute(f"SELECT rowid, embedding FROM {table}")}


def _restriction() -> Restriction:
    return Restriction(sql=None, applied={})


def test_chunks_rank_by_their_cosine_plus_their_notes_cosine(small_rt):  # noqa: F811
    rt = small_rt
    q = rt.embedder.embed_query("keep notes in sync between phone and computer")
    chunks, notes = _all_vectors(rt, "vec_chunks"), _all_vectors(rt, "vec_notes")
    doc_of = dict(rt.index.conn.execute("SELECT id, doc_id FROM chunks"))
    n = len(chunks)  # the candidate set is every chunk
    no = _restriction()
    near = nearest_notes(rt.index, q, n, no)
    got = note_aware_ranking(rt.index, q, vector_leg(rt.index, q, n, no, set()), near, n, 1.0)
    score = {cid: float(v @ q) + float(notes[doc_of[cid]] @ q) for cid, v in chunks.items()}
    want = sorted(score, key=lambda cid: (-score[cid], cid))
    assert got == want  # float32 cosines agree with the L2-derived ones to ~1e-7
    plain = [cid for cid, _ in vector_leg(rt.index, q, n, no, set())]
    assert got != plain  # the note term really moves chunks


def test_excluded_chunks_stay_out_even_when_their_note_is_near(small_rt):  # noqa: F811
    rt = small_rt
    q = rt.embedder.embed_query("sync conflicts")
    no = _restriction()
    excluded = {r[0] for r in rt.index.conn.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'Sync.md'")}
    near = nearest_notes(rt.index, q, 50, no)
    sync_doc = rt.index.conn.execute("SELECT id FROM documents WHERE path = 'Sync.md'").fetchone()[0]
    assert sync_doc in dict(near)  # its note similarity is known, its chunks are not candidates
    got = note_aware_ranking(rt.index, q, vector_leg(rt.index, q, 200, no, excluded), near, 50, 1.0)
    assert got and not set(got) & excluded


def test_weight_zero_keeps_the_plain_vector_leg(small_rt):  # noqa: F811
    from dataclasses import replace

    from groove import operations
    from groove.pipeline import SearchParams

    rt = small_rt
    cfg = rt.config.search
    # Section evidence and the tiny-chunk prior off too: they rescore the same leg.
    off = replace(rt.config, search=replace(cfg, fusion=replace(cfg.fusion, dense_note_weight=0.0,
                                                                 section_weight=0.0, own_words=0.0)))
    rt_off = replace(rt, config=off)
    q = "keep notes in sync between phone and computer"
    plain = [cid for cid, _ in vector_leg(rt.index, rt.embedder.embed_query(q), 50, _restriction(), set())]
    got = [h.chunk_id for h in operations.search(rt_off, SearchParams(q, limit=50, legs="vector")).results]
    assert got == plain[:len(got)]


def _exact(rt, q, ids) -> list[int]:
    chunks = _all_vectors(rt, "vec_chunks")
    sims = {cid: float(chunks[cid] @ q) for cid in ids}
    return sorted(sims, key=lambda cid: (-sims[cid], cid))


def test_a_filtered_vector_leg_is_the_exact_nearest_of_the_allowed_chunks(small_rt):  # noqa: F811
    """ADR 0082: the KNN pre-filtered with rowid IN, checked against numpy."""
    rt = small_rt
    q = rt.embedder.embed_query("garden plans for the spring")
    sql = "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path LIKE 'journal/%'"
    allowed = [r[0] for r in rt.index.conn.execute(sql)]
    assert 1 < len(allowed) < len(_all_vectors(rt, "vec_chunks"))
    got = [cid for cid, _ in vector_leg(rt.index, q, 5, Restriction(sql=sql, applied={"path": ["journal/**"]}), set())]
    assert got == _exact(rt, q, allowed)[:5]


def test_more_exclusions_than_the_depth_are_filtered_inside_the_knn(small_rt):  # noqa: F811
    """Excluding most of the vault still returns the n nearest of the rest."""
    rt = small_rt
    q = rt.embedder.embed_query("coffee")
    every = list(_all_vectors(rt, "vec_chunks"))
    excluded = set(every[: len(every) - 6])
    assert len(excluded) > 3
    got = [cid for cid, _ in vector_leg(rt.index, q, 3, _restriction(), excluded)]
    assert got == _exact(rt, q, [c for c in every if c not in excluded])[:3]
