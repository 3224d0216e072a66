"""An index file that is not what groove expects is named with what to do,
never a traceback or a silent rewrite (issue 50 R13, R14): empty, damaged,
stamped by a newer groove, migrated from an older schema, read-only."""

from __future__ import annotations

import os
import random
import shutil
import tempfile
from pathlib import Path

import apsw
import pytest

from groove import operations
from groove.config import IndexConfig
from groove.errors import IndexMissing, IndexUnusable
from groove.indexer import index_vault
from groove.storage.db import Index
from helpers import make_runtime, run_groove, write_note
from other_user import other_user, run_as_other

NOTES = {f"n{i:03d}.md": f"# Note {i}\n\nThe harbour crane number {i} lifts containers of fennel and cello.\n"
         for i in range(150)}


def build(tmp: Path, embedder) -> tuple[Path, Path]:
    vault = tmp / "vault"
    for rel, text in NOTES.items():
        write_note(vault, rel, text)
    rt = make_runtime(vault, embedder, tmp)
    operations.reindex(rt)
    rt.close()
    return vault, tmp / "index.sqlite"


def raw(index: Path, sql: str, *args: object) -> list[tuple]:
    c = apsw.Connection(str(index))
    try:
        return list(c.execute(sql, args))
    finally:
        c.close()


def search(vault: Path, index: Path, embedder, query: str = "harbour crane") -> list[str]:
    rt = make_runtime(vault, embedder, index.parent)
    try:
        return [h["path"] for h in operations.call(rt, "search", {"query": query})["results"]]
    finally:
        rt.close()


def test_a_zero_byte_index_is_reported_as_empty(tmp_path, tiny_embedder):
    vault, index = build(tmp_path, tiny_embedder)
    index.write_bytes(b"")
    for p in (Path(f"{index}-wal"), Path(f"{index}-shm")):
        p.unlink(missing_ok=True)
    with pytest.raises(IndexMissing, match=f"the index at {index} is empty"):
        Index(index, create=False)
    r = run_groove("search", "--no-daemon", "--vault", str(vault), "--index", str(index), "harbour")
    assert r.returncode == 2 and "is empty" in r.stderr and "Traceback" not in r.stderr, r.stderr


def damage(index: Path, seed: int = 7) -> None:
    """8 KB of noise in the middle of the file, as a bad sector or a torn copy leaves."""
    raw(index, "PRAGMA wal_checkpoint(TRUNCATE)")
    size = index.stat().st_size
    with open(index, "r+b") as fh:
        fh.seek(size // 2 // 4096 * 4096)
        fh.write(random.Random(seed).randbytes(8192))


def test_a_damaged_index_is_named_and_not_reported_unchanged(tmp_path, tiny_embedder):
    vault, index = build(tmp_path, tiny_embedder)
    damage(index)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    with pytest.raises(IndexUnusable, match=r"is damaged .*groove index --rebuild"):
        operations.reindex(rt)  # not 150 notes "unchanged"
    try:
        hits = [h["path"] for h in operations.call(rt, "search", {"query": "harbour crane"})["results"]]
    except IndexUnusable as e:  # the pages a search reads may or may not be the damaged ones
        assert "--rebuild" in str(e)
    else:
        assert hits
    # The offered way out works: a rebuild over the damaged file.
    operations.reindex(rt, force=True)
    rt.close()
    assert raw(index, "PRAGMA quick_check") == [("ok",)]
    assert search(vault, index, tiny_embedder)


def test_a_damaged_vector_page_is_a_message_on_search(tmp_path, tiny_embedder):
    """The page of the vectors blob itself (sqlite-vec's "vectors blob read error")."""
    vault, index = build(tmp_path, tiny_embedder)
    raw(index, "PRAGMA wal_checkpoint(TRUNCATE)")
    pages = [p for (p,) in raw(index, "SELECT pageno FROM dbstat WHERE name = 'vec_chunks_vector_chunks00' "
                                      "AND pagetype = 'overflow' ORDER BY pageno")]
    if not pages:
        pytest.skip("no dbstat or no overflow pages for the vectors here")
    psize = raw(index, "PRAGMA page_size")[0][0]
    with open(index, "r+b") as fh:
        fh.seek((pages[len(pages) // 2] - 1) * psize)
        fh.write(b"\x00" * psize * 2)
    with pytest.raises(IndexUnusable, match=r"is damaged .*groove index --rebuild"):
        search(vault, index, tiny_embedder)
    r = run_groove("search", "--no-daemon", "--vault", str(vault), "--index", str(index), "harbour")
    assert r.returncode == 2 and "--rebuild" in r.stderr and "Traceback" not in r.stderr, r.stderr


def test_an_index_of_a_newer_schema_is_refused_not_restamped(tmp_path, tiny_embedder):
    vault, index = build(tmp_path, tiny_embedder)
    raw(index, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    for create in (False, True):  # a CLI search; the daemon and the MCP server
        with pytest.raises(IndexUnusable, match="newer groove .*schema 99"):
            Index(index, create=create)
    r = run_groove("search", "--no-daemon", "--vault", str(vault), "--index", str(index), "harbour")
    assert r.returncode == 2 and "newer groove" in r.stderr, r.stderr
    assert raw(index, "SELECT value FROM meta WHERE key = 'schema_version'") == [("99",)]


def test_an_index_migrated_from_schema_4_is_censused_again(tmp_path, tiny_embedder):
    from test_boilerplate_index import make_vault

    vault = make_vault(tmp_path / "v")
    fresh = Index(tmp_path / "fresh.sqlite")
    want = index_vault(vault, fresh, tiny_embedder, IndexConfig()).boilerplate_lines
    fresh.close()
    assert want >= 4
    old = tmp_path / "old.sqlite"
    idx = Index(old)
    index_vault(vault, idx, tiny_embedder, IndexConfig())
    idx.close()
    # What schema 4 had: no property or census tables (their triggers go with them).
    for t in ("note_properties", "note_lines", "line_counts"):
        raw(old, f"DROP TABLE {t}")
    raw(old, "UPDATE meta SET value = '4' WHERE key = 'schema_version'")
    raw(old, "DROP TABLE migrations")  # schema 4 predates it
    idx = Index(old)
    got = index_vault(vault, idx, tiny_embedder, IndexConfig())
    idx.close()
    assert got.boilerplate_lines == want
    assert raw(old, "SELECT value FROM meta WHERE key = 'schema_version'") == [("6",)]


def _search_and_update(vault: Path, index: Path, model: Path) -> list[str]:
    """As the other user: search the index both ways it is opened (the CLI's
    and the daemon's / MCP server's), then try to update it."""
    from groove.models.llama_embedder import LlamaEmbedder
    from groove.runtime import open_runtime

    out = []
    embedder = LlamaEmbedder(model, max_tokens=256)
    for create in (False, True):
        rt = open_runtime(vault, index_path=index, create=create)
        rt._embedder = embedder
        # No answer spans: they embed sentences, and llama.cpp's worker threads do not survive the
        # fork into this child (a decode there waits on them for ever); the index is what is tested.
        hits = operations.call(rt, "search", {"query": "harbour crane", "answer_spans": False})["results"]
        out.append(str(len(hits)))
    try:
        operations.reindex(rt)
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        out.append(f"{type(e).__name__} {e}")
    return out


def test_a_read_only_index_is_searched_without_writing(tmp_path, tiny_embedder, tiny_model_path):
    """A restored or shared copy, 0400, in a folder its user cannot write:
    searched as it is, and an update says why it cannot be done."""
    other = other_user()
    vault, index = build(tmp_path, tiny_embedder)
    raw(index, "PRAGMA wal_checkpoint(TRUNCATE)")
    world = Path(tempfile.mkdtemp(prefix="groove-ro-"))
    try:
        os.chmod(world, 0o755)
        shutil.copytree(vault, world / "vault")
        (world / "idx").mkdir()
        copy = world / "idx" / "index.sqlite"
        shutil.copy(index, copy)
        shutil.copy(tiny_model_path, world / "tiny-bert.gguf")
        (world / "home").mkdir()
        for root, dirs, files in os.walk(world):
            for n in dirs + files:
                os.chown(os.path.join(root, n), other.pw_uid, other.pw_gid)
        # Warm up as root on the original (the child cannot import what it cannot read).
        _search_and_update(vault, index, tiny_model_path)
        os.chmod(copy, 0o400)
        os.chmod(world / "idx", 0o500)
        before = copy.read_bytes()
        old = {k: os.environ[k] for k in ("GROOVE_HOME", "GROOVE_MODELS_DIR")}
        os.environ.update(GROOVE_HOME=str(world / "home"), GROOVE_MODELS_DIR=str(world / "home" / "models"))
        try:
            got = run_as_other(_search_and_update, world / "vault", copy, world / "tiny-bert.gguf")
        finally:
            os.environ.update(old)
        assert int(got[0]) > 0 and int(got[1]) > 0, got
        assert got[2].startswith("IndexWriteFailed") and "read-only" in got[2], got
        assert copy.read_bytes() == before
    finally:
        shutil.rmtree(world, ignore_errors=True)


def test_doctor_names_the_damage(tmp_path, tiny_embedder):
    from groove.doctor import check_index

    vault, index = build(tmp_path, tiny_embedder)
    assert check_index(vault, index).ok
    damage(index)
    r = check_index(vault, index)
    assert not r.ok and "is damaged" in r.detail and "--rebuild" in r.fix, r
