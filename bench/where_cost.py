"""What a ``where`` filter costs to judge, beside a tag filter (ADR 0191).

    python bench/where_cost.py [--notes 8000] [--repeat 20]

Builds a throwaway index of ``--notes`` notes with frontmatter properties
(no chunks: judging a filter reads notes only), then times
``build_restriction`` with its answer cache emptied before each call (the
first search of a filter under an index version), for a tag filter and for
``where`` conditions of each type. Prints each one's median and its ratio to
the tag filter's, and how many notes each one allows.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=20)
    a = ap.parse_args()
    from groove.config import SearchConfig
    from groove.pipeline import SearchParams, resolve_params
    from groove.pipeline.filters import _filter_notes, build_restriction
    from groove.storage import store
    from groove.storage.db import Index
    from groove.types import ParsedNote

    rng = random.Random(7)
    tmp = Path(tempfile.mkdtemp(prefix="where-cost-"))
    idx = Index(tmp / "index.sqlite")
    for i in range(a.notes):
        fm = {"status": rng.choice(["done", "todo", "doing"]), "priority": rng.randint(1, 9),
              "shipped": rng.random() < 0.3, "people": rng.sample(["ann", "bob", "cid", "dee", "eve"], 2),
              "due": f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}", "title2": f"note {i}"}
        tags = rng.sample(["project", "idea", "meeting", "log"], 1)
        note = ParsedNote(f"n/{i:05d}.md", f"n{i}", [], tags, "", None, fm, [], [])
        store.upsert_note(idx, note, store.FileStamp(1, 1, str(i)), vectors=None)
    cfg = SearchConfig()
    cases = [("tag project", {"tags_any": ("project",)}),
             ("where status=done", {"where": ("status=done",)}),
             ("where status!=done", {"where": ("status!=done",)}),
             ("where priority>6", {"where": ("priority>6",)}),
             ("where shipped=true", {"where": ("shipped=true",)}),
             ("where people=bob", {"where": ("people=bob",)}),
             ("where due<2026-04-01", {"where": ("due<2026-04-01",)}),
             ("where all four", {"where": ("status!=done", "priority>3", "people=bob", "due>=2026-06-01")})]
    notes = _filter_notes(idx)
    base = None
    print(f"{a.notes} notes; build_restriction, answer cache emptied before each call, median of {a.repeat}")
    for label, kw in cases:
        r = resolve_params(SearchParams(query="x", **kw), cfg)
        times = []
        for _ in range(a.repeat + 1):
            notes.answers.clear()
            t = time.perf_counter()
            res = build_restriction(idx, r)
            times.append(time.perf_counter() - t)
        t = median(times[1:])
        base = base or t
        print(f"{label:22} {t * 1e3:7.2f} ms  x{t / base:5.2f} of the tag filter  ({len(res.docs):5} notes allowed)")
    idx.close()


if __name__ == "__main__":
    main()
