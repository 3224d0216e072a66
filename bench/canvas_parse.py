"""Parsing a canvas vs parsing the same text as one Markdown note (ADR 0195).

    python bench/canvas_parse.py [--cards 2000] [--repeat 5]

Builds a canvas of ``--cards`` text cards (a heading, two paragraphs, a
wikilink, non-ASCII text each) written as Obsidian writes canvases, and a
note holding the same card texts one after another; parses each
``--repeat`` times, alternating, and prints the best canvas/Markdown time
ratio. Each card is chunked on its own (one mistletoe pass per card), so a
ratio of about 2 is expected; both are small next to embedding.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "backend"), str(ROOT / "tests")]

from groove.vault.canvas import parse_canvas  # noqa: E402
from groove.vault.markdown import parse_note  # noqa: E402
from helpers import canvas_node, obsidian_canvas  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cards", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    cards = [f"## Card {i}\nSome text about topic {i} with café and 日本語 words, and a [[Link {i}]].\n\n"
             f"A second paragraph {i}." for i in range(args.cards)]
    canvas = obsidian_canvas([canvas_node(f"n{i}", "text", (i % 40) * 300, (i // 40) * 200, text=t)
                              for i, t in enumerate(cards)]).encode()
    note = ("# Board\n\n" + "\n\n".join(cards) + "\n").encode()
    best_c = best_m = float("inf")
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        parse_canvas("Board.canvas", canvas)
        t1 = time.perf_counter()
        parse_note("Board.md", note)
        t2 = time.perf_counter()
        best_c, best_m = min(best_c, t1 - t0), min(best_m, t2 - t1)
    print(f"{args.cards} cards, canvas {len(canvas):,} bytes: canvas/Markdown parse time {best_c / best_m:.2f}x")


if __name__ == "__main__":
    main()
