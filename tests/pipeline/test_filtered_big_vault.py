"""Filters and MMR in a big vault (ADR 0137): the daemon's in-memory copies
(word index, vector copy) mask their rows with the filter's notes instead of
running its SQL back through SQLite, a filter's notes are judged once per
index version, and MMR reads its pool's vectors from the copy. Results must
come out as a one-shot process, which reads everything from SQLite, gets them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from groove import operations
from groove.config import SearchConfig
from groove.engines.lexical import word_postings
from groove.engines.lexical.word_index import WordPostingsCache
from groove.engines.vectors import cache as vectors
from groove.engines.vectors.cache import VectorCache
from groove.pipeline import SearchParams, resolve_params
from groove.pipeline.filters import build_restriction
from groove.pipeline.fusion import hybrid_candidates
from groove.query import parse_query
from helpers import make_runtime

WORDS = ["sync", "canvas", "graph", "vault", "plugin", "hotkey", "embed", "folder", "backlink", "template",
         "daily", "theme", "search", "publish", "attachment", "同期", "キャンバス", "設定を変更する"]


@pytest.fixture(scope="module")
def rt(tmp_path_factory, tiny_embedder):
    tmp = tmp_path_factory.mktemp("filtered")
    vault = tmp / "vault"
    rng = random.Random(4)
    for i in range(72):
        folder = vault / ["work", "home", "work/archive"][i % 3]
        folder.mkdir(parents=True, exist_ok=True)
        tags = rng.sample(["project", "idea", "project/alpha", "日記"], rng.randint(0, 2))
        kind = "meeting" if i % 4 == 0 else "note"
        front = (f"---\ntags: [{', '.join(tags)}]\ndate: 2026-0{1 + i % 9}-1{i % 10}\nn: {i}\n"
                 f"kind: {kind}\n---\n")
        body = "\n\n".join(f"## {rng.choice(WORDS)} {j}\n\n" + " ".join(rng.choice(WORDS) for _ in range(40))
                           for j in range(rng.randint(1, 4)))
        (folder / f"note {i:02d}.md").write_text(front + f"# Note {i}\n\n{body}\n", encoding="utf-8")
    runtime = make_runtime(vault, tiny_embedder, tmp)
    operations.reindex(runtime)
    return runtime


FILTERS = [
    {"path_globs": ("work/**",)},
    {"path_globs": ("home/*", "work/archive/**")},
    {"tags_any": ("project",)},
    {"tags_all": ("project/alpha", "idea")},
    {"date_from": "2026-03-01", "date_to": "2026-06-30"},
    {"path_globs": ("work/**",), "tags_any": ("日記",)},
    {"path_globs": ("nowhere/**",)},
    {"where": ("kind=meeting",)},  # frontmatter properties (ADR 0191)
    {"where": ("n>=30", "kind!=meeting"), "path_globs": ("work/**",)},
]


@pytest.mark.parametrize("query", ["sync canvas", "graph -vault", "hotkey template -キャンバス", "同期の設定"])
def test_filtered_stage1_in_memory_equals_sqlite(rt, monkeypatch, query):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)  # the test vault is far below a big vault's size
    monkeypatch.setattr(vectors, "MIN_ROWS", 10)
    idx, cfg = rt.index, SearchConfig()
    qvec = rt.embedder.embed_query(query)

    def stage1(filters: dict) -> tuple:
        r = resolve_params(SearchParams(query=query, **filters), cfg)
        restriction = build_restriction(idx, r)
        s = hybrid_candidates(idx, parse_query(r.query, short_cjk=r.short_cjk), qvec, r, restriction)
        if "where" in filters:  # the legs saw only the notes the properties allow (ADR 0191)
            props = {d: (n, k) for d, n, k in idx.conn.execute(
                "SELECT id, json_extract(frontmatter, '$.n'), json_extract(frontmatter, '$.kind') FROM documents")}
            meetings = filters["where"] == ("kind=meeting",)
            for c in s.candidates:
                n, kind = props[c.doc_id]
                assert kind == "meeting" if meetings else (n >= 30 and kind == "note")
        return s.fts_ids, s.vec_ids, [c.chunk_id for c in s.candidates]

    for filters in FILTERS:
        idx.words, idx.vectors = WordPostingsCache(), VectorCache()  # a one-shot process: SQLite answers
        want = stage1(filters)
        idx.words.warm(idx.conn)
        idx.vectors.warm(idx.conn)
        assert idx.word_postings() is not None  # the daemon's copies answer now
        assert idx.vectors.nearest(idx.conn, "vec_chunks", qvec.astype("float32").tobytes(), 1, None) is not None
        assert stage1(filters) == want, filters


def test_a_filter_is_judged_once_per_index_version(rt, monkeypatch):
    from groove.pipeline import filters as filters_mod

    judged = []
    real = filters_mod._judge
    monkeypatch.setattr(filters_mod, "_judge", lambda *a: judged.append(1) or real(*a))
    r = resolve_params(SearchParams(query="x", path_globs=("work/*.md",)), SearchConfig())  # asked nowhere else
    first = build_restriction(rt.index, r)
    again = build_restriction(rt.index, r)
    assert len(judged) == 1 and first is again  # one Restriction, its SQL and note list made once
    assert not first.docs.flags.writeable  # shared between searches: nobody may change it
    paths = dict(rt.index.conn.execute("SELECT id, path FROM documents"))
    assert {paths[d] for d in first.docs.tolist()} == {
        p for p in paths.values() if p.startswith("work/") and "/" not in p[5:]}

    note = rt.vault / "work" / "fresh note.md"
    note.write_text("# Fresh\n\nsync canvas\n", encoding="utf-8")
    try:
        operations.reindex(rt)
        after = build_restriction(rt.index, r)  # a new index version: judged anew, the new note in
        assert len(judged) == 2 and "work/fresh note.md" in {paths2 for paths2 in (
            rt.index.conn.execute("SELECT path FROM documents WHERE id = ?", (d,)).fetchone()[0]
            for d in after.docs.tolist())}
    finally:
        note.unlink()
        operations.reindex(rt)


def test_mmr_reads_a_big_vaults_vectors_from_the_copy_with_the_same_dot_products(rt, monkeypatch):
    """The copy holds rotated vectors (ADR 0133): MMR only reads their dot
    products, which a rotation keeps, and picks the same notes."""
    from groove.pipeline import run_search
    from groove.pipeline.mmr import load_embeddings

    dim = rt.embedder.dim
    monkeypatch.setattr(vectors, "MIN_ROWS", 10)
    monkeypatch.setattr(vectors, "HEAD_MIN_ROWS", 10)
    monkeypatch.setattr(vectors, "HEAD_DIMS", dim // 2)  # a lead, the rest of the head and a tail, as at 100k chunks
    monkeypatch.setattr(vectors, "LEAD_DIMS", dim // 3)
    monkeypatch.setattr(vectors, "LEAD_MIN_ROWS", 10)
    idx = rt.index
    ids = [r[0] for r in idx.conn.execute("SELECT id FROM chunks ORDER BY id DESC LIMIT 40")] + [10**9]
    idx.vectors = VectorCache()
    stored = load_embeddings(idx, ids)  # no copy: sqlite-vec's rows
    picks = [h.chunk_id for h in run_search(rt, SearchParams(query="sync canvas", mmr=True, limit=8)).results]
    idx.vectors.warm(idx.conn)
    held = load_embeddings(idx, ids)
    assert idx.vectors.vectors_of(idx.conn, "vec_chunks", ids) is not None
    assert not np.allclose(held, stored, atol=1e-3)  # rotated, not a copy of the stored rows
    np.testing.assert_allclose(held @ held.T, stored @ stored.T, atol=1e-5)
    np.testing.assert_allclose(idx.vectors.vectors_of(idx.conn, "vec_chunks", ids, as_stored=True), stored,
                               atol=1e-5)  # rotated back
    assert not held[-1].any()  # an id without a vector: a zero row, as from sqlite-vec
    assert [h.chunk_id for h in run_search(rt, SearchParams(query="sync canvas", mmr=True, limit=8)).results] == picks


@pytest.mark.parametrize("rotated", [False, True], ids=["plain copy", "lead, head and tail"])
def test_related_notes_come_from_the_copy_as_from_sqlite_vec(rt, monkeypatch, rotated):
    """Plain KNN of a note (``nearest_notes_to``: what related notes fall back
    to without the exact copy of index/related_rank.py, ADR 0276)."""
    from groove.index.notes import nearest_notes_to

    monkeypatch.setattr(vectors, "MIN_ROWS", 10)
    if rotated:
        monkeypatch.setattr(vectors, "HEAD_MIN_ROWS", 10)
        monkeypatch.setattr(vectors, "HEAD_DIMS", rt.embedder.dim // 2)
        monkeypatch.setattr(vectors, "LEAD_DIMS", rt.embedder.dim // 3)
        monkeypatch.setattr(vectors, "LEAD_MIN_ROWS", 10)
    idx = rt.index
    docs = [d for (d,) in idx.conn.execute("SELECT id FROM documents ORDER BY id LIMIT 6")]
    idx.vectors = VectorCache()
    want = [list(nearest_notes_to(idx, d, None, 10)) for d in docs]
    idx.vectors.warm(idx.conn)
    asked = []
    real = idx.vectors.nearest
    monkeypatch.setattr(idx.vectors, "nearest", lambda *a, **k: asked.append(a[1]) or real(*a, **k))
    got = [list(nearest_notes_to(idx, d, None, 10)) for d in docs]
    assert asked.count("vec_chunks") == len(docs)  # the copy answered every one
    for w, g in zip(want, got):
        assert [x[0] for x in g] == [x[0] for x in w]
        assert [x[1] for x in g] == pytest.approx([x[1] for x in w], abs=2e-4)
