"""The word index's size and build cost in a Japanese vault, side by side
with an English one of the same number of chunks (ADR 0132, 0141), and in
Chinese and Korean ones, whose bigram table is kept in memory too (ADR 0163).

    python bench/word_index_memory.py [--chunks 100000] [--langs en,ja,zh,ko]
    python bench/word_index_memory.py --index PATH   # an index bench/scale.py --keep kept

`bench/scale.py` draws its sentences from the help vaults, so its clauses
repeat and its word index stays small. A real vault rarely repeats a
clause. Here each language gets notes of the same shape as scale.py's,
from sentences that are new every time: each Japanese sentence splices
pieces of real clauses of the Japanese help at random points, each English
one random words of the English help, so the trigrams are real and the
clauses and word sequences are not. Vectors are random (they play no part
in the word index).

Chinese is made as Japanese is (pieces of its clauses spliced), Korean as
English (random words of its help, particles and all).

For each language it builds the index in a fresh process and prints the
chunks, the word index's size (`nbytes`, the bigram table's part apart), the
build's seconds and the build's peak RSS above the process before it, then
each language's ratios to English. ``--index`` measures one existing index
that way, with its bigram table and without (the word index alone).
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
_CLAUSE_END = re.compile(r"(?<=[、。「」（）・：，；？！])")


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
        if lang in ("ja", "zh"):
            self.pieces = [c for s in real for c in _CLAUSE_END.split(s) if len(c) >= 4]
        else:
            self.pieces = [w for s in real for w in s.split()]

    def __len__(self) -> int:
        return 1 << 30

    def __getitem__(self, _: int) -> str:
        r = self.rng
        if self.lang in ("en", "ko"):
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


def _build_one(path: str, words_only: bool = False) -> None:
    """In a fresh process: build the word index of ``path`` once, print JSON."""
    from groove.engines.lexical import word_index, word_postings
    from groove.storage.db import Index

    if words_only:
        word_postings.BIGRAM_MIN_ROWS = 1 << 62
    idx = Index(Path(path))
    idx.conn.execute("SELECT count(*) FROM fts_chunks").fetchone()
    before = _vm_kb("VmRSS")
    t = time.perf_counter()
    wp = word_index.build(idx.conn)
    took = time.perf_counter() - t
    assert wp is not None, "the index is under the word index's threshold"
    b = wp.bigrams
    print(json.dumps({"rows": len(wp.rowids), "words": len(wp.starts) - 1, "grams": len(wp.grams),
                      "mb": wp.nbytes / 1e6, "seconds": took, "peak_mb": (_vm_kb("VmHWM") - before) / 1024,
                      "bigram_mb": (b.nbytes - b.chunk_ids.nbytes - b.chunk_docs.nbytes) / 1e6 if b else 0.0}))


def _measure(path: Path, words_only: bool = False) -> dict:
    r = subprocess.run([sys.executable, __file__, "--build-one", str(path)] + (["--words-only"] * words_only),
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def _line(label: str, g: dict) -> str:
    part = f" (bigram table {g['bigram_mb']:.1f} MB)" if g["bigram_mb"] else ""
    return (f"{label}: word index {g['mb']:.1f} MB{part}, {g['words']} words, {g['grams']} trigrams; "
            f"built in {g['seconds']:.1f} s, peak {g['peak_mb']:.0f} MB above the process")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--langs", default="en,ja", help="comma-separated, among en, ja, zh, ko")
    ap.add_argument("--index", type=Path, help="measure this index alone, with and without its bigram table")
    ap.add_argument("--build-one", help=argparse.SUPPRESS)
    ap.add_argument("--words-only", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.build_one:
        _build_one(a.build_one, a.words_only)
        return
    if a.index is not None:
        for words_only in (True, False):
            print(_line("word index alone" if words_only else "with the bigram table", _measure(a.index, words_only)),
                  flush=True)
        return
    langs = a.langs.split(",")
    if not all((EVAL / f"vault-{lang}").is_dir() for lang in langs):
        raise SystemExit(f"needs the eval vaults ({EVAL})")

    from groove.config import IndexConfig
    from groove.storage import migrations
    from groove.storage.db import Index
    from scale import build

    tmp = scratch_dir("groove-words-")
    got = {}
    for lang in langs:
        idx = Index(tmp / f"{lang}.sqlite")
        with idx.atomic() as c:
            migrations.create_vec_tables(c, DIM)
        t = time.perf_counter()
        n = build(idx, _NewSentences(lang, random.Random(5)), random.Random(7), _RandomVectors(7), 0, a.chunks,
                  IndexConfig().chunk_tokens)
        idx.close()
        got[lang] = _measure(tmp / f"{lang}.sqlite")
        print(_line(f"{lang}: {n} chunks (written in {time.perf_counter() - t:.0f} s)", got[lang]), flush=True)
    if "en" in got:
        en = got["en"]
        for lang in [x for x in langs if x != "en"]:
            g = got[lang]
            print(f"{lang} / en at {a.chunks} chunks: size {g['mb'] / en['mb']:.2f} x, "
                  f"build time {g['seconds'] / en['seconds']:.2f} x, "
                  f"build peak {g['peak_mb'] / max(en['peak_mb'], 1):.2f} x")


if __name__ == "__main__":
    main()
