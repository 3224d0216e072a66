"""Sentence vectors stored in the index for answer_spans (ADR 0281): what an
idle daemon writes, that a search then reads them instead of embedding,
with the same marks, and that the rows follow the notes."""

from __future__ import annotations

import contextlib
import dataclasses
import shutil
import time
from collections.abc import Iterator

import numpy as np
import pytest

from groove import operations
from groove.cli.status import answer_vectors_line
from groove.config import Config, IndexConfig
from groove.daemon import index_worker as worker_mod
from groove.daemon.index_worker import IndexWorker
from groove.indexer import index_vault
from groove.pipeline import SearchParams, run_search
from groove.pipeline.answer_vectors import SentenceWarmer
from groove.pipeline.answers import CACHE, MAX_SENTENCES, sentences
from groove.storage.sentences import SentenceVectors, sentence_key
from stagekit import VAULT_SMALL, indexed_runtime


class Counting:
    """The real tiny embedder, counting the passages it is asked to embed."""

    def __init__(self, inner) -> None:  # noqa: ANN001
        self.inner = inner
        self.model_id = inner.model_id
        self.model_path = inner.model_path
        self.passages = 0

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        self.passages += len(texts)
        return self.inner.embed_passages(texts)

    def __getattr__(self, name: str):  # noqa: ANN204
        return getattr(self.inner, name)


@pytest.fixture()
def rt(tiny_embedder, tmp_path):  # noqa: ANN001, ANN201
    vault = tmp_path / "vault"
    shutil.copytree(VAULT_SMALL, vault)
    r = indexed_runtime(vault, Counting(tiny_embedder), tmp_path / "index.sqlite")
    yield r
    r.close()


def chunk_sentences(rt) -> set[str]:  # noqa: ANN001
    return {s.text for (c,) in rt.index.conn.execute("SELECT content FROM chunks")
            for s in sentences(c)[:MAX_SENTENCES]}


def stored_rows(rt) -> int:  # noqa: ANN001
    return rt.index.conn.execute("SELECT count(*) FROM sentence_vectors").fetchone()[0]


def test_a_warmed_index_marks_the_same_answers_without_embedding_a_sentence(rt):  # noqa: ANN001
    queries = ["keep notes in sync between phone and computer", "東京 ラーメン", "coffee grind"]
    CACHE.clear()
    fresh = [[h.answer_spans for h in run_search(rt, SearchParams(q)).results] for q in queries]
    assert any(any(spans) for spans in fresh)
    warmer = SentenceWarmer(rt.index, rt.embedder)
    while warmer.step():
        pass
    assert warmer.stored == len(chunk_sentences(rt)) == stored_rows(rt)
    assert not SentenceWarmer(rt.index, rt.embedder).step()  # a second plan finds nothing to do
    CACHE.clear()
    before = rt.embedder.passages
    stored = [[h.answer_spans for h in run_search(rt, SearchParams(q)).results] for q in queries]
    assert rt.embedder.passages == before  # every sentence came from the index
    assert stored == fresh


def test_rows_follow_the_notes_and_the_model(rt):  # noqa: ANN001
    warmer = SentenceWarmer(rt.index, rt.embedder)
    while warmer.step():
        pass
    note = next(rt.vault.rglob("*.md"))
    note.write_text("# Changed\n\nA sentence written just now about kettles. Another one about spoons.\n",
                    encoding="utf-8")
    index_vault(rt.vault, rt.index, rt.embedder, rt.config.index)
    warmer.invalidate()
    assert warmer.step()
    assert warmer.pending is not None and warmer.pending < 4  # only the new note's sentences were left
    while warmer.step():
        pass
    assert stored_rows(rt) == len(chunk_sentences(rt))  # the old note's sentences are gone
    other = SentenceVectors(rt.index, "another-model")
    key = sentence_key("A sentence written just now about kettles.")
    assert other.get([key]) == {}  # never another model's vectors
    other.put([(key, np.ones(rt.embedder.dim, dtype=np.float32) / np.sqrt(rt.embedder.dim))])
    assert stored_rows(rt) == 1  # the first write of another model drops the old model's rows
    assert SentenceVectors(rt.index, rt.embedder.model_id).get([key]) == {}


@contextlib.contextmanager
def idle_worker(rt, monkeypatch, *, on: bool, idle_s: float) -> Iterator[IndexWorker]:  # noqa: ANN001
    """A running IndexWorker on ``rt`` with ``[index] answer_vectors = on``,
    its idle work starting after ``idle_s``."""
    cfg = dataclasses.replace(Config(), index=dataclasses.replace(IndexConfig(), answer_vectors=on))
    monkeypatch.setattr(worker_mod, "ANSWER_VECTORS_IDLE_S", idle_s)
    worker = IndexWorker(dataclasses.replace(rt, config=cfg))
    worker.start()
    try:
        yield worker
    finally:
        worker.stop()


def test_an_idle_daemon_worker_stores_them_and_a_request_holds_it_back(rt, monkeypatch):  # noqa: ANN001
    with idle_worker(rt, monkeypatch, on=True, idle_s=1.0) as worker:
        deadline = time.monotonic() + 0.6
        while time.monotonic() < deadline:  # a client asking every 0.1 s keeps it quiet
            worker.touch()
            time.sleep(0.1)
        assert stored_rows(rt) == 0
        deadline = time.monotonic() + 60
        while stored_rows(rt) < len(chunk_sentences(rt)) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert stored_rows(rt) == len(chunk_sentences(rt))
        assert worker.answer_vectors_to_store() == 0
        assert operations.index_status(rt)["answer_vectors"] == {"stored": stored_rows(rt)}
        assert answer_vectors_line({"answer_vectors": {"stored": 1234, "to_store": 0}, "watching": True}) \
            == "  answer vectors: 1,234 sentences stored (all)"
        assert answer_vectors_line({"answer_vectors": {"stored": 10, "to_store": 90}, "watching": True}) \
            == "  answer vectors: 10 sentences stored, 90 to store while the daemon is idle"


def test_an_index_without_the_table_is_searched_as_before(rt):  # noqa: ANN001
    """A read-only file from before the table (ADR 0281: a cache's migration
    may be missing) is searched with its answers embedded per search."""
    rt.index.conn.execute("DROP TABLE sentence_vectors")
    CACHE.clear()
    hits = run_search(rt, SearchParams("keep notes in sync between phone and computer")).results
    assert any(h.answer_spans for h in hits)


def test_off_in_the_config_nothing_is_stored(rt, monkeypatch):  # noqa: ANN001
    with idle_worker(rt, monkeypatch, on=False, idle_s=0.0):
        time.sleep(1.0)
        assert stored_rows(rt) == 0
