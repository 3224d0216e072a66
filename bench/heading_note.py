"""What a note of many tiny sections costs `groove index`, as a ratio to a
prose note of the same size (issue 50 R2: 100,000 "# hN" lines were 100,000
chunks, and stored nothing in 600 s).

    python bench/heading_note.py [--counts 10000,100000] [--model PATH]

For each count N, three one-note vaults are indexed side by side: N headings
and nothing else (``# h1`` ... ``# hN``), N headings each with one word of
text, and prose of the same size in paragraphs. Prints each one's chunks and
seconds, and the ratio of each to the prose note.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import scratch_dir  # noqa: E402

WORDS = ("the river runs past the old mill and an apple orchard where we walk in the "
         "morning before work and talk about the garden plans for spring").split()


def headings(n: int) -> str:
    return "".join(f"# h{i}\n" for i in range(1, n + 1))


def headings_with_a_word(n: int) -> str:
    return "".join(f"# h{i}\n{WORDS[i % len(WORDS)]}\n" for i in range(1, n + 1))


def prose(size: int) -> str:
    rng = random.Random(50)
    out, n = [], 0
    while n < size:
        para = " ".join(rng.choice(WORDS) for _ in range(60)) + ".\n\n"
        out.append(para)
        n += len(para)
    return "".join(out)[:size]


def index_one(root: Path, name: str, text: str, model: str | None) -> tuple[int, float]:
    from groove import service
    from groove.runtime import open_runtime

    vault = root / name
    vault.mkdir()
    (vault / "note.md").write_text(text, encoding="utf-8")
    rt = open_runtime(vault, index_path=root / f"{name}.sqlite", model=model)
    rt.embedder.embed_passages(["warm up"])  # the model load is not the note's cost
    t0 = time.perf_counter()
    summary = service.reindex(rt)
    seconds = time.perf_counter() - t0
    rt.close()
    assert len(summary.indexed) == 1, summary.skipped
    return summary.chunks_embedded, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="10000,100000")
    ap.add_argument("--model", default=None, help="embedding model (default: groove's default)")
    args = ap.parse_args()
    root = scratch_dir("groove-heading-note-")
    for n in (int(c) for c in args.counts.split(",")):
        notes = {"headings": headings(n), "headings+word": headings_with_a_word(n)}
        notes["prose"] = prose(max(len(t) for t in notes.values()))
        got = {k: index_one(root, f"{k}-{n}", t, args.model) for k, t in notes.items()}
        base = got["prose"][1]
        for k, (chunks, s) in got.items():
            print(f"{n:>7} {k:<14} {len(notes[k].encode()) / 1000:>7.0f} KB {chunks:>6} chunks {s:>7.1f}s "
                  f"ratio to prose {s / base:.2f}x")


if __name__ == "__main__":
    main()
