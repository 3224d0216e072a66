"""Upgrade an index's note vectors in place (ADR-0077, ADR-0128, ADR-0142):
recipes 2 to 4 differ from the current one only in how note vectors are
made, so those are re-made from the notes on disk and the stored chunk
vectors instead of asking for a full ``--rebuild``. Called by the indexer
before an incremental run."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .config import IndexConfig
from .models.base import Embedder
from .storage import store
from .storage.db import Index
from .vault.reader import parse_file
from .vault.scan import read_regular_file

NOTES_PER_BATCH = 32  # notes whose vectors are made in one embedding call


def upgrade_note_vectors(vault: Path, idx: Index, embedder: Embedder, cfg: IndexConfig,
                         emit: Callable[[dict], None] | None = None) -> int:
    """Recipes 2 to 4 differ from this one only in how note vectors are made
    (ADR-0077, ADR-0128, ADR-0142): re-make those from the notes on disk and
    the stored chunk vectors instead of asking for a full --rebuild.

    Returns the number of notes upgraded. Idempotent: the recipe is raised
    only after every note is done, so a killed upgrade starts over. A note
    that cannot be read keeps its old vector until the main pass re-indexes
    or deletes it."""
    info = idx.embedder_info()
    if (info is None or int(info.get("recipe", 1)) not in store.NOTE_VECTOR_ONLY_RECIPES
            or info.get("model_id") != embedder.model_id or int(info.get("dim", -1)) != embedder.dim
            or idx.get_meta("chunk_tokens") != str(cfg.chunk_tokens) or not idx.has_vec_table()):
        return 0  # nothing to upgrade, or a mismatch prepare_embedder reports
    docs = list(idx.conn.execute("SELECT id, path FROM documents ORDER BY id"))
    done = 0
    for start in range(0, len(docs), NOTES_PER_BATCH):
        ids, texts, firsts = [], [], []
        for doc_id, path in docs[start:start + NOTES_PER_BATCH]:
            data, _, _ = read_regular_file(vault / path, cfg.max_file_bytes)
            if data is None:
                continue
            try:
                note = parse_file(path, data, chunk_tokens=cfg.chunk_tokens, count_tokens=embedder.count_tokens)
            except Exception:  # noqa: BLE001 - the main pass reports it
                continue
            first = store.first_chunk_vector(idx, doc_id)
            if note.chunks and first is not None:
                ids.append(doc_id)
                texts.append(store.note_text(note))
                firsts.append(first)
        vecs: Any = store.note_vectors(embedder, texts, np.array(firsts)) if texts else []
        with idx.atomic() as c:
            for doc_id, v in zip(ids, vecs):
                c.execute("DELETE FROM vec_notes WHERE rowid = ?", (doc_id,))
                c.execute("INSERT INTO vec_notes(rowid, embedding) VALUES (?, ?)",
                          (doc_id, np.ascontiguousarray(v, dtype=np.float32).tobytes()))
        done += len(ids)
        if emit:
            emit({"phase": "embed", "done": min(start + NOTES_PER_BATCH, len(docs)), "total": len(docs)})
    idx.set_meta("embedder", json.dumps({**info, "recipe": store.EMBED_RECIPE}))
    return done
