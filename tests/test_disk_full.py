"""A full disk (or any write error) ends `groove index` with one message
naming the cause, and leaves the index intact and resumable: the kill -9
guarantee extends to ENOSPC (issue 15: D13). The errors are the kernel's:
a file size limit (RLIMIT_FSIZE, EFBIG) everywhere, and a really full
tmpfs (ENOSPC) where a mount namespace can be made."""

from __future__ import annotations

import os
import re
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import HEALTHY, index_contents, index_health
from test_indexer import write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="rlimits and mounts are POSIX")
NOTES = 200


def _write_notes(v: Path, numbers: range) -> None:
    for i in numbers:
        body = f"# Note {i}\n\nText number {i} about topic {i % 7} and words.\n\n## Part\n\nMore {i}.\n"
        write(v, f"n{i:03}.md", body)


def _half_indexed(tmp: Path, model: Path) -> tuple[Path, Path, list[tuple]]:
    """(vault, index holding its first half, what a clean index of all of it holds).
    Starting from a half index puts the failure mid-run: the first note alone
    allocates the vector tables' blocks, bigger than a small limit."""
    vault = tmp / "vault"
    _write_notes(vault, range(NOTES // 2))
    index = tmp / "index.sqlite"
    assert _groove_index(vault, index, model).returncode == 0
    _write_notes(vault, range(NOTES // 2, NOTES))
    ref = tmp / "reference.sqlite"
    assert _groove_index(vault, ref, model).returncode == 0
    return vault, index, index_contents(ref)


def _groove_index(vault: Path, index: Path, model: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "groove", "index", str(vault), "--index", str(index),
                           "--model", str(model)], capture_output=True, text=True, timeout=600, **kw)


def _assert_failed_cleanly(proc: subprocess.CompletedProcess, cause: str) -> None:
    assert proc.returncode == 2, proc.stderr
    err = proc.stderr.strip().splitlines()
    assert err[-1].startswith(f"error: {cause} while writing the index at "), proc.stderr
    # The CLI completes the command with the vault and --index used (ADR 0278).
    assert re.search(r"run `groove index \S+ --index [^`]+` again; the index is unchanged since the last "
                     r"committed note", err[-1]), err[-1]
    assert "Traceback" not in proc.stderr and "cannot rollback" not in proc.stderr


def test_a_file_size_limit_mid_run_gives_one_clear_error_and_a_resumable_index(tmp_path, tiny_model_path):
    vault, index, reference = _half_indexed(tmp_path, tiny_model_path)
    limit = index.stat().st_size + (64 << 10)  # room for a few notes in the WAL

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG from write(2) instead of a kill
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = _groove_index(vault, index, tiny_model_path, preexec_fn=limited)
    _assert_failed_cleanly(proc, "file size limit reached")
    health = index_health(index)
    assert {k: health[k] for k in HEALTHY} == HEALTHY
    assert NOTES // 2 <= health["documents"] < NOTES  # nothing committed before the error is lost
    again = _groove_index(vault, index, tiny_model_path)
    assert again.returncode == 0, again.stderr
    assert f"indexed {NOTES - health['documents']}," in again.stdout  # resumed, not restarted
    assert index_contents(index) == reference


def _run_in_small_tmpfs(script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """``script`` in a new mount namespace with a small tmpfs at $MNT: a real
    ENOSPC. Needs root or unprivileged user namespaces."""
    if not shutil.which("unshare"):
        pytest.skip("no `unshare` here: cannot make a small tmpfs for a real ENOSPC")
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True,
                          timeout=600, env={**os.environ, **env})
    if proc.returncode == 90 or "unshare:" in proc.stderr:
        pytest.skip(f"cannot mount a tmpfs in a user namespace here ({proc.stderr.strip()[:200]})")
    return proc


def test_a_full_disk_mid_run_gives_one_clear_error_and_a_resumable_index(tmp_path, tiny_model_path):
    vault, half, reference = _half_indexed(tmp_path, tiny_model_path)
    mnt, out = tmp_path / "mnt", tmp_path / "out"
    mnt.mkdir()
    out.mkdir()
    size_kb = half.stat().st_size // 1024 + 32 + 192  # the half index, its -shm, a few notes of WAL
    script = (
        f'mount -t tmpfs -o size={size_kb}k tmpfs "$MNT" || exit 90\n'
        'cp "$HALF" "$MNT/index.sqlite" || exit 91\n'
        f'"{sys.executable}" -m groove index "$VAULT" --index "$MNT/index.sqlite" --model "$MODEL"\n'
        'rc=$?; cp -a "$MNT"/. "$OUT"/; exit $rc\n'
    )
    proc = _run_in_small_tmpfs(script, {"MNT": str(mnt), "OUT": str(out), "VAULT": str(vault),
                                        "MODEL": str(tiny_model_path), "HALF": str(half)})
    _assert_failed_cleanly(proc, "disk full")
    index = out / "index.sqlite"  # the files as the failed run left them on the full disk
    health = index_health(index)
    assert {k: health[k] for k in HEALTHY} == HEALTHY
    assert NOTES // 2 <= health["documents"] < NOTES  # nothing committed before the error is lost
    again = _groove_index(vault, index, tiny_model_path)
    assert again.returncode == 0, again.stderr
    assert index_contents(index) == reference


_MID_TRANSACTION = """
import resource, signal, sys
from pathlib import Path
import apsw
from groove.storage.db import Index
idx = Index(Path(sys.argv[1]))
idx.conn.execute("PRAGMA cache_size = 10")  # spill to the WAL inside the transaction
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = Path(sys.argv[1]).stat().st_size + (256 << 10)
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    with idx.atomic() as c:
        c.execute("CREATE TABLE big(x)")
        for _ in range(64):
            c.execute("INSERT INTO big VALUES (randomblob(65536))")
except apsw.Error as e:
    print("raised", type(e).__name__, idx.write_failure(e))
print("in transaction after:", idx.conn.in_transaction)
print("table:", idx.conn.execute("SELECT count(*) FROM sqlite_master WHERE name = 'big'").fetchone()[0])
"""


def test_a_write_error_inside_a_transaction_is_not_hidden_by_the_rollback(tmp_path):
    index = tmp_path / "index.sqlite"
    proc = subprocess.run([sys.executable, "-c", _MID_TRANSACTION, str(index)], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "cannot rollback" not in proc.stdout + proc.stderr
    assert "raised IOError file size limit reached while writing the index" in proc.stdout
    assert "in transaction after: False" in proc.stdout and "table: 0" in proc.stdout
    assert index_health(index)["integrity"] == "ok"
