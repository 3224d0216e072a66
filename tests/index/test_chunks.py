"""Chunk lookups the fusion leans on: a note's first chunk that is not excluded."""

from __future__ import annotations

import shutil
from pathlib import Path

from groove import operations
from groove.storage import chunks
from helpers import make_runtime

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "vault-small"


def test_a_notes_first_chunk_skips_excluded_ones_in_file_order(tmp_path, tiny_embedder):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURE, vault)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    idx = rt.index
    by_doc: dict[int, list[int]] = {}
    for doc_id, cid in idx.conn.execute("SELECT doc_id, id FROM chunks ORDER BY doc_id, ordinal"):
        by_doc.setdefault(doc_id, []).append(cid)
    multi = [d for d, ids in by_doc.items() if len(ids) >= 3]
    assert multi, "the fixture vault needs a note with three chunks"
    d = multi[0]
    docs = list(by_doc)
    assert chunks.first_chunks(idx, docs, set()) == {doc: ids[0] for doc, ids in by_doc.items()}
    assert chunks.first_chunks(idx, [d], {by_doc[d][0]})[d] == by_doc[d][1]
    assert chunks.first_chunks(idx, [d], {by_doc[d][0], by_doc[d][1]})[d] == by_doc[d][2]
    assert d not in chunks.first_chunks(idx, [d], set(by_doc[d]))
    # many excluded ids elsewhere change nothing for this note
    others = {c for doc, ids in by_doc.items() if doc != d for c in ids}
    assert chunks.first_chunks(idx, [d], others) == {d: by_doc[d][0]}
    assert chunks.chunks_of_same_notes(idx, {by_doc[d][1]}) == set(by_doc[d])
