"""Incremental reindex of one edited note in a big vault, against embedding
that note alone (issue 16: goal <= 2x).

    python bench/incremental.py [--notes 5000] [--repeat 5] [--note-bytes 2000-6000]

Builds a vault of N notes (sentences drawn, seeded, from the eval vaults, as
bench/scale.py does) and indexes it once with random unit vectors in place
of the model's (embedding 5,000 notes for real takes most of an hour here;
the index is otherwise exactly what `groove index` writes: same model id,
dimensions and recipe, so nothing is re-embedded later). Then, with the real
default model, each round edits one real note and times, side by side:

- ``groove index`` as the CLI runs it: scan every file, re-embed the edited note;
- the watcher's run (``only`` = that note, what the daemon does on a save);
- embedding that note alone: its chunks and its note vector, the texts the
  indexer embeds for it.

Prints the p50 of each and the two ratios against the embedding alone.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder, median  # noqa: E402
from scale import sentences  # noqa: E402


class RandomVectors:
    """The default model's identity with random unit vectors: builds the big
    index fast. Token counts (which decide the chunking) are the model's own."""

    def __init__(self, real) -> None:
        self.real = real
        for a in ("model_id", "model_path", "dim", "max_tokens", "query_prefix", "passage_prefix"):
            setattr(self, a, getattr(real, a))
        self.rng = np.random.default_rng(5)

    def _unit(self, n: int) -> np.ndarray:
        v = self.rng.standard_normal((n, self.dim)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    def embed_passages(self, texts) -> np.ndarray:
        return self._unit(len(texts))

    def embed_queries(self, texts) -> np.ndarray:
        return self._unit(len(texts))

    def embed_query(self, text: str) -> np.ndarray:
        return self._unit(1)[0]

    def count_tokens(self, text: str) -> int:
        return self.real.count_tokens(text)


def write_vault(root: Path, n: int, pool: list[str], target: Path) -> Path:
    rng = random.Random(11)
    for i in range(n - 1):
        parts = [f"# Note {i}\n"]
        for _ in range(rng.randint(2, 8)):
            body = " ".join(rng.choice(pool) for _ in range(rng.randint(4, 20)))
            parts.append(f"## {rng.choice(pool)[:40]}\n\n{body}")
        p = root / f"folder{i // 250:02d}" / f"note-{i:05d}.md"
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    shutil.copy2(target, root / "edited.md")
    return root / "edited.md"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--note-bytes", default="2000-6000", help="size range of the real note that is edited")
    a = ap.parse_args()
    from groove import operations
    from groove.indexer import index_vault
    from groove.runtime import open_runtime
    from groove.storage.store import embed_text, note_text, note_vectors
    from groove.vault.markdown import parse_note

    src = [EVAL / "vault-en", EVAL / "vault-ja"]
    if not all(p.is_dir() for p in src):
        src = [Path(__file__).resolve().parents[1] / "backend" / "groove" / "sample_vault"]
    pool = [s for p in src for s in sentences(p)]
    lo, hi = (int(x) for x in a.note_bytes.split("-"))
    target = next(p for p in sorted(src[0].rglob("*.md")) if lo < p.stat().st_size < hi)

    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("GROOVE_HOME", tmp)
        vault = Path(tmp) / "vault"
        edited = write_vault(vault, a.notes, pool, target)
        real = default_embedder()
        rt = open_runtime(vault, index_path=Path(tmp) / "index.sqlite")
        rt._embedder = RandomVectors(real)
        t0 = time.perf_counter()
        s = operations.reindex(rt)
        docs, chunks = rt.index.counts()
        print(f"{docs} notes, {chunks} chunks indexed with random vectors in {time.perf_counter() - t0:.0f} s; "
              f"edited note: {target.name} ({target.stat().st_size} bytes)")
        assert not s.skipped, s.skipped[:3]
        rt._embedder = real
        cfg = rt.config.index

        def edit(i: int) -> None:
            with open(edited, "a", encoding="utf-8") as f:
                f.write(f"\nOne more line, edit {i}.\n")

        def embed_alone() -> None:
            note = parse_note("edited.md", edited.read_bytes(), chunk_tokens=cfg.chunk_tokens,
                              count_tokens=real.count_tokens)
            vecs = real.embed_passages([embed_text(c.context, c.content) for c in note.chunks])
            note_vectors(real, [note_text(note)], vecs[:1])

        full, only, alone = [], [], []
        for i in range(a.repeat):
            for label, fn, acc in [
                ("groove index", lambda: operations.reindex(rt), full),
                ("watcher", lambda: index_vault(vault, rt.index, real, cfg, only={"edited.md"}), only),
            ]:
                edit(i * 2 + len(acc))
                t = time.perf_counter()
                r = fn()
                acc.append(time.perf_counter() - t)
                assert r.indexed == ["edited.md"], (label, r.indexed)
            t = time.perf_counter()
            embed_alone()
            alone.append(time.perf_counter() - t)
        f, o, e = median(full) * 1000, median(only) * 1000, median(alone) * 1000
        print(f"embed the note alone  p50 {e:7.1f} ms")
        print(f"groove index (scan)   p50 {f:7.1f} ms  = {f / e:.2f} x the embedding")
        print(f"watcher (that note)   p50 {o:7.1f} ms  = {o / e:.2f} x the embedding")


if __name__ == "__main__":
    main()
