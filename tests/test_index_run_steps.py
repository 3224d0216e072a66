"""The indexer's steps called one by one, in process, with llama.cpp really
running on the tiny random BERT: plan_run -> read_note -> embed_batch ->
write_batch -> finish_run (issue 38: no step hidden in a closure)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from groove import indexer, operations
from groove.storage import store
from helpers import make_runtime


def write(vault: Path, rel: str, text: str | bytes) -> Path:
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return p


@pytest.fixture
def indexed(tmp_path, tiny_embedder):
    """A vault of three notes, indexed once."""
    vault = tmp_path / "vault"
    write(vault, "a.md", "# Alpha\n\nApples and pears.\n")
    write(vault, "b.md", "# Beta\n\nBananas are yellow.\n")
    write(vault, "sub/c.md", "# Gamma\n\nCherries and grapes.\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    return vault, rt


def plan(vault: Path, rt, *, only: set[str] | None = None, events: list | None = None) -> indexer.IndexRun:
    return indexer.plan_run(vault, rt.index, rt.embedder, rt.config.index, rebuild=False, only=only,
                            progress=events.append if events is not None else None)


def bump_mtime(p: Path) -> None:
    st = p.stat()
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def test_plan_lists_only_files_whose_stat_moved_and_the_notes_gone(indexed):
    vault, rt = indexed
    write(vault, "a.md", "# Alpha\n\nApples, pears and plums now.\n")
    bump_mtime(vault / "a.md")
    (vault / "b.md").unlink()
    events: list[dict] = []
    run = plan(vault, rt, events=events)
    assert [f.path for f in run.todo] == ["a.md"]
    assert set(run.gone) == {"b.md"}
    assert run.summary.unchanged == 1  # sub/c.md, by its stat alone
    assert events == [{"phase": "scan", "done": 0, "total": 1}]


def test_a_partial_plan_deletes_only_what_it_was_told_about(indexed):
    vault, rt = indexed
    (vault / "b.md").unlink()
    (vault / "sub/c.md").unlink()
    run = plan(vault, rt, only={"b.md"})
    assert set(run.gone) == {"b.md"}
    assert run.todo == []


def test_reading_a_changed_note_gives_it_parsed_with_the_stat_of_its_bytes(indexed):
    vault, rt = indexed
    p = write(vault, "a.md", "# Alpha\n\nApples, pears and plums now.\n")
    bump_mtime(p)
    run = plan(vault, rt)
    ready = indexer.read_note(run, run.todo[0])
    assert ready is not None
    assert ready.note.chunks and "plums" in ready.note.chunks[0].content
    assert (ready.nf.size, ready.nf.mtime_ns) == (p.stat().st_size, p.stat().st_mtime_ns)
    assert ready.content_hash != store.all_docs(rt.index)["a.md"].content_hash


def test_reading_a_touched_but_unchanged_note_refreshes_its_stat_and_needs_no_model(indexed):
    vault, rt = indexed
    bump_mtime(vault / "a.md")
    run = plan(vault, rt)
    assert indexer.read_note(run, run.todo[0]) is None
    assert run.summary.unchanged == 3
    assert store.all_docs(rt.index)["a.md"].mtime_ns == (vault / "a.md").stat().st_mtime_ns


def test_reading_a_renamed_note_moves_it_and_keeps_it_from_being_deleted(indexed):
    vault, rt = indexed
    (vault / "b.md").rename(vault / "sub/b2.md")
    run = plan(vault, rt)
    assert "b.md" in run.gone
    assert indexer.read_note(run, next(f for f in run.todo if f.path == "sub/b2.md")) is None
    assert run.summary.renamed == [("b.md", "sub/b2.md")]
    assert "b.md" not in run.gone
    assert set(store.all_docs(rt.index)) == {"a.md", "sub/b2.md", "sub/c.md"}


def test_reading_a_note_that_became_binary_skips_it_for_its_content_and_drops_it(indexed):
    vault, rt = indexed
    write(vault, "b.md", b"\x00\x01\x02binary" * 50)
    bump_mtime(vault / "b.md")
    run = plan(vault, rt)
    assert indexer.read_note(run, run.todo[0]) is None
    [row] = run.skip_rows
    assert row.path == "b.md" and row.sticky
    assert run.summary.deleted == ["b.md"]
    assert "b.md" not in store.all_docs(rt.index)


def test_embedding_a_batch_gives_a_vector_per_chunk_and_one_per_note_with_chunks(indexed):
    vault, rt = indexed
    write(vault, "long.md", "# Long\n\n" + "\n\n".join(f"## Part {i}\n\nWords about part {i}." for i in range(6)))
    write(vault, "empty.md", "")
    run = plan(vault, rt)
    batch = [r for nf in run.todo if (r := indexer.read_note(run, nf)) is not None]
    assert {r.nf.path for r in batch} == {"long.md", "empty.md"}
    vecs, note_vecs = indexer.embed_batch(rt.embedder, batch)
    chunks = sum(len(r.note.chunks) for r in batch)
    assert chunks > 1
    assert vecs is not None and vecs.shape == (chunks, rt.embedder.dim)
    assert note_vecs is not None and len(note_vecs) == sum(1 for r in batch if r.note.chunks)


def test_writing_then_finishing_stores_each_note_reports_progress_and_deletes_what_is_gone(indexed):
    vault, rt = indexed
    write(vault, "d.md", "# Delta\n\nDates and figs.\n")
    (vault / "sub/c.md").unlink()
    events: list[dict] = []
    run = plan(vault, rt, events=events)
    run.pending = [r for nf in run.todo if (r := indexer.read_note(run, nf)) is not None]
    indexer.flush_pending(run)
    assert run.pending == []
    assert run.summary.indexed == ["d.md"] and run.done == 1
    assert events[-1]["phase"] == "embed" and events[-1]["path"] == "d.md"
    assert "sub/c.md" in store.all_docs(rt.index), "nothing is deleted before the run finishes"
    summary = indexer.finish_run(run)
    assert summary.deleted == ["sub/c.md"]
    assert set(store.all_docs(rt.index)) == {"a.md", "b.md", "d.md"}
    assert events[-1] == {"phase": "done", "done": 1, "total": 1}
    assert rt.index.get_meta("last_indexed") is not None


class _FailsOn:
    """The real tiny model, failing on any batch with one note's text in it."""

    def __init__(self, real, word: str) -> None:
        self.real, self.word = real, word

    def __getattr__(self, name):
        return getattr(self.real, name)

    def embed_passages(self, texts):
        if any(self.word in t for t in texts):
            raise RuntimeError("llama_decode returned -1")
        return self.real.embed_passages(texts)


def test_a_note_that_cannot_be_embedded_still_counts_so_progress_reaches_the_total(indexed):
    vault, rt = indexed
    write(vault, "d.md", "# Delta\n\nDates and figs.\n")
    write(vault, "z.md", "# Zeta\n\nZucchini velmtastic.\n")  # last in the batch: its event is the last one
    events: list[dict] = []
    run = indexer.plan_run(vault, rt.index, _FailsOn(rt.embedder, "velmtastic"), rt.config.index, rebuild=False,
                           only=None, progress=events.append)
    run.pending = [r for nf in run.todo if (r := indexer.read_note(run, nf)) is not None]
    assert [r.nf.path for r in run.pending] == ["d.md", "z.md"]
    indexer.flush_pending(run)
    assert run.summary.indexed == ["d.md"] and [s.path for s in run.summary.skipped] == ["z.md"]
    assert run.done == 2
    last = events[-1]
    assert last["phase"] == "embed" and last["done"] == last["total"] == 2 and last["path"] == "z.md"
