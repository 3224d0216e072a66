"""Stage-1 behaviours kept by the retrieval-quality work (ADR-0071, 0072),
with llama.cpp really running the tiny random BERT: its vectors carry no
meaning, so these pin what the lexical side guarantees on its own."""

from __future__ import annotations

import dataclasses

import pytest

from groove import operations
from groove.config import Config, IndexConfig, SearchConfig
from groove.pipeline import SearchParams
from helpers import make_runtime


def _write(vault, rel, text):
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


@pytest.fixture
def vault(tmp_path):
    v = tmp_path / "vault"
    filler = "This page explains one feature of the app in some detail.\n"
    for i in range(12):
        text = f"# Feature {i}\n\n{filler}\n## Use\n\nOpen the switcher panel and pick one.\n"
        _write(v, f"Plugins/Feature {i}.md", text)
    _write(v, "Plugins/Quick switcher.md", f"# Quick switcher\n\n{filler}")
    _write(v, "ja/マップビュー.md", f"# マップビュー\n\n{filler}")
    _write(v, "Sync.md", "# Sync\n\nKeep devices in sync.\n\n## Phones\n\nOn mobile, sync runs in the background.\n")
    return v


def _search(rt, q, **knobs):
    # The title leg is what these tests pin; it is off by default (ADR-0076).
    knobs.setdefault("title_weight", 1.0)
    base = SearchConfig()
    fusion = {k: v for k, v in knobs.items() if hasattr(base.fusion, k)}
    top = {k: v for k, v in knobs.items() if k not in fusion}
    search = dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **fusion), **top)
    rt2 = dataclasses.replace(rt, config=dataclasses.replace(rt.config, search=search))
    return operations.search(rt2, SearchParams(q, limit=10))


def test_a_query_naming_a_note_title_ranks_that_note_first(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    assert _search(rt, "quick switcher").results[0].path == "Plugins/Quick switcher.md"
    assert _search(rt, "マップビュー").results[0].path == "ja/マップビュー.md"


def test_the_title_leg_ranks_a_named_note_above_notes_that_only_share_its_words(vault, tiny_embedder, tmp_path):
    """Every Feature note's body says "switcher panel" and "use"; only one
    note is *called* Quick switcher. The full-text leg alone prefers the
    bodies; the title leg lifts the named note."""
    from groove.pipeline.titles import title_leg
    from groove.query import parse_query

    # The twelve Feature notes are one template; embedded as written, so the
    # random vectors rank as they did before ADR 0210 and only the title leg moves.
    rt = make_runtime(vault, tiny_embedder, tmp_path, config=Config(index=IndexConfig(boilerplate=False)))
    operations.reindex(rt)
    hits = title_leg(rt.index, parse_query("use the quick switcher panel").terms.title_words, None, 0.5)
    named = rt.index.conn.execute("SELECT id FROM documents WHERE path = 'Plugins/Quick switcher.md'").fetchone()[0]
    assert [h.doc_id for h in hits] == [named]
    q = "use the quick switcher panel"
    # Coverage-scaled full-text votes (ADR-0079) lift the named note too; off here to see the title leg alone.
    off = [h.path for h in _search(rt, q, title_weight=0.0, fts_coverage=False).results]
    on = [h.path for h in _search(rt, q, fts_coverage=False).results]
    rank = lambda paths: paths.index("Plugins/Quick switcher.md") if "Plugins/Quick switcher.md" in paths else 99  # noqa: E731
    assert rank(on) < rank(off)


def test_note_level_exclusion_drops_every_chunk_of_a_note_that_mentions_the_word(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    note_scope = _search(rt, "sync devices -mobile")
    assert all(h.path != "Sync.md" for h in note_scope.results)
    chunk_scope = _search(rt, "sync devices -mobile", exclusion_scope="chunk")
    sync_hits = [h for h in chunk_scope.results if h.path == "Sync.md"]
    assert sync_hits and all("mobile" not in h.content for h in sync_hits)


def test_the_original_rrf_stays_reachable_by_configuration(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    original = _search(rt, "switcher panel", title_weight=0.0, note_weight=0.0, dense_note_weight=0.0,
                       fts_coverage=False, named_note_first=False, exclusion_scope="chunk")
    assert original.results and all(h.score <= 2 / 61 + 1e-12 for h in original.results)


def test_a_note_the_chunk_legs_missed_enters_through_its_first_chunk_that_is_not_excluded(
    vault, tiny_embedder, tmp_path
):
    """The note leg hands RRF a chunk per note: the fused best if any, else
    the note's first chunk — skipping excluded ones (one batched query)."""
    from groove.pipeline.fusion import _docs_to_chunks

    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    rows = rt.index.conn.execute(
        "SELECT d.path, c.doc_id, c.id FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.doc_id, c.ordinal"
    ).fetchall()
    chunks: dict[str, list[int]] = {}
    doc_of_path: dict[str, int] = {}
    for path, doc_id, cid in rows:
        chunks.setdefault(path, []).append(cid)
        doc_of_path[path] = doc_id
    names = ("Sync.md", "Plugins/Quick switcher.md", "Plugins/Feature 3.md", "Plugins/Feature 5.md")
    assert len(chunks["Sync.md"]) >= 2 and len(chunks["Plugins/Feature 5.md"]) >= 2
    fused = [(chunks["Plugins/Feature 3.md"][-1], 0.5)]  # the fusion reached Feature 3's last chunk
    got = _docs_to_chunks(rt.index, [doc_of_path[p] for p in names], {chunks["Sync.md"][0]}, fused)
    assert got == [chunks["Sync.md"][1], chunks["Plugins/Quick switcher.md"][0],
                   chunks["Plugins/Feature 3.md"][-1], chunks["Plugins/Feature 5.md"][0]]


def test_a_query_that_is_a_notes_name_ranks_it_first_even_against_denser_hits(tmp_path, tiny_embedder):
    """ADR 0083, with the default legs: Phones.md says "sync" far more often,
    but the query *is* the name of Sync.md."""
    v = tmp_path / "vault"
    _write(v, "Sync.md", "Keep your devices in step.\n")
    _write(v, "Phones.md", "# Sync on phones\n\nSync, sync and sync again: sync runs in the background.\n")
    for i in range(6):
        _write(v, f"Other {i}.md", f"# Other {i}\n\nNothing to see on page {i}.\n")
    rt = make_runtime(v, tiny_embedder, tmp_path)
    operations.reindex(rt)
    fts_first = operations.search(rt, SearchParams("sync", limit=3, legs="fts")).results[0].path
    assert fts_first == "Phones.md"
    assert _search(rt, "Sync", title_weight=0.0).results[0].path == "Sync.md"
    assert _search(rt, "sync -background", title_weight=0.0).results[0].path == "Sync.md"
    excluded = _search(rt, "sync -devices", title_weight=0.0).results  # the named note holds the excluded word
    assert all(h.path != "Sync.md" for h in excluded)
    off = _search(rt, "sync", title_weight=0.0, named_note_first=False, vec_weight=0.0, note_weight=0.0)
    assert off.results[0].path == "Phones.md"  # without the rule the lexical evidence wins
