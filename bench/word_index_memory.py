"""The word index's size and build cost in a Japanese vault, side by side
with an English one of the same number of chunks (ADR 0132, 0141).

    python bench/word_index_memory.py [--chunks 100000]

`bench/scale.py` draws its sentences from the help vaults, so its clauses
repeat and its word index stays small. A real vault rarely repeats a
clause. Here each language gets notes of the same shape as scale.py's,
from sentences that are new every time: each Japanese sentence splices
pieces of real clauses of the Japanese help at random points, each English
one random words of the English help, so the trigrams are real and the
clauses and word sequences are not. Vectors are random (they play no part
in the word index).

For each language it builds the index in a fresh process and prints the
chunks, the word index's size (`nbytes`), the build's seconds and the
build's peak RSS above the process before it, then the Japanese/English
ratios.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, scratch_dir  # noqa: E402

DIM = 384
_CLAUSE_END = re.compile(r"(?<=[、。「」（）・：])")


class _RandomVectors:
    def __init__(self, seed: int) -> None:
        import numpy as np

        self.rng = np.random.default_rng(seed)

    def draw(self, n: int):
        import numpy as np

        x = self.rng.standard_normal((n, DIM))
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


class _NewSentences:
    """A list-like pool whose every draw is a sentence made anew."""

    def __init__(self, lang: str, rng: random.Random) -> None:
        from scale import sentences

        self.rng = rng
        self.lang = lang
        real = sentences(EVAL / f"vault-{lang}")
        if lang == "ja":
            self.pieces = [c for s in real for c in _CLAUSE_END.split(s) if len(c) >= 4]
        else:
            self.pieces = [w for s in real for w in s.split()]

    def __len__(self) -> int:
        return 1 << 30

    def __getitem__(self, _: int) -> str:
        r = self.rng
        if self.lang == "en":
            return " ".join(r.choice(self.pieces) for _ in range(r.randint(8, 24))) + "."
        out = []
        for _ in range(r.randint(2, 5)):
            a, b = r.choice(self.pieces), r.choice(self.pieces)
            out.append(a[: r.randint(1, len(a) - 1)] + b[r.randint(1, len(b) - 1):])
        return "".join(out) + "。"


def _vm_kb(key: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def _build_one(path: str) -> None:
    """In a fresh process: build the word index of ``path`` once, print JSON."""
    from groove.index import word_index
    from groove.index.db import Index

    idx = Index(Path(path))
    idx.conn.execute("SELECT count(*) FROM fts_chunks").fetchone()
    before = _vm_kb("VmRSS")
    t = time.perf_counter()
    wp = word_index.build(idx.conn)
    took = time.perf_counter() - t
    assert wp is not None, "the index is under the word index's threshold"
    print(json.dumps({"rows": len(wp.rowids), "words": len(wp.starts) - 1, "grams": len(wp.grams),
                      "mb": wp.nbytes / 1e6, "seconds": took, "peak_mb": (_vm_kb("VmHWM") - before) / 1024}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--build-one", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.build_one:
        _build_one(a.build_one)
        return
    if not (EVAL / "vault-ja").is_dir():
        raise SystemExit(f"needs the eval vaults ({EVAL})")

    from groove.config import IndexConfig
    from groove.index import schema
    from groove.index.db import Index
    from scale import build

    tmp = scratch_dir("groove-words-")
    got = {}
    for lang in ("en", "ja"):
        idx = Index(tmp / f"{lang}.sqlite")
        with idx.atomic() as c:
            schema.create_vec_table(c, DIM)
        t = time.perf_counter()
        n = build(idx, _NewSentences(lang, random.Random(5)), random.Random(7), _RandomVectors(7), 0, a.chunks,
                  IndexConfig().chunk_tokens)
        idx.close()
        r = subprocess.run([sys.executable, __file__, "--build-one", str(tmp / f"{lang}.sqlite")],
                           capture_output=True, text=True, check=True)
        got[lang] = json.loads(r.stdout.strip().splitlines()[-1])
        g = got[lang]
        print(f"{lang}: {n} chunks (written in {time.perf_counter() - t:.0f} s); word index {g['mb']:.1f} MB, "
              f"{g['words']} words, {g['grams']} trigrams; built in {g['seconds']:.1f} s, "
              f"peak {g['peak_mb']:.0f} MB above the process", flush=True)
    en, ja = got["en"], got["ja"]
    print(f"Japanese / English at {a.chunks} chunks: size {ja['mb'] / en['mb']:.2f} x, "
          f"build time {ja['seconds'] / en['seconds']:.2f} x, build peak {ja['peak_mb'] / max(en['peak_mb'], 1):.2f} x")


if __name__ == "__main__":
    main()
