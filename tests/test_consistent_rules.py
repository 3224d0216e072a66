"""The rows issue 35 saw but did not judge, as decided (ADR 0150):

* a note that becomes unreadable leaves search, as the notes under an
  unreadable folder do, and comes back when it can be read again;
* a path that matches several notes differing only in case ('README.md'
  for 'Readme.md' and 'readme.md') is refused with the candidates, not
  answered with one picked silently;
* `groove serve --verbose` (started in the background) logs every request:
  client, method, outcome and time, never the query.
(A path through a symlinked folder: tests/vault/test_symlink_rules.py.)
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from groove import operations
from groove.errors import NoteNotFound
from groove.operations import notes
from helpers import make_runtime
from test_indexer import write

CHILD = r"""
import json, sys
from pathlib import Path
from groove import operations
from groove.pipeline import SearchParams
from groove.models.llama_embedder import LlamaEmbedder
from groove.runtime import open_runtime

vault, index, model = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
rt = open_runtime(vault, index_path=index)
rt._embedder = LlamaEmbedder(model, max_tokens=256)
s = operations.reindex(rt)
hits = operations.search(rt, SearchParams(query="aardvark", limit=10)).results
print(json.dumps({"deleted": s.deleted, "indexed": s.indexed, "skipped": [[k.path, k.reason] for k in s.skipped],
                  "hits": sorted({h.path for h in hits if "aardvark" in h.content})}))
"""


def _without_root_reads() -> list[str]:
    """A command prefix under which file modes hold: root reads every file,
    so as root the child runs without the capabilities that let it."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes cannot be tested")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


@pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
def test_a_note_that_becomes_unreadable_leaves_search_and_comes_back(tmp_path: Path, tiny_model_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\nThe aardvark digs at night.\n")
    write(vault, "b.md", "# B\n\nNothing here.\n")
    write(vault, "sub/c.md", "# C\n\nAn aardvark in a folder.\n")
    prefix = _without_root_reads()

    def run() -> dict:
        out = subprocess.run([*prefix, sys.executable, "-c", CHILD, str(vault), str(tmp_path / "index.sqlite"),
                              str(tiny_model_path)], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        return json.loads(out.stdout.strip().splitlines()[-1])

    try:
        first = run()
        assert first["hits"] == ["a.md", "sub/c.md"]
        os.chmod(vault / "a.md", 0)  # the stat the index knows (size, mtime) does not change
        os.chmod(vault / "sub", 0)
        second = run()
        assert second["hits"] == []
        assert sorted(second["deleted"]) == ["a.md", "sub/c.md"]
        reasons = dict(second["skipped"])
        assert "unreadable (permission denied)" in reasons["a.md"] and "folder unreadable" in reasons["sub"]
    finally:
        os.chmod(vault / "a.md", 0o644)
        os.chmod(vault / "sub", 0o755)
    third = run()
    assert third["hits"] == ["a.md", "sub/c.md"] and sorted(third["indexed"]) == ["a.md", "sub/c.md"]


def test_a_path_that_matches_notes_differing_only_in_case_is_refused_with_both(tmp_path, tiny_embedder) -> None:
    vault = tmp_path / "v"
    write(vault, "Readme.md", "# Readme\n\nThe first one.\n")
    try:
        write(vault, "readme.md", "# readme\n\nThe second one.\n")
    except OSError:
        pytest.skip("a case-insensitive file system holds one of them only")
    if len(list(vault.iterdir())) < 2:
        pytest.skip("a case-insensitive file system holds one of them only")
    write(vault, "Guide.md", "# Guide\n\nOnly one.\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    with pytest.raises(NoteNotFound) as e:
        notes.get_document(rt, "README.md")
    assert "'Readme.md', 'readme.md'" in str(e.value) and "differ only in case" in str(e.value)
    assert notes.get_document(rt, "readme.md")["content"].endswith("The second one.")  # exact: no question
    assert notes.get_document(rt, "Readme.md")["content"].endswith("The first one.")
    assert notes.get_document(rt, "guide.md")["path"] == "Guide.md"  # one candidate: found as before


@pytest.mark.skipif(os.name != "posix", reason="unix socket daemon")
def test_serve_verbose_in_the_background_logs_every_request_but_not_its_query(tmp_path, tiny_model_path) -> None:
    home = Path(tempfile.mkdtemp(prefix="gv-", dir="/tmp"))  # a short socket path
    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\nThe aardvark digs at night.\n")
    env = {**os.environ, "GROOVE_HOME": str(home), "GROOVE_TOKEN_STORE": "file"}
    groove = [sys.executable, "-m", "groove"]
    try:
        out = subprocess.run([*groove, "serve", "--vault", str(vault), "--model", str(tiny_model_path), "--verbose"],
                             env=env, capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        q = subprocess.run([*groove, "search", "secret zebra question", "--vault", str(vault), "--daemon"],
                           env=env, capture_output=True, text=True, timeout=120)
        assert q.returncode == 0, q.stderr
        log = next(home.rglob("*.log")).read_text(encoding="utf-8")
        assert any("search ok in" in line and "groove-cli" in line for line in log.splitlines()), log[-2000:]
        assert "secret zebra" not in log
    finally:
        subprocess.run([*groove, "serve", "--vault", str(vault), "--stop"], env=env, capture_output=True, timeout=60)
        shutil.rmtree(home, ignore_errors=True)


def test_a_note_that_grows_past_max_file_bytes_leaves_search_until_it_fits(tmp_path, tiny_embedder) -> None:
    from groove.config import Config, IndexConfig
    from groove.pipeline import SearchParams

    vault = tmp_path / "v"
    note = write(vault, "grows.md", "# Grows\n\nThe okapi paragraph.\n")
    write(vault, "other.md", "# Other\n\nSomething else.\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path, config=Config(index=IndexConfig(max_file_bytes=2_000)))

    def okapi() -> set[str]:
        hits = operations.search(rt, SearchParams(query="okapi", limit=10)).results
        return {h.path for h in hits if "okapi" in h.content}

    operations.reindex(rt)
    assert okapi() == {"grows.md"}
    note.write_text("# Grows\n\nThe okapi paragraph.\n" + "more words " * 400, encoding="utf-8")
    s = operations.reindex(rt)
    assert s.deleted == ["grows.md"] and "too large" in {k.path: k.reason for k in s.skipped}["grows.md"]
    assert okapi() == set()  # not the old text of a note the index no longer reads
    note.write_text("# Grows\n\nThe okapi paragraph, short again.\n", encoding="utf-8")
    operations.reindex(rt)
    assert okapi() == {"grows.md"}
