"""Shared bench helpers: the default embedder and a vault subset, loaded once."""

from __future__ import annotations

import atexit
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

EVAL = Path(__file__).resolve().parents[2] / "shared" / "eval"

# The warm-search queries the latency benches share: a paraphrase, keywords,
# and an exclusion (which adds the negative-id scan).
QUERIES = [
    "how do I keep my notes in sync between my phone and my computer",
    "keyboard shortcut for a command",
    "embed a YouTube video",
    "canvas -sync",
]


def default_embedder():
    from groove.models.registry import load_embedder

    return load_embedder(None)


def vault_subset(src: Path, dst: Path, n: int | None) -> Path:
    """Copy the first n notes (sorted) of src into dst; n=None copies all."""
    if dst.exists():
        shutil.rmtree(dst)
    files = sorted(p for p in src.rglob("*.md"))
    for p in files[:n] if n else files:
        t = dst / p.relative_to(src)
        t.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, t)
    return dst


def timed(fn: Callable[[], object], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def median(xs: list[float]) -> float:
    return statistics.median(xs)


def scratch_dir(prefix: str) -> Path:
    """A temp folder removed when the bench ends: an index at 100k chunks is ~0.8 GB."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path
