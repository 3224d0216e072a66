"""What building a rebuild aside costs (ADR 0151): the copy of the new index
over the old one (SQLite's backup API, one transaction) as a share of the
whole `--rebuild`, on a vault of N notes with the tiny test model (the
embedding is the model's; the copy is the index's size).

    python bench/rebuild_copy.py [--notes 2000]

Prints the rebuild's and the copy's seconds and their ratio.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))
from _common import scratch_dir  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=2000)
    a = ap.parse_args()
    from groove import indexer
    from groove.config import Config
    from groove.models.llama_embedder import LlamaEmbedder
    from groove.runtime import open_runtime
    from groove.storage.db import Index
    from tinymodels import write_tiny_bert_embedder

    root = scratch_dir("groove-rebuild-")
    emb = LlamaEmbedder(write_tiny_bert_embedder(root / "tiny.gguf"), max_tokens=256)
    vault = root / "vault"
    for i in range(a.notes):
        p = vault / f"f{i % 20}" / f"n{i}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"# Note {i}\n\n" + f"Text {i} about topic {i % 7} and more words. " * 30 + "\n\n## More\n\nx\n",
                     encoding="utf-8")
    rt = open_runtime(vault, index_path=root / "index.sqlite", config=Config())
    rt._embedder = emb
    indexer.index_vault(vault, rt.index, emb, rt.config.index)
    copy = Index.replace_with
    took: list[float] = []

    def timed(self: Index, other: Index) -> None:
        t = time.perf_counter()
        copy(self, other)
        took.append(time.perf_counter() - t)

    Index.replace_with = timed  # type: ignore[method-assign]
    t0 = time.perf_counter()
    indexer.index_vault(vault, rt.index, emb, rt.config.index, rebuild=True)
    total = time.perf_counter() - t0
    size = (root / "index.sqlite").stat().st_size / 1e6
    print(f"{a.notes} notes, {rt.index.counts()[1]} chunks, index {size:.1f} MB: rebuild {total:.2f} s, "
          f"copy {took[0]:.3f} s; copy / rebuild = {took[0] / total:.4f}")


if __name__ == "__main__":
    main()
