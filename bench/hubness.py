"""Hubness of a vault's vectors, and what the remedies of issue 49 do to it.

    python bench/hubness.py --index-dir DIR [--vault NAME=LANG ...] [--k 10]

For each vault index ``DIR/NAME.sqlite`` (defaults: en, ja, zh, ko help
vaults; ``vaultofknowledge`` and ``daily`` when present), every query of the
project's non-blind sets in that language (``golden-*``, ``no-answer-*`` and
the dev sets; never the blind sets) is embedded once and the top k notes
are taken two ways: by the note leg (a note's summary vector) and by the
chunk leg (a note's best chunk). N_k(x) counts the queries that put note x
in their top k without naming it (x not in their expected or partial
notes): a hub is a note that turns up for questions it does not answer.
Printed per vault and remedy (``index/space.py``): the skewness of N_k
(0 for a symmetric spread; hubness shows as a long right tail), its
maximum, the share of notes never retrieved, the share of top-k places the
1% most retrieved notes take, and the three biggest hubs.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402

GOLDEN = Path(__file__).parent / "golden"
VARIANTS = {
    "plain": {},
    "centre": {"centre": True},
    "csls": {"csls": True},
    "centre+csls": {"centre": True, "csls": True},
    "section .5": {"section_weight": 0.5},
    "centre 2 means": {"centre": True},  # the question side centred by its own mean (below)
}


def query_sets(lang: str, include_daily: bool) -> list[tuple[str, set[str]]]:
    """(query, the notes it names) of every non-blind set in ``lang``."""
    files = sorted(GOLDEN.glob("golden-*.jsonl")) + sorted(GOLDEN.glob("no-answer*.jsonl"))
    files += sorted(EVAL.glob("golden-dev*.jsonl"))
    if include_daily:
        files.append(GOLDEN / "daily-answerable.jsonl")
    out: dict[str, set[str]] = {}
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            g = json.loads(line)
            if g.get("lang") != lang or g.get("vault"):
                continue
            named = set(g.get("expected", [])) | set(g.get("partial", []))
            out.setdefault(g["query"], set()).update(named)
    return list(out.items())


def skew(x: np.ndarray) -> float:
    sd = x.std()
    return float(((x - x.mean()) ** 3).mean() / sd ** 3) if sd > 0 else 0.0


def top_notes(scored, k: int, by_chunk: bool) -> np.ndarray:
    if not by_chunk:
        return scored.note_ids[np.argsort(-scored.note_scores, kind="stable")[:k]]
    order = np.argsort(-scored.chunk_scores, kind="stable")
    seen: list[int] = []
    for d in scored.chunk_docs[order]:
        if d not in seen:
            seen.append(int(d))
            if len(seen) == k:
                break
    return np.asarray(seen)


def measure(index: Path, lang: str, k: int, embed, include_daily: bool) -> None:
    from groove.index.space import Levers, score, space_of
    from groove.storage.db import Index

    idx = Index(index, create=False)
    space = space_of(idx)
    paths = dict(idx.conn.execute("SELECT id, path FROM documents"))
    queries = query_sets(lang, include_daily)
    qv = [(embed(q), named) for q, named in queries]
    # The question side's own mean, from the vault's titles asked as
    # questions (no question of a set is used): e5 puts questions and
    # passages in different regions, so a passage mean misplaces a question.
    titles = [t for (t,) in idx.conn.execute("SELECT title FROM documents")]
    q_mean = np.mean([embed(t) for t in titles], axis=0)
    notes = space.notes.rowids
    at = {int(d): i for i, d in enumerate(notes)}
    print(f"\n== {index.stem}: {len(notes)} notes, {len(space.chunks.rowids)} chunks, {len(queries)} queries ({lang})")
    print(f"{'remedy':<14}{'leg':<7}{'skew':>7}{'max':>6}{'N=0':>7}{'top1%':>7}  biggest hubs (N_k)")
    for name, kw in VARIANTS.items():
        lv = Levers(**kw)
        two = name == "centre 2 means"
        for leg in ("note", "chunk"):
            counts = np.zeros(len(notes))
            for v, named in qv:
                # cos(q - mu_q, x - mu_x): the space adds back its own mean before subtracting it
                mean = space.chunks.view(True, False)[1] if leg == "chunk" else space.notes.view(True, False)[1]
                v2 = v - q_mean + mean if two else v
                for d in top_notes(score(space, v2, lv), k, leg == "chunk"):
                    if paths.get(int(d)) not in named:
                        counts[at[int(d)]] += 1
            top = np.argsort(-counts, kind="stable")
            one = max(1, len(notes) // 100)
            share = counts[top[:one]].sum() / max(counts.sum(), 1)
            hubs = ", ".join(f"{paths[int(notes[i])]} ({int(counts[i])})" for i in top[:3])
            print(f"{name:<14}{leg:<7}{skew(counts):>7.2f}{int(counts.max()):>6}"
                  f"{(counts == 0).mean():>7.2f}{share:>7.2f}  {hubs}")
    idx.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index-dir", type=Path, required=True)
    ap.add_argument("--vault", action="append", default=[],
                    help="NAME=LANG: DIR/NAME.sqlite queried in LANG (default: the four help vaults, "
                         "vaultofknowledge and daily in en when their index exists)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--remedies", default=",".join(VARIANTS), help="which rows, comma-separated")
    a = ap.parse_args()
    for name in [n for n in VARIANTS if n not in a.remedies.split(",")]:
        del VARIANTS[name]
    from _common import default_embedder

    emb = default_embedder()
    pairs = [v.split("=") for v in a.vault] or [
        [n, n] for n in ("en", "ja", "zh", "ko")] + [["vaultofknowledge", "en"], ["daily", "en"]]
    for name, lang in pairs:
        path = a.index_dir / f"{name}.sqlite"
        if path.exists():
            measure(path, lang, a.k, lambda q: np.asarray(emb.embed_query(q), dtype=np.float32),
                    include_daily=name == "daily")


if __name__ == "__main__":
    main()
