"""How much of a vault is template boilerplate, at several thresholds (ADR 0210).

    python bench/boilerplate.py VAULT [VAULT ...] [--shares 0.05,0.1,0.2,0.3,0.5] [--top 15]

For each vault: its notes' line census as ``index/boilerplate.py`` keeps it
(distinct normalised lines per note), the most shared lines with the share
of notes that hold them, and per threshold share: how many lines are
common, how many chunks lose a line, and how many chunks would get no
vector at all (scaffold only). Chunks are cut by ``parse_note`` with the
default budget and groove's token estimate (the model's own count moves a
few boundaries, not the census). No index is written.

``--embed N`` also times the default model embedding the chunk texts of the
first N notes as written and as the default threshold leaves them,
alternately (``--repeat`` rounds), and prints the ratio of the medians: what
suppression saves of a full index's embedding work.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

from groove.index.boilerplate import Boilerplate, content_keys, line_key, threshold  # noqa: E402
from groove.vault.markdown import parse_note  # noqa: E402


def census(vault: Path) -> tuple[list, Counter, dict[int, str]]:
    notes, counts, example = [], Counter(), {}
    for p in sorted(vault.rglob("*.md")):
        if any(part.startswith(".") for part in p.relative_to(vault).parts):
            continue
        note = parse_note(p.relative_to(vault).as_posix(), p.read_bytes(), chunk_tokens=150)
        keys = content_keys(ch.content for ch in note.chunks)
        counts.update(keys)
        for ch in note.chunks:
            for line in ch.content.split("\n"):
                k = line_key(line)
                if k is not None:
                    example.setdefault(k, line.strip())
        notes.append(note)
    return notes, counts, example


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("vaults", nargs="+", type=Path)
    ap.add_argument("--shares", default="0.05,0.1,0.2,0.3,0.5")
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--embed", type=int, default=0, help="time embedding the first N notes' chunks, off vs on")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    for vault in a.vaults:
        notes, counts, example = census(vault)
        n = len(notes)
        chunks = sum(len(x.chunks) for x in notes)
        print(f"\n{vault.name}: {n} notes, {chunks} chunks, {len(counts)} distinct lines")
        for k, c in counts.most_common(a.top):
            print(f"  {c:5d} notes ({c / n:6.1%})  {example[k][:70]!r}")
        print(f"  {'share':>6} {'needs':>6} {'common lines':>13} {'chunks touched':>15} {'chunks unembedded':>18}")
        for share in (float(s) for s in a.shares.split(",")):
            t = threshold(share, n)
            bp = Boilerplate(frozenset(k for k, c in counts.items() if c >= t))
            touched = sum(1 for x in notes for ch in x.chunks if bp.embedded(ch.content) != ch.content)
            gone = sum(1 for x in notes for ch in x.chunks if bp.embedded(ch.content) is None)
            print(f"  {share:6.2f} {t:6d} {len(bp.common):13d} {touched:15d} {gone:18d}")
        if a.embed:
            _time_embedding(notes[:a.embed], counts, n, a.repeat)


def _time_embedding(notes: list, counts: Counter, n: int, repeat: int) -> None:
    from groove.config import IndexConfig
    from groove.models.registry import load_embedder
    from groove.storage.store import embed_text

    emb = load_embedder(None)
    bp = Boilerplate(frozenset(k for k, c in counts.items() if c >= threshold(IndexConfig().boilerplate_share, n)))
    off = [embed_text(ch.context, ch.content) for x in notes for ch in x.chunks]
    on = [embed_text(ch.context, ch.content) for x in notes for ch in bp.view(x).chunks]
    took: dict[str, list[float]] = {"off": [], "on": []}
    for _ in range(repeat):
        for name, texts in (("off", off), ("on", on)):
            t = time.perf_counter()
            for i in range(0, len(texts), 32):
                emb.embed_passages(texts[i:i + 32])
            took[name].append(time.perf_counter() - t)
    m_off, m_on = statistics.median(took["off"]), statistics.median(took["on"])
    print(f"  embedding {len(notes)} notes: {len(off)} chunks as written, {len(on)} with boilerplate left out; "
          f"on/off time {m_on / m_off:.2f}x (median of {repeat}, alternated)")


if __name__ == "__main__":
    main()
