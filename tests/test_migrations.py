"""The schema's history in one place (issue 51): every table, index and
trigger is created in storage/migrations.py, each migration runs once and is
recorded by name, and an index written before the record existed upgrades
in place and searches as it did."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import apsw
import pytest

from groove.errors import IndexUnusable
from groove.storage import migrations
from groove.storage.db import Index
from helpers import write_note
from other_user import other_user, run_as_other

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "backend" / "groove"
MIGRATIONS_MODULE = PACKAGE / "storage" / "migrations.py"
DDL = re.compile(r"\b(CREATE|DROP)\s+(?:TEMP(?:ORARY)?\s+)?(?:VIRTUAL\s+|UNIQUE\s+)?(TABLE|INDEX|TRIGGER|VIEW)"
                 r"\s+(?:IF\s+(?:NOT\s+)?EXISTS\s+)?([\w.{}]+)", re.I)
# Not the index's schema: SQLite's own feature probe on a throwaway
# in-memory database (`groove doctor`).
PROBES = {("doctor.py", "t")}
# A release whose indexes this one must open: the last before the migrations table.
PREVIOUS_RELEASE = "42f2c8d"


def _constants(tree: ast.AST) -> dict[str, str]:
    """The module's NAME = "string" assignments."""
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            out.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return out


def schema_statements_outside_migrations() -> list[str]:
    """Each CREATE/DROP of a table, index, trigger or view in the package but
    outside the migrations module, as "file: target". A ``temp.`` target (an
    fts5vocab view a connection makes for itself, never stored in the file)
    is not the file's schema and is left out."""
    found = []
    for f in sorted(PACKAGE.rglob("*.py")):
        if f == MIGRATIONS_MODULE:
            continue
        text = f.read_text(encoding="utf-8")
        names = _constants(ast.parse(text))
        for m in DDL.finditer(text):
            target = m.group(3)
            if target.startswith("{") and target.endswith("}"):
                target = names.get(target.strip("{}"), target)
            rel = str(f.relative_to(PACKAGE))
            if target.lower().startswith("temp.") or (rel, target) in PROBES:
                continue
            found.append(f"{rel}: {m.group(1).upper()} {m.group(2).upper()} {target}")
    return found


def test_every_table_is_created_in_the_migrations_module() -> None:
    found = schema_statements_outside_migrations()
    assert not found, "schema changes belong in storage/migrations.py:\n" + "\n".join(found)


def test_the_scan_sees_a_table_created_elsewhere(tmp_path) -> None:
    # The scan reads f-string targets through the module's constants.
    src = 'TABLE = "fts_extra"\nSQL = f"CREATE VIRTUAL TABLE IF NOT EXISTS {TABLE} USING fts5(x)"\n'
    m = DDL.search(src)
    assert m and _constants(ast.parse(src))[m.group(3).strip("{}")] == "fts_extra"


def test_a_new_index_records_each_migration_once(tmp_path) -> None:
    path = tmp_path / "index.sqlite"
    idx = Index(path)
    first = migrations.applied(idx.conn)
    assert [n for n, _ in first] == [m.name for m in migrations.MIGRATIONS]
    assert migrations.current(idx.conn) and not migrations.pending(idx.conn)
    idx.close()
    again = Index(path)
    assert migrations.applied(again.conn) == first  # nothing ran again, nothing re-recorded
    again.close()


def test_an_index_naming_a_migration_this_groove_lacks_is_refused(tmp_path) -> None:
    path = tmp_path / "index.sqlite"
    Index(path).close()
    c = apsw.Connection(str(path))
    c.execute("INSERT INTO migrations(name, applied_at) VALUES ('999_from_the_future', 0)")
    c.close()
    with pytest.raises(IndexUnusable, match="newer groove .*999_from_the_future"):
        Index(path)


def _open_read_only(path: str) -> tuple[bool, list, list]:
    idx = Index(Path(path))
    try:
        return idx.read_only, migrations.applied(idx.conn), [m.name for m in migrations.pending(idx.conn)]
    finally:
        idx.close()


def test_a_read_only_index_from_before_the_record_is_searched_as_it_is(tmp_path) -> None:
    """A 0400 copy the previous release wrote needs no migration: it opens
    without a write (its stamps say everything ran but a cache's table),
    where a write is refused."""
    other = other_user()
    world = Path(tempfile.mkdtemp(prefix="groove-ro-"))
    try:
        os.chmod(world, 0o755)
        (world / "idx").mkdir()
        path = world / "idx" / "index.sqlite"
        Index(path).close()
        c = apsw.Connection(str(path))
        c.execute("DROP TABLE migrations")  # as the previous release left it
        c.execute("DROP TABLE sentence_vectors")  # ... which had no stored sentence vectors either
        c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        c.close()
        for p in (world / "idx", path):
            os.chown(p, other.pw_uid, other.pw_gid)
        path.chmod(0o400)
        (world / "idx").chmod(0o500)
        before = path.read_bytes()
        read_only, applied, pending = run_as_other(_open_read_only, str(path))
        # A cache's table is all it lacks: read as it is, answer spans embedded per search.
        assert read_only and applied == [] and pending == ["009_sentence_vectors"]
        assert path.read_bytes() == before
    finally:
        shutil.rmtree(world, ignore_errors=True)


NOTES = {
    "harbour.md": "# Harbour\n\nThe crane at the harbour lifts containers off the ship. #port\n",
    "tags.md": "# タグ\n\nタグを付けてノートを整理する。設定から変更できる。\n",
    "korean.md": "# 태그\n\n태그 검색으로 노트를 찾아요. 보관함에 저장해요.\n",
    "sync.md": "# Sync\n\nSync notes between phone and desktop; conflicts keep both copies.\n",
}
QUERIES = ["harbour crane", "タグ", "태그 검색", "sync -phone", "保存 設定"]
SCRIPT = r"""
import dataclasses, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])  # that tree's tests/, for make_runtime
from helpers import make_runtime
try:
    from groove import operations
except ImportError:  # the previous release's tree: the table was groove/service.py
    from groove import service as operations
from groove.models.llama_embedder import LlamaEmbedder
vault, tmp, model, build = Path(sys.argv[2]), Path(sys.argv[3]), sys.argv[4], sys.argv[5] == "build"
rt = make_runtime(vault, LlamaEmbedder(model, max_tokens=256), tmp)
# Ranking defaults changed since that release (section evidence, ADR 0265; the
# tiny-chunk prior, ADR 0280): both sides search as it did, so what is compared
# is what the index holds.
f = rt.config.search.fusion
same = {k: 0.0 for k in ("section_weight", "own_words") if hasattr(f, k)}
rt.config = dataclasses.replace(rt.config, search=dataclasses.replace(rt.config.search,
                                                                   fusion=dataclasses.replace(f, **same)))
try:
    if build:
        operations.reindex(rt)
    out = {q: operations.call(rt, "search", {"query": q, "explain": True}) for q in json.loads(sys.argv[6])}
    out["list_notes"] = operations.call(rt, "list_notes", {"folder": "", "sort": "title", "limit": 3})
    out["recent_notes"] = operations.call(rt, "recent_notes", {"days": 3650})
    out["list_tags"] = operations.call(rt, "list_tags", {})
finally:
    rt.close()
print(json.dumps(out, sort_keys=True, ensure_ascii=False))
"""


def _previous_release(dest: Path) -> Path:
    """The previous release's backend and tests, from git, under ``dest``."""
    probe = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e", f"{PREVIOUS_RELEASE}^{{commit}}"],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"commit {PREVIOUS_RELEASE} (the previous release) is not in this checkout's history")
    dest.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", PREVIOUS_RELEASE, "backend", "tests"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def _searches(code: Path, vault: Path, tmp: Path, model: Path, build: bool) -> dict:
    env = {**os.environ, "PYTHONPATH": str(code / "backend")}
    r = subprocess.run([sys.executable, "-c", SCRIPT, str(code / "tests"), str(vault), str(tmp), str(model),
                        "build" if build else "search", json.dumps(QUERIES)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _drop_timings(out: dict) -> dict:
    """Also what this index does not decide: which sentences a hit marks as
    its answer (ADR 0269 changed that after the previous release)."""
    for resp in out.values():
        resp.pop("timings_ms", None)
        for hit in resp.get("results", []) if isinstance(resp.get("results"), list) else []:
            for key in ("answer_spans", "note_answer_rank", "note_answer"):
                hit.pop(key, None)
        if isinstance(resp.get("explain"), dict):
            resp["explain"].pop("timings_ms", None)
    return out


def test_an_index_of_the_previous_release_upgrades_in_place_and_searches_the_same(tmp_path, tiny_model_path):
    """Also the listings (list_notes, recent_notes, list_tags), whose reads moved to storage/listing.py."""
    old = _previous_release(tmp_path / "old")
    vault = tmp_path / "vault"
    for rel, text in NOTES.items():
        write_note(vault, rel, text)
    work = tmp_path / "work"
    work.mkdir(mode=0o700)
    before = _searches(old, vault, work, tiny_model_path, build=True)
    assert all(before[q]["results"] for q in ("harbour crane", "タグ", "태그 검색"))
    assert before["list_notes"]["notes"] and before["recent_notes"]["notes"] and before["list_tags"]["tags"]
    index = work / "index.sqlite"
    c = apsw.Connection(str(index))
    assert c.execute("SELECT 1 FROM sqlite_master WHERE name = 'migrations'").fetchone() is None
    stamps = dict(c.execute("SELECT key, value FROM meta WHERE key IN ('schema_version', 'shortcjk_version')"))
    c.close()
    assert stamps == {"schema_version": "6", "shortcjk_version": "2"}

    after = _searches(ROOT, vault, work, tiny_model_path, build=False)
    assert _drop_timings(after) == _drop_timings(before)
    c = apsw.Connection(str(index))
    try:
        assert [n for n, _ in migrations.applied(c)] == [m.name for m in migrations.MIGRATIONS]
        assert not migrations.pending(c)
    finally:
        c.close()
