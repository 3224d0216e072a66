"""Incremental indexing, renames, crash-resume and bad input, with llama.cpp
really running on the tiny random BERT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from groove import operations
from groove.errors import EmbedderMismatch, VaultError
from groove.runtime import open_runtime
from groove.storage import store
from groove.storage.store import note_text
from groove.vault.markdown import parse_note
from helpers import make_runtime, scaffold_only_chunks


def write(vault: Path, rel: str, text: str) -> Path:
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def chunk_rows(rt) -> dict[str, list[tuple[int, str]]]:
    out: dict[str, list[tuple[int, str]]] = {}
    for cid, path, content in rt.index.conn.execute(
        "SELECT c.id, d.path, c.content FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.id"
    ):
        out.setdefault(path, []).append((cid, content))
    return out


def assert_consistent(rt) -> None:
    c = rt.index.conn
    n = c.execute("SELECT count(*) FROM chunks").fetchone()[0]
    assert c.execute("SELECT count(*) FROM fts_chunks").fetchone()[0] == n
    orphans = c.execute("SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)").fetchone()[0]
    assert orphans == 0
    ids = {r[0] for r in c.execute("SELECT id FROM chunks")}
    # a vector for every chunk but the template-only ones (ADR 0210)
    scaffold = scaffold_only_chunks(c)
    assert {r[0] for r in c.execute("SELECT rowid FROM vec_chunks")} == ids - scaffold
    assert {r[0] for r in c.execute("SELECT rowid FROM fts_chunks")} == ids
    # one summary vector per note that has an embedded chunk (ADR-0076)
    with_chunks = {d for cid, d in c.execute("SELECT id, doc_id FROM chunks") if cid not in scaffold}
    assert {r[0] for r in c.execute("SELECT rowid FROM vec_notes")} == with_chunks


@pytest.fixture
def vault(tmp_path) -> Path:
    v = tmp_path / "vault"
    write(v, "a.md", "# Alpha\n\nThe first note about apples.\n\n## More\n\nApple pie.\n")
    write(v, "b.md", "# Beta\n\nBananas are yellow.\n")
    write(v, "sub/c.md", "# Gamma\n\nCherries and grapes.\n")
    return v


def test_second_run_reembeds_nothing(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    first = operations.reindex(rt)
    assert len(first.indexed) == 3
    again = operations.reindex(rt)
    assert again.indexed == [] and again.unchanged == 3 and again.chunks_embedded == 0
    assert_consistent(rt)


def test_editing_adding_and_deleting_touch_only_those_notes(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    before = chunk_rows(rt)
    write(vault, "a.md", "# Alpha\n\nThe first note about pears now.\n")
    write(vault, "d.md", "# Delta\n\nDates.\n")
    (vault / "b.md").unlink()
    s = operations.reindex(rt)
    assert sorted(s.indexed) == ["a.md", "d.md"] and s.deleted == ["b.md"]
    after = chunk_rows(rt)
    assert after["sub/c.md"] == before["sub/c.md"], "an untouched note's chunks changed"
    assert "b.md" not in after
    assert "pears" in after["a.md"][0][1]
    assert_consistent(rt)


def test_touching_a_file_without_changing_it_reembeds_nothing(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    os.utime(vault / "a.md", (time.time() + 10, time.time() + 10))
    s = operations.reindex(rt)
    assert s.indexed == [] and s.chunks_embedded == 0


def test_renamed_and_moved_notes_keep_their_vectors(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    before = chunk_rows(rt)
    (vault / "moved").mkdir()
    os.rename(vault / "sub/c.md", vault / "moved/c.md")
    os.rename(vault / "b.md", vault / "b-renamed.md")
    s = operations.reindex(rt)
    assert s.chunks_embedded == 0
    assert sorted(s.renamed) == [("b.md", "b-renamed.md"), ("sub/c.md", "moved/c.md")]
    after = chunk_rows(rt)
    assert after["moved/c.md"] == before["sub/c.md"]  # same chunk ids, same text
    assert "b.md" not in after and "sub/c.md" not in after
    title = rt.index.conn.execute("SELECT title FROM documents WHERE path = 'b-renamed.md'").fetchone()[0]
    assert title == "b-renamed"
    assert_consistent(rt)


def test_bad_files_are_skipped_with_reasons_and_the_rest_is_indexed(vault, tiny_embedder, tmp_path):
    from groove.config import Config, IndexConfig

    (vault / "binary.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    (vault / "huge.md").write_bytes(b"# Huge\n\n" + b"words " * 30_000)
    (vault / "badutf8.md").write_bytes(b"# Bad\n\nok \xff\xfe text\n")
    (vault / "badyaml.md").write_text("---\ntitle: [oops\n---\n# Body\n\nbody text\n")
    (vault / "empty.md").write_text("")
    os.symlink(vault / "missing-target.md", vault / "dangling.md")
    cfg = Config(index=IndexConfig(max_file_bytes=100_000))
    rt = make_runtime(vault, tiny_embedder, tmp_path, config=cfg)
    s = operations.reindex(rt)
    reasons = {sk.path: sk.reason for sk in s.skipped}
    assert "binary" in reasons["binary.md"]
    assert "too large" in reasons["huge.md"] and "max_file_bytes" in reasons["huge.md"]
    assert "dangling.md" in reasons
    warned = {p for p, _ in s.warnings}
    assert {"badutf8.md", "badyaml.md"} <= warned
    docs = {r[0] for r in rt.index.conn.execute("SELECT path FROM documents")}
    assert {"a.md", "b.md", "sub/c.md", "badutf8.md", "badyaml.md", "empty.md"} <= docs
    assert_consistent(rt)


def test_a_file_deleted_while_indexing_is_skipped(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)

    def on(ev):
        if ev["phase"] == "scan":
            (vault / "b.md").unlink()

    s = operations.reindex(rt, progress=on)
    assert {sk.path: sk.reason for sk in s.skipped}["b.md"] == "deleted while indexing"
    assert_consistent(rt)


def test_a_vault_that_does_not_exist_is_a_clear_error(tmp_path):
    with pytest.raises(VaultError, match="vault not found"):
        open_runtime(tmp_path / "no-such-vault")


def test_a_different_embedder_is_refused_not_mixed(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    rt.index.set_meta("embedder", '{"model_id": "other-model", "dim": 384, "file_hash": "x"}')
    with pytest.raises(EmbedderMismatch, match="--rebuild"):
        operations.reindex(rt)
    s = operations.reindex(rt, force=True)
    assert len(s.indexed) == 3
    assert_consistent(rt)


_KILLABLE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from groove.models.llama_embedder import LlamaEmbedder
    from groove.runtime import open_runtime
    from groove import operations
    vault, index, model = sys.argv[1:4]
    rt = open_runtime(Path(vault), index_path=Path(index))
    rt._embedder = LlamaEmbedder(model, max_tokens=256)
    def on(ev):
        if ev["phase"] == "embed":
            print("done", ev["done"], flush=True)
            time.sleep(0.05)  # slow enough to be killed mid-run
    operations.reindex(rt, progress=on)
    print("finished", flush=True)
    """
)


def test_sigkill_mid_run_leaves_a_consistent_index_that_the_next_run_completes(
    tmp_path, tiny_model_path, tiny_embedder
):
    vault = tmp_path / "big"
    for i in range(120):
        write(vault, f"n{i:03}.md", f"# Note {i}\n\nText number {i} about topic {i % 7}.\n\n## Part\n\nMore {i}.\n")
    index = tmp_path / "index.sqlite"
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLABLE, str(vault), str(index), str(tiny_model_path)],
        stdout=subprocess.PIPE, text=True, env={**os.environ},
    )
    done = 0
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("done"):
            done = int(line.split()[1])
            if done >= 40:
                break
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    assert 40 <= done < 120

    rt = open_runtime(vault, index_path=index)
    rt._embedder = tiny_embedder
    assert_consistent(rt)  # the killed run left whole notes only
    partial = rt.index.counts()[0]
    assert 0 < partial < 120
    s = operations.reindex(rt)
    assert len(s.indexed) == 120 - partial  # it resumes, it doesn't start over
    assert rt.index.counts()[0] == 120
    assert_consistent(rt)


def test_a_thread_that_releases_its_connection_leaves_no_connection_behind(vault, tiny_embedder, tmp_path):
    import threading

    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    before = len(rt.index._all)

    def reader():
        rt.index.conn.execute("SELECT count(*) FROM chunks").fetchone()
        rt.index.release_thread()

    threads = [threading.Thread(target=reader) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(rt.index._all) == before
    assert rt.index.conn.execute("SELECT count(*) FROM chunks").fetchone()[0] > 0


def _two_view_embedder(tiny_model_path):
    from groove.models.llama_embedder import LlamaEmbedder

    # e5-style prefixes on the tiny model, so the two views differ.
    return LlamaEmbedder(tiny_model_path, family="e5", max_tokens=256)


def _note_vectors(rt) -> dict[str, np.ndarray]:
    rows = rt.index.conn.execute(
        "SELECT d.path, v.embedding FROM vec_notes v JOIN documents d ON d.id = v.rowid")
    return {p: np.frombuffer(b, dtype=np.float32) for p, b in rows}


def _first_chunk_vector(rt, path: str) -> np.ndarray:
    (b,) = rt.index.conn.execute(
        "SELECT v.embedding FROM chunks c JOIN documents d ON d.id = c.doc_id JOIN vec_chunks v ON v.rowid = c.id "
        "WHERE d.path = ? ORDER BY c.ordinal LIMIT 1", (path,)).fetchone()
    return np.frombuffer(b, dtype=np.float32)


def test_a_note_vector_is_the_mean_of_its_summarys_query_view_and_its_first_chunk(vault, tiny_model_path, tmp_path):
    emb = _two_view_embedder(tiny_model_path)
    rt = make_runtime(vault, emb, tmp_path)
    operations.reindex(rt)
    note = parse_note("b.md", (vault / "b.md").read_bytes(), chunk_tokens=rt.config.index.chunk_tokens,
                      count_tokens=emb.count_tokens)
    text = note_text(note)
    p, q = emb.embed_passages([text])[0], emb.embed_queries([text])[0]
    assert not np.allclose(p, q, atol=1e-3)  # the views really differ
    m = q + _first_chunk_vector(rt, "b.md")
    # One summary embedding (the query view) and the stored first chunk (ADR 0142).
    np.testing.assert_allclose(_note_vectors(rt)["b.md"], m / np.linalg.norm(m), atol=1e-5)


@pytest.mark.parametrize("recipe,view", [(2, "passage"), (3, "mean"), (4, "passage")])
def test_an_index_of_an_earlier_note_vector_recipe_is_upgraded_without_reembedding_chunks(
        vault, tiny_model_path, tmp_path, recipe, view):
    emb = _two_view_embedder(tiny_model_path)
    rt = make_runtime(vault, emb, tmp_path)
    operations.reindex(rt)
    shipped = _note_vectors(rt)
    chunks_before = list(rt.index.conn.execute("SELECT rowid, embedding FROM vec_chunks ORDER BY rowid"))
    # Make it an index of an earlier recipe: stale note vectors, older recipe number.
    info = rt.index.embedder_info()
    rt.index.set_meta("embedder", json.dumps({**info, "recipe": recipe}))
    with rt.index.atomic() as c:
        for doc_id, path in list(c.execute("SELECT id, path FROM documents")):
            note = parse_note(path, (vault / path).read_bytes(), chunk_tokens=rt.config.index.chunk_tokens,
                              count_tokens=emb.count_tokens)
            p, q = emb.embed_passages([note_text(note)])[0], emb.embed_queries([note_text(note)])[0]
            stale = p if view == "passage" else (q + p) / np.linalg.norm(q + p)
            c.execute("DELETE FROM vec_notes WHERE rowid = ?", (doc_id,))
            c.execute("INSERT INTO vec_notes(rowid, embedding) VALUES (?, ?)",
                      (doc_id, np.asarray(stale, dtype=np.float32).tobytes()))
    assert not np.allclose(_note_vectors(rt)["a.md"], shipped["a.md"], atol=1e-4)

    s = operations.reindex(rt)  # no --rebuild needed
    assert s.chunks_embedded == 0 and s.indexed == []
    assert rt.index.embedder_info()["recipe"] == store.EMBED_RECIPE
    for path, v in _note_vectors(rt).items():
        np.testing.assert_allclose(v, shipped[path], atol=1e-5)
    assert list(rt.index.conn.execute("SELECT rowid, embedding FROM vec_chunks ORDER BY rowid")) == chunks_before
    assert_consistent(rt)


def test_an_index_of_an_older_recipe_still_asks_for_a_rebuild(vault, tiny_embedder, tmp_path):
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    rt.index.set_meta("embedder", json.dumps({**rt.index.embedder_info(), "recipe": 1}))
    with pytest.raises(EmbedderMismatch, match="--rebuild"):
        operations.reindex(rt)


def test_a_status_that_says_idle_never_carries_counts_read_while_a_job_ran(vault, tiny_embedder, tmp_path):
    # The race behind a flaky daemon test: the job finished between the counts
    # and the "indexing" flag, so a stale count was reported as idle.
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    real_counts = rt.index.counts

    def counts_while_the_job_ends():
        out = real_counts()
        operations.table._reindex_state.pop(id(rt), None)  # the job ends right after the counts were read
        return out

    operations.table._reindex_state[id(rt)] = {"phase": "embed", "done": 1, "total": 2}
    rt.index.counts = counts_while_the_job_ends
    try:
        assert operations.index_status(rt)["indexing"] is True
    finally:
        rt.index.counts = real_counts
        operations.table._reindex_state.pop(id(rt), None)


@pytest.mark.needs_default_model
def test_a_one_shot_cli_search_exits_without_a_teardown_traceback(small_vault, default_model_path, tmp_path):
    """llama-cpp-python's ``__del__`` at interpreter teardown finds its module
    half gone; the model must be closed before that (printed after every
    one-shot `groove search` without a daemon, `make demo` included, until it was)."""
    # as a new user types them (`make demo`): the default model, the default index
    # the user's token store (keyring) too: importing it changes the teardown order
    env = {k: v for k, v in os.environ.items() if k != "GROOVE_TOKEN_STORE"}
    run = dict(capture_output=True, text=True, timeout=300, env=env)
    built = subprocess.run([sys.executable, "-m", "groove", "index", str(small_vault)], **run)
    assert built.returncode == 0, built.stderr
    # no daemon runs here: the CLI asks for one, then searches in this process
    found = subprocess.run([sys.executable, "-m", "groove", "search", "coffee", "--vault", str(small_vault)], **run)
    assert found.returncode == 0, found.stderr
    for proc in (built, found):
        assert "Exception ignored" not in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


class _KilledOnLongBatches:
    """The real embedder, but a run is killed (as by a timeout) when asked
    to embed ``limit`` texts or more at once."""

    def __init__(self, inner, limit: int) -> None:
        self._inner, self._limit = inner, limit

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def embed_passages(self, texts):
        if len(texts) >= self._limit:
            raise KeyboardInterrupt("killed while embedding a long note")
        return self._inner.embed_passages(texts)


def test_a_long_note_does_not_hold_the_notes_queued_before_it(tmp_path, tiny_embedder):
    """Issue 50 R2: a run killed while it embeds a long note keeps the notes
    read before it (they were in the same batch, and lost with it)."""
    from groove.indexer import EMBED_BATCH_CHUNKS

    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\nApples by the river.\n")
    write(vault, "b.md", "# B\n\nThe mill and its wheel.\n")
    write(vault, "z-long.md", "".join(f"# Part {i}\n\nThe orchard, row {i}, in spring.\n\n"
                                      for i in range(EMBED_BATCH_CHUNKS + 8)))
    rt = make_runtime(vault, _KilledOnLongBatches(tiny_embedder, EMBED_BATCH_CHUNKS), tmp_path)
    with pytest.raises(KeyboardInterrupt):
        operations.reindex(rt)
    assert set(chunk_rows(rt)) == {"a.md", "b.md"}
    rt._embedder = tiny_embedder
    assert len(operations.reindex(rt).indexed) == 1  # the next run does the long note alone
    assert set(chunk_rows(rt)) == {"a.md", "b.md", "z-long.md"}
