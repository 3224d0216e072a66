"""What a note of many tiny sections costs `groove index`, as a ratio to a
prose note of the same size (issue 50 R2: 100,000 "# hN" lines were 100,000
chunks, and stored nothing in 600 s).

    python bench/heading_note.py [--counts 10000,100000] [--model PATH]

For each count N, three one-note vaults are indexed side by side: N headings
and nothing else (``# h1`` ... ``# hN``), N headings each with one word of
text, and prose of the same size in paragraphs (``--kinds`` picks some).
Prints each one's chunks, wall and CPU seconds (the process's, all
threads: on a shared machine the fairer figure), and the ratio of each to
the prose note.
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


def index_one(root: Path, name: str, text: str, model: str | None) -> tuple[int, float, float, int]:
    from groove import operations
    from groove.runtime import open_runtime

    vault = root / name
    vault.mkdir()
    (vault / "note.md").write_text(text, encoding="utf-8")
    rt = open_runtime(vault, index_path=root / f"{name}.sqlite", model=model)
    rt.embedder.embed_passages(["warm up"])  # the model load is not the note's cost
    tokens = rt.embedder.count_tokens(text)  # what "its text costs" is made of
    t0, c0 = time.perf_counter(), time.process_time()
    summary = operations.reindex(rt)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    rt.close()
    assert len(summary.indexed) == 1, summary.skipped
    return summary.chunks_embedded, seconds, cpu, tokens


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="10000,100000")
    ap.add_argument("--model", default=None, help="embedding model (default: groove's default)")
    ap.add_argument("--kinds", default="headings,headings+word", help="the notes beside the prose one")
    args = ap.parse_args()
    root = scratch_dir("groove-heading-note-")
    for n in (int(c) for c in args.counts.split(",")):
        make = {"headings": headings, "headings+word": headings_with_a_word}
        notes = {k: make[k](n) for k in args.kinds.split(",")}
        notes["prose"] = prose(max(len(t) for t in notes.values()))
        got = {k: index_one(root, f"{k}-{n}", t, args.model) for k, t in notes.items()}
        _, base, base_cpu, base_tokens = got["prose"]
        for k, (chunks, s, cpu, tokens) in got.items():
            per_token = (cpu / tokens) / (base_cpu / base_tokens)
            print(f"{n:>7} {k:<14} {len(notes[k].encode()) / 1000:>7.0f} KB {tokens:>8} tokens {chunks:>6} chunks "
                  f"{s:>7.1f}s (cpu {cpu:.1f}s)  ratio to prose {s / base:.2f}x wall, {cpu / base_cpu:.2f}x cpu, "
                  f"{per_token:.2f}x cpu per token", flush=True)


if __name__ == "__main__":
    main()
