"""Parent retriever (docs/design.md §1.5): content-only rewrite of small hits."""

from __future__ import annotations

import pytest

from groove.pipeline import SearchParams, run_search
from groove.pipeline.parent import expand_parents
from groove.tokens import estimate_tokens
from stagekit import VAULT_SMALL, chunk_hit, indexed_runtime, note_chunks, small_rt, with_search  # noqa: F401

BIG = 10**6


def ids(hit) -> list[int]:
    return [r.chunk_id for r in hit.expanded_from]


def chunk_id(rt, path: str, heading: str) -> int:
    return chunk_hit(rt, path, heading).chunk_id


def expand(rt, path: str, heading: str, threshold: int, cap: int):
    (out,) = expand_parents(rt.index, [chunk_hit(rt, path, heading)], threshold, cap)
    return out


# ---------------------------------------------------------------- which ranges

def test_a_hit_under_the_threshold_becomes_the_whole_note_in_file_order(small_rt):
    h = expand(small_rt, "Sync.md", "Options", threshold=BIG, cap=BIG)
    rows = note_chunks(small_rt, "Sync.md")
    assert ids(h) == [r[0] for r in rows]
    assert h.content == "".join(r[1] for r in rows)


def test_a_hit_over_the_threshold_merges_only_adjacent_siblings_of_its_level_and_parent(small_rt):
    h = expand(small_rt, "Projects.md", "Alpha goals", threshold=0, cap=BIG)
    # Alpha goals + Alpha risks: not their parent "## Alpha", not "### Beta goals" under another parent.
    want = [chunk_id(small_rt, "Projects.md", "Alpha goals"), chunk_id(small_rt, "Projects.md", "Alpha risks")]
    assert ids(h) == want


def test_threshold_zero_never_takes_the_whole_note(small_rt):
    h = expand(small_rt, "Sync.md", "Options", threshold=0, cap=BIG)
    assert ids(h) == [chunk_id(small_rt, "Sync.md", x) for x in ("Options", "Conflicts", "Backups")]


def test_sibling_merge_stops_at_the_cap_growing_after_then_before_the_hit(small_rt):
    toks = {cid: t for cid, _, t in note_chunks(small_rt, "Coffee.md")}
    beans, grind, brewing = (chunk_id(small_rt, "Coffee.md", x) for x in ("Beans", "Grind", "Brewing"))
    h = expand(small_rt, "Coffee.md", "Grind", threshold=0, cap=toks[grind] + toks[brewing])
    assert ids(h) == [grind, brewing]
    h = expand(small_rt, "Coffee.md", "Grind", threshold=0, cap=toks[grind] + toks[brewing] + toks[beans])
    assert ids(h) == [beans, grind, brewing]


def test_a_whole_note_over_the_cap_is_cut_to_a_window_around_the_hit(small_rt):
    rows = note_chunks(small_rt, "Coffee.md")
    cap = sum(t for _, _, t in rows) - 1  # the whole note no longer fits
    h = expand(small_rt, "Coffee.md", "Tea instead", threshold=BIG, cap=cap)
    got = ids(h)
    order = [r[0] for r in rows]
    assert chunk_id(small_rt, "Coffee.md", "Tea instead") in got
    assert got == order[order.index(got[0]):order.index(got[0]) + len(got)]  # contiguous, file order
    assert sum(t for cid, _, t in rows if cid in got) <= cap
    assert len(got) < len(rows)


def test_a_hit_with_nothing_to_merge_is_returned_unchanged(small_rt):
    before = chunk_hit(small_rt, "Garden.md", "Garden plan 🌱")
    (after,) = expand_parents(small_rt.index, [before], BIG, BIG)
    assert after == before and after.expanded_from == []


def test_a_hit_bigger_than_the_cap_is_returned_unchanged(small_rt):
    before = chunk_hit(small_rt, "Coffee.md", "Beans")
    (after,) = expand_parents(small_rt.index, [before], BIG, 5)
    assert after == before


def test_a_hit_whose_chunk_is_gone_is_returned_unchanged(small_rt):
    ghost = chunk_hit(small_rt, "Sync.md", "Options")
    ghost.chunk_id = 10**9
    assert expand_parents(small_rt.index, [ghost], BIG, BIG) == [ghost]


# ---------------------------------------------------------------- how content maps to the file

@pytest.mark.parametrize("path,heading", [("Sync.md", "Options"), ("Bread recipe.md", "Dough"), ("東京.md", "渋谷")])
def test_content_is_the_expanded_from_ranges_of_the_file_concatenated(small_rt, path, heading):
    """What editors rely on (docs/protocol.md): content byte k lies in range i
    at file byte ``byte_range[0] + (k - bytes of ranges before i)``; line
    ranges name the same lines."""
    h = expand(small_rt, path, heading, threshold=BIG, cap=BIG)
    data = (VAULT_SMALL / path).read_bytes()
    assert len(h.expanded_from) > 1
    assert b"".join(data[a:b] for a, b in (r.byte_range for r in h.expanded_from)) == h.content.encode()
    lines = data.splitlines(keepends=True)
    for r in h.expanded_from:
        first, last = r.line_range
        assert b"".join(lines[first - 1:last]).rstrip(b"\r\n") == data[slice(*r.byte_range)].rstrip(b"\r\n")
    starts = [r.byte_range[0] for r in h.expanded_from]
    assert starts == sorted(starts)


# ---------------------------------------------------------------- invariants in the pipeline

@pytest.mark.parametrize("query", ["sync backup", "coffee grind", "東京 ラーメン", "search project"])
def test_score_rank_path_and_order_are_unchanged_by_the_parent_retriever(small_rt, query):
    def key(resp):
        return [(h.rank, h.path, h.chunk_id, h.score, h.title, h.heading_path, h.level, h.byte_range, h.line_range)
                for h in resp.results]

    off = run_search(small_rt, SearchParams(query, limit=5))
    on = run_search(with_search(small_rt, parent={"enabled": True}), SearchParams(query, limit=5))
    assert key(on) == key(off)
    assert on.low_confidence == off.low_confidence and on.filter_applied == off.filter_applied
    assert any(h.expanded_from for h in on.results)
    for a, b in zip(off.results, on.results):
        assert a.content in b.content  # the hit's own chunk is always part of it


def test_the_cap_holds_for_rows_with_null_token_count(tiny_embedder, tmp_path):
    """Old indexes have NULL token_count; those rows count len(content)/4, so
    the cap is not bypassed (if NULL counted as 0, the whole note would fit)."""
    rt = indexed_runtime(VAULT_SMALL, tiny_embedder, tmp_path / "index.sqlite")
    try:
        with rt.index.atomic() as c:
            c.execute("UPDATE chunks SET token_count = NULL WHERE doc_id = (SELECT id FROM documents WHERE path = ?)",
                      ("Coffee.md",))
        rows = note_chunks(rt, "Coffee.md")
        assert all(t is None for _, _, t in rows)
        est = {cid: estimate_tokens(content) for cid, content, _ in rows}
        tea, brewing = chunk_id(rt, "Coffee.md", "Tea instead"), chunk_id(rt, "Coffee.md", "Brewing")
        cap = est[tea] + est[brewing]
        h = expand(rt, "Coffee.md", "Tea instead", threshold=BIG, cap=cap)
        assert ids(h) == [brewing, tea]
        assert sum(estimate_tokens(r) for r in [c for cid, c, _ in rows if cid in ids(h)]) <= cap

        # The threshold uses the same estimate for the hit itself.
        assert ids(expand(rt, "Coffee.md", "Tea instead", threshold=est[tea] + 1, cap=BIG)) == [r[0] for r in rows]
        assert ids(expand(rt, "Coffee.md", "Tea instead", threshold=est[tea], cap=BIG)) == [
            chunk_id(rt, "Coffee.md", x) for x in ("Beans", "Grind", "Brewing", "Tea instead")
        ]

        # And through the pipeline with the config's cap.
        cfg_rt = with_search(rt, parent={"enabled": True, "whole_doc_threshold_tokens": BIG,
                                         "max_expanded_tokens": cap})
        resp = run_search(cfg_rt, SearchParams("coffee tea", limit=10, path_globs=("Coffee.md",)))
        assert resp.results
        for hit in resp.results:
            pieces = [c for cid, c, _ in rows if cid in ids(hit)] or [hit.content]
            assert sum(estimate_tokens(p) for p in pieces) <= max(cap, estimate_tokens(hit.content))
    finally:
        rt.close()
