"""Helpers for the stage tests (rerank, MMR, parent, spans, pool sizes, bit-identity).

``small_rt``: a real index (apsw + sqlite-vec) of tests/fixtures/vault-small,
embedded with the tiny llama.cpp BERT from conftest, built once per module.
Tests that need other knobs take ``with_search(rt, ...)``: a Runtime sharing
the same index and embedder with a different ``[search]`` config.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from groove.config import Config, MMRConfig, ParentRetrieverConfig, SearchConfig
from groove.indexer import index_vault
from groove.runtime import Runtime, open_runtime
from groove.wire.search import SearchHit

VAULT_SMALL = Path(__file__).resolve().parent / "fixtures" / "vault-small"


def indexed_runtime(vault: Path, embedder: Any, index_path: Path, config: Config | None = None) -> Runtime:
    """A Runtime on ``vault`` with ``embedder`` already loaded and the index built."""
    rt = open_runtime(vault, index_path=index_path, config=config or Config())
    rt._embedder = embedder
    index_vault(rt.vault, rt.index, embedder, rt.config.index)
    return rt


def with_search(rt: Runtime, *, mmr: dict | None = None, parent: dict | None = None, **search: Any) -> Runtime:
    """The same index and models, another ``[search]`` table (``mmr``/``parent``: sub-table overrides)."""
    s = dataclasses.replace(rt.config.search, **search)
    if mmr is not None:
        s = dataclasses.replace(s, mmr=dataclasses.replace(s.mmr, **mmr))
    if parent is not None:
        s = dataclasses.replace(s, parent_retriever=dataclasses.replace(s.parent_retriever, **parent))
    return dataclasses.replace(rt, config=dataclasses.replace(rt.config, search=s))


def chunk_hit(rt: Runtime, path: str, heading: str, *, rank: int = 1, score: float = 0.5) -> SearchHit:
    """A SearchHit for the chunk of ``path`` whose own heading is ``heading``, as stage 1 would build it."""
    row = rt.index.conn.execute(
        "SELECT c.id, d.title, c.heading_path, c.level, c.content, c.byte_start, c.byte_end, c.line_start, "
        "c.line_end FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = ? AND c.heading = ?",
        (path, heading),
    ).fetchone()
    assert row, f"no chunk {heading!r} in {path}"
    cid, title, hp, level, content, bs, be, ls, le = row
    return SearchHit(
        path=path, title=title, heading_path=json.loads(hp), level=level, content=content, score=score,
        rank=rank, match_spans=[], answer_spans=[], expanded_from=[], byte_range=(bs, be), line_range=(ls, le),
        chunk_id=cid,
    )


def note_chunks(rt: Runtime, path: str) -> list[tuple[int, str, int | None]]:
    """(id, content, token_count) of every chunk of ``path``, in file order."""
    return list(
        rt.index.conn.execute(
            "SELECT c.id, c.content, c.token_count FROM chunks c JOIN documents d ON d.id = c.doc_id "
            "WHERE d.path = ? ORDER BY c.ordinal",
            (path,),
        )
    )


@pytest.fixture(scope="module")
def small_rt(tiny_embedder, tmp_path_factory) -> Runtime:
    rt = indexed_runtime(VAULT_SMALL, tiny_embedder, tmp_path_factory.mktemp("idx") / "index.sqlite")
    yield rt
    rt.close()


__all__ = [
    "VAULT_SMALL", "Config", "MMRConfig", "ParentRetrieverConfig", "SearchConfig", "chunk_hit",
    "indexed_runtime", "note_chunks", "small_rt", "with_search",
]
