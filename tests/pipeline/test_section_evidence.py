"""Section evidence on the normal vector path (issue 49, pipeline/sections.py):
a note's score is (1 - w) * its summary's cosine + w * its best chunk's,
computed for the notes the vector legs found, and ranking as the exact scan
of every vector (index/space.py, ``section_exact``) does, from SQLite and
from the daemon's vector copy alike."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from groove import operations
from groove.config import SearchConfig
from groove.engines.vectors import cache as vectors
from groove.engines.vectors import stored
from groove.engines.vectors.cache import VectorCache
from groove.pipeline import SearchParams, resolve_params
from groove.pipeline.filters import build_restriction
from groove.pipeline.fusion import _chunk_hits, hybrid_candidates, nearest_notes
from groove.pipeline.sections import with_sections
from groove.query import parse_query
from helpers import make_runtime

WORDS = ["sync", "canvas", "graph", "vault", "plugin", "hotkey", "embed", "folder", "backlink", "template",
         "daily", "theme", "search", "publish", "attachment", "同期", "キャンバス", "設定を変更する"]
QUERIES = ["sync canvas", "graph of the vault", "hotkey template -キャンバス", "同期の設定", "publish a theme"]


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_embedder):
    tmp = tmp_path_factory.mktemp("sections")
    vault = tmp / "vault"
    rng = random.Random(9)
    for i in range(72):  # more notes than the note leg's depth below: the bound decides
        folder = vault / ["work", "home"][i % 2]
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(f"## {rng.choice(WORDS)} {j}\n\n" + " ".join(rng.choice(WORDS) for _ in range(30))
                           for j in range(rng.randint(1, 6)))
        (folder / f"note {i:02d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    runtime = make_runtime(vault, tiny_embedder, tmp)
    operations.reindex(runtime)
    return runtime


def _cfg(**fusion) -> SearchConfig:
    base = SearchConfig(candidates=6)
    return dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **fusion))


def _stage1(rt, query: str, cfg: SearchConfig, **params) -> tuple[list[int], list[int]]:
    """The vector leg's chunks (note-aware) and stage 1's candidates."""
    r = resolve_params(SearchParams(query=query, limit=1, **params), cfg)
    s = hybrid_candidates(rt.index, parse_query(r.query, short_cjk=r.short_cjk), rt.embedder.embed_query(query), r,
                          build_restriction(rt.index, r))
    return s.vec_ids, [c.chunk_id for c in s.candidates]


def _vectors(rt, table: str) -> dict[int, np.ndarray]:
    return {rid: np.frombuffer(b, dtype=np.float32)
            for rid, b in rt.index.conn.execute(f"SELECT rowid, embedding FROM {table}")}


@pytest.mark.parametrize("query", QUERIES)
@pytest.mark.parametrize("params", [{}, {"path_globs": ("work/**",)}])
def test_the_notes_found_rank_as_the_exact_scan_ranks_every_note(rt, monkeypatch, query, params):
    exact = _stage1(rt, query, _cfg(section_weight=0.5, section_exact=True), **params)
    rt.index.vectors = VectorCache()  # a one-shot process: sqlite-vec answers
    assert _stage1(rt, query, _cfg(section_weight=0.5), **params) == exact
    monkeypatch.setattr(vectors, "MIN_ROWS", 10)  # the daemon's copy answers
    rt.index.vectors.warm(rt.index.conn)
    assert rt.index.vectors.status(rt.index.conn)["state"] == "ready"
    assert _stage1(rt, query, _cfg(section_weight=0.5), **params) == exact
    rt.index.vectors = VectorCache()


@pytest.mark.parametrize("query", QUERIES[:3])
def test_each_note_scores_its_summary_blended_with_its_best_section(rt, query):
    idx = rt.index
    q = np.asarray(rt.embedder.embed_query(query), dtype=np.float32)
    r = resolve_params(SearchParams(query=query, limit=1), _cfg())
    restriction = build_restriction(idx, r)
    near = nearest_notes(idx, q, r.candidates, restriction)
    hits = _chunk_hits(idx, q, r, restriction, set(), True)
    got = with_sections(idx, q, near, hits, 0.25, r.candidates, hits_exact=True).notes
    chunks, notes = _vectors(rt, "vec_chunks"), _vectors(rt, "vec_notes")
    doc_of = dict(idx.conn.execute("SELECT id, doc_id FROM chunks"))
    want = {}
    for d, v in notes.items():
        best = max(float(x @ q) for c, x in chunks.items() if doc_of[c] == d)
        want[d] = 0.75 * float(v @ q) + 0.25 * best
    for d, s in got:
        assert s == pytest.approx(want[d], abs=1e-5)
    order = sorted(want, key=lambda d: (-want[d], d))
    assert [d for d, _ in got[:r.candidates]] == order[:r.candidates]  # the top is every note's top
    assert order[:r.candidates] != [d for d, _ in sorted(near, key=lambda x: (-x[1], x[0]))] or query == QUERIES[2]


def test_section_evidence_moves_the_vector_legs(rt):
    moved = [q for q in QUERIES if _stage1(rt, q, _cfg(section_weight=1.0)) != _stage1(rt, q, _cfg())]
    assert len(moved) >= 3, moved


def test_rows_are_read_by_rowid_as_stored(rt):
    want = _vectors(rt, "vec_chunks")
    ids = sorted(random.Random(2).sample(sorted(want), 12)) + [10**9]  # and one the table lacks
    found, vecs = stored.rows(rt.index.conn, "vec_chunks", ids)
    assert sorted(found) == ids[:-1]
    for rid, v in zip(found, vecs):
        assert np.array_equal(v, want[rid])
