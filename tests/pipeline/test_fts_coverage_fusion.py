"""The full-text leg's votes scaled by query coverage (ADR 0079), through the
real search path. The vector and note legs are weighted 0 so the tiny
random model cannot move the order: what is left is the full-text leg."""

from __future__ import annotations

import dataclasses

from groove import operations
from groove.config import SearchConfig
from groove.pipeline import SearchParams
from helpers import make_runtime


def _write(vault, rel, text):
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def _paths(rt, q, **fusion):
    base = SearchConfig()
    fusion = {"vec_weight": 0.0, "note_weight": 0.0, **fusion}
    search = dataclasses.replace(base, fusion=dataclasses.replace(base.fusion, **fusion))
    rt2 = dataclasses.replace(rt, config=dataclasses.replace(rt.config, search=search))
    return [h.path for h in operations.search(rt2, SearchParams(q, limit=10)).results if h.score > 0]


def test_a_hit_holding_the_whole_query_outranks_a_denser_hit_on_its_common_word(tmp_path, tiny_embedder):
    v = tmp_path / "vault"
    for i in range(18):
        _write(v, f"Filler {i}.md", f"# Filler {i}\n\nSome unrelated page number {i}.\n")
    for i in range(5):
        _write(v, f"Lamp {i}.md", f"# Lamp {i}\n\nA lantern on page {i}.\n")
    _write(v, "Lantern.md", "# Lantern\n\nLantern, lantern, lantern.\n")
    _write(v, "Care.md", "# Care\n\n" + "Some words about looking after things. " * 6
           + "The phoenix sleeps beside a lantern.\n")
    _write(v, "Phoenix.md", "# Bird\n\nA phoenix.\n")
    rt = make_runtime(v, tiny_embedder, tmp_path)
    operations.reindex(rt)
    fts_order = [h.path for h in operations.search(rt, SearchParams("phoenix lantern", limit=10, legs="fts")).results]
    assert fts_order.index("Lantern.md") < fts_order.index("Care.md")  # bm25: the dense hit first
    plain = _paths(rt, "phoenix lantern", fts_coverage=False)
    assert plain == fts_order[: len(plain)]  # without coverage the fusion keeps the leg's order
    covered = _paths(rt, "phoenix lantern")
    assert covered[0] == "Care.md"
    assert covered.index("Phoenix.md") < covered.index("Lantern.md")  # the rare word weighs more
