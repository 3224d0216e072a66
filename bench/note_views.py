"""The note leg alone: how well each way of embedding a note's summary ranks
the answer notes (ADR 0077, ADR 0128).

    python bench/note_views.py [GOLDEN ...]

Parses every note of the en and ja eval vaults, embeds its summary
(``store.note_text``) several ways with the default model, ranks notes by
cosine to each golden query and prints MRR@10 / Hit@5 per view. No index is
touched, so views can be compared without re-indexing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder  # noqa: E402

GOLDEN = [EVAL / "golden-dev.jsonl", Path(__file__).parent / "golden" / "golden-extra.jsonl",
          Path(__file__).parent / "golden" / "golden-holdout.jsonl",
          Path(__file__).parent / "golden" / "golden-fresh.jsonl"]


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def _first(emb, note) -> np.ndarray:
    from groove.storage import store

    ch = note.chunks[0]
    return emb.embed_passages([store.embed_text(ch.context, ch.content)])[0]


def views(emb, notes) -> dict[str, np.ndarray]:
    from groove.storage import store

    summ = [store.note_text(n) for n in notes]
    folder = [str(Path(n.path).parent).replace("/", " > ") + " > " + s for n, s in zip(notes, summ)]
    p = emb.embed_passages(summ)
    q = emb.embed_queries(summ)
    return {
        "passage (ADR 0128)": p,
        "query+first chunk (shipped)": store.note_vectors(emb, summ, np.stack([_first(emb, n) for n in notes])),
        "query": q,
        "folder+passage": emb.embed_passages(folder),
        "mean (ADR 0077)": _unit(p + q),
        "unnormalised sum": p + q,
    }


def main() -> None:
    from groove.query import parse_query
    from groove.vault.markdown import parse_note
    from groove.vault.scan import scan_vault

    golden = [Path(a) for a in sys.argv[1:]] or GOLDEN
    emb = default_embedder()
    for lang in ("en", "ja"):
        files, _ = scan_vault(EVAL / f"vault-{lang}")
        notes = [parse_note(f.path, f.abspath.read_bytes(), chunk_tokens=150, count_tokens=emb.count_tokens)
                 for f in files]
        notes = [n for n in notes if n.chunks]
        paths = [n.path for n in notes]
        vs = views(emb, notes)
        for g in golden:
            qs = [json.loads(line) for line in g.read_text(encoding="utf-8").splitlines() if line.strip()]
            qs = [q for q in qs if q.get("lang") == lang]
            if not qs:
                continue
            qv = np.stack([emb.embed_query(parse_query(q["query"]).embed_text) for q in qs])
            row = f"{g.stem[:14]:<15}{lang:<4}"
            for name, m in vs.items():
                sims = qv @ m.T
                rr, h5 = [], []
                for i, q in enumerate(qs):
                    order = [paths[j] for j in np.argsort(-sims[i])]
                    r = min((order.index(e) + 1 for e in q["expected"] if e in order), default=999)
                    rr.append(1 / r if r <= 10 else 0.0)
                    h5.append(r <= 5)
                row += f"  {name} {np.mean(rr):.3f}/{np.mean(h5):.2f}"
            print(row)


if __name__ == "__main__":
    main()
