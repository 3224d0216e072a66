"""Ways of making a note's vector, each written into a copy of one index (issue 36).

    python bench/note_recipes.py --index-dir D --out O [--recipes passage,two-views,...]

``D`` holds ``en.sqlite`` and ``ja.sqlite`` built by ``bench/levers.py
--index-dir D``. For each recipe, ``O/<recipe>/<lang>.sqlite`` is a copy of
that index whose ``vec_notes`` alone is re-made: chunk vectors, full text and
everything else stay byte for byte, so ``bench/levers.py --index-dir
O/<recipe>`` compares only the note vectors. Prints the summary tokens each
recipe embeds, the cost that decides indexing throughput.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder  # noqa: E402


def _unit(m: np.ndarray) -> np.ndarray:
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def recipe_vectors(name: str, emb, summaries: list[str], first: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """The note vectors of recipe ``name``; ``first``/``mean``: each note's first
    chunk vector and the mean of its chunk vectors (free: already embedded)."""
    if name == "passage":  # recipe 4 (ADR 0128)
        return emb.embed_passages(summaries)
    if name == "two-views":  # recipe 3 (ADR 0077)
        return _unit(emb.embed_passages(summaries) + emb.embed_queries(summaries))
    if name == "query":
        return emb.embed_queries(summaries)
    if name == "query+first":
        return _unit(emb.embed_queries(summaries) + first)
    if name == "query+mean":
        return _unit(emb.embed_queries(summaries) + _unit(mean))
    if name.startswith("two-views@"):  # both views of the summary, its opening cut shorter
        return _unit(emb.embed_passages(summaries) + emb.embed_queries(summaries))
    raise SystemExit(f"unknown recipe {name!r}")


def _summary(note, opening: int) -> str:
    """``store.note_text`` with the opening cut at ``opening`` characters."""
    heads = list(dict.fromkeys(ch.heading_path[-1] for ch in note.chunks if ch.heading_path))[:12]
    parts = [note.title, *note.aliases, note.description, " / ".join(heads), note.chunks[0].content[:opening]]
    return "\n".join(p for p in parts if p)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index-dir", type=Path, required=True)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--recipes", default="passage,two-views,query,query+first,query+mean")
    a = ap.parse_args()
    from groove.config import IndexConfig
    from groove.storage import store
    from groove.storage.db import Index
    from groove.vault.markdown import parse_note

    emb = default_embedder()
    cfg = IndexConfig()
    names = a.recipes.split(",")
    cuts = {int(n.split("@")[1]) for n in names if "@" in n}
    if len(cuts) > 1:
        raise SystemExit("one opening cut per run")
    opening = cuts.pop() if cuts else None
    for lang in ("en", "ja"):
        src = a.index_dir / f"{lang}.sqlite"
        idx = Index(src, create=False)
        docs = list(idx.conn.execute("SELECT id, path FROM documents ORDER BY id"))
        ids, summaries, firsts, means = [], [], [], []
        for doc_id, path in docs:
            note = parse_note(path, (EVAL / f"vault-{lang}" / path).read_bytes(), chunk_tokens=cfg.chunk_tokens,
                              count_tokens=emb.count_tokens)
            if not note.chunks:
                continue
            rows = [np.frombuffer(b, dtype=np.float32) for (b,) in idx.conn.execute(
                "SELECT v.embedding FROM chunks c JOIN vec_chunks v ON v.rowid = c.id "
                "WHERE c.doc_id = ? ORDER BY c.ordinal", (doc_id,))]
            ids.append(doc_id)
            summaries.append(store.note_text(note) if opening is None else _summary(note, opening))
            firsts.append(rows[0])
            means.append(np.mean(rows, axis=0))
        idx.close()
        tokens = sum(emb.count_tokens(s) for s in summaries)
        chunk_tokens = None
        for name in names:
            dst = a.out / name
            dst.mkdir(parents=True, exist_ok=True)
            for suffix in ("", "-wal", "-shm"):
                if (src.parent / (src.name + suffix)).exists():
                    shutil.copy2(src.parent / (src.name + suffix), dst / (src.name + suffix))
            vecs = recipe_vectors(name, emb, summaries, np.stack(firsts), np.stack(means))
            out = Index(dst / src.name, create=False)
            with out.atomic() as c:
                for doc_id, v in zip(ids, vecs):
                    c.execute("DELETE FROM vec_notes WHERE rowid = ?", (doc_id,))
                    c.execute("INSERT INTO vec_notes(rowid, embedding) VALUES (?, ?)",
                              (doc_id, np.ascontiguousarray(v, dtype=np.float32).tobytes()))
            if chunk_tokens is None:
                chunk_tokens = sum(emb.count_tokens(store.embed_text(ctx, content))
                                   for ctx, content in out.conn.execute("SELECT context, content FROM chunks"))
            out.close()
            views = 2 if name.startswith("two-views") else 1
            print(f"{lang} {name:<12} notes {len(ids)}  summary tokens embedded {views * tokens} "
                  f"({views * tokens / chunk_tokens:.1%} of the chunks' {chunk_tokens})")


if __name__ == "__main__":
    main()
