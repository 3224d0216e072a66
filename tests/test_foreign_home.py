"""A GROOVE_HOME, index folder or index file that another local user made
first is refused on every path that opens an index, not only by `groove
serve` (issue 50 R12); a GROOVE_HOME that cannot be made is a message, not a
traceback (R13).

The other user is real: ``nobody`` makes the folders and the index file in a
sticky world-writable folder, as on /tmp, and afterwards tries to read what
groove wrote. Needs root (to run a process as ``nobody``, and to chown)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from groove import operations, paths
from groove.runtime import open_runtime
from helpers import run_groove, write_note
from other_user import run_as_other

pytestmark = pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0,
                                reason="needs root, to act as a second Unix user (nobody)")

SECRET = "my salary is 123456"


def _other() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no 'nobody' user on this machine to play the other user")


def as_other(*cmd: str) -> subprocess.CompletedProcess[str]:
    o = _other()
    return subprocess.run(list(cmd), capture_output=True, text=True, user=o.pw_uid, group=o.pw_gid, timeout=60)


@pytest.fixture
def world() -> Iterator[Path]:
    """A folder the other user can reach (pytest's own are 0700 from the top)."""
    d = Path(tempfile.mkdtemp(prefix="groove-r12-"))
    os.chmod(d, 0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def shared(world: Path) -> Path:
    """A sticky world-writable folder, like /tmp: anyone may create in it."""
    d = world / "shared"
    d.mkdir()
    os.chmod(d, 0o1777)
    return d


@pytest.fixture
def vault(world: Path) -> Path:
    v = world / "vault"
    write_note(v, "diary.md", f"# Diary\n\n{SECRET}\n")
    os.chmod(v, 0o755)
    os.chmod(v / "diary.md", 0o644)
    return v


def planted_home(shared: Path, vault: Path) -> tuple[Path, Path]:
    """The other user's trap: GROOVE_HOME and its index folder made 0777 first,
    the index file touched 0666 under the name groove will use."""
    home = shared / "groove-home"
    index = home / "data" / "indexes" / f"{paths.vault_key(vault)}.sqlite"
    r = as_other("sh", "-c", f"umask 0; mkdir -p '{index.parent}' && chmod -R 0777 '{home}' && touch '{index}' "
                             f"&& chmod 0666 '{index}'")
    assert r.returncode == 0, r.stderr
    assert index.stat().st_uid == _other().pw_uid
    return home, index


def other_reads(index: Path) -> str:
    return as_other("cat", str(index)).stdout if index.exists() else ""


def test_a_groove_home_made_first_by_another_user_is_refused_in_process(shared, vault, monkeypatch, tiny_embedder):
    home, index = planted_home(shared, vault)
    monkeypatch.setenv("GROOVE_HOME", str(home))
    # Every path that opens an index goes through open_runtime / Index: the
    # in-process search, the standalone MCP server, eval, the daemon.
    with pytest.raises(paths.UnsafeFolder, match=f"belongs to uid {_other().pw_uid}") as e:
        rt = open_runtime(vault)
        rt._embedder = tiny_embedder
        operations.reindex(rt)
    assert str(home) in str(e.value) and "GROOVE_HOME" in str(e.value)
    assert SECRET not in other_reads(index)


def test_groove_index_refuses_a_planted_home_with_a_message(shared, vault):
    home, index = planted_home(shared, vault)
    env_home = os.environ["GROOVE_HOME"]
    os.environ["GROOVE_HOME"] = str(home)
    try:
        r = run_groove("index", str(vault))
        s = run_groove("search", "--no-daemon", "--vault", str(vault), "salary")
    finally:
        os.environ["GROOVE_HOME"] = env_home
    for out in (r, s):
        assert out.returncode == 2, out.stdout + out.stderr
        assert f"belongs to uid {_other().pw_uid}" in out.stderr and "Traceback" not in out.stderr
    assert SECRET not in other_reads(index)


def test_an_index_file_planted_in_an_own_folder_is_refused(tmp_path, vault, tiny_embedder):
    """The folders are the user's, but the index file (or its WAL) is another
    user's, 0666: groove must not write notes into it."""
    for side in ("", "-wal"):
        folder = tmp_path / f"idx{side}"
        folder.mkdir(mode=0o700)
        index = folder / "index.sqlite"
        planted = Path(f"{index}{side}")
        planted.touch()
        os.chown(planted, _other().pw_uid, _other().pw_gid)
        os.chmod(planted, 0o666)
        with pytest.raises(paths.UnsafeFolder, match=f"index file {planted} belongs to uid {_other().pw_uid}"):
            rt = open_runtime(vault, index_path=index)
            rt._embedder = tiny_embedder
            operations.reindex(rt)
        assert SECRET.encode() not in planted.read_bytes()


def test_an_index_folder_others_can_write_is_refused(world, vault):
    """No sticky bit: anyone may swap the index file under groove."""
    loose = world / "loose"
    loose.mkdir()
    os.chmod(loose, 0o777)
    with pytest.raises(paths.UnsafeFolder, match="writable by other users"):
        open_runtime(vault, index_path=loose / "index.sqlite")
    assert not (loose / "index.sqlite").exists()


def _open_and_doctor(vault: Path) -> list[str]:
    from groove.doctor import check_index

    out = []
    try:
        open_runtime(vault)
    except Exception as e:  # noqa: BLE001 - the type and message are what is checked
        out.append(f"{type(e).__name__} {e}")
    r = check_index(vault, None)
    out.append(f"{r.ok} {r.detail}")
    return out


def test_a_groove_home_that_cannot_be_made_is_a_message(vault, world, monkeypatch):
    """R13: a read-only parent (as an unprivileged user: root writes anyway)
    and a path under /proc; `groove doctor` reports it as a failed check."""
    readonly = world / "ro"
    readonly.mkdir()
    os.chmod(readonly, 0o555)
    home = readonly / "home"
    monkeypatch.setenv("GROOVE_HOME", str(home))
    _open_and_doctor(vault)  # warm up as root (the child imports nothing it cannot read)
    shutil.rmtree(home)
    opened, doctor = run_as_other(_open_and_doctor, vault)
    assert opened.startswith(f"FolderUnusable cannot create the folder {home} (Permission denied)"), opened
    assert "GROOVE_HOME" in opened
    assert doctor.startswith("False") and str(home) in doctor, doctor
    proc_home = Path("/proc/groove-test/home")
    for args in (("index", str(vault)), ("doctor", "--vault", str(vault))):
        r = subprocess.run([sys.executable, "-m", "groove", *args], capture_output=True, text=True, timeout=300,
                           env={**os.environ, "GROOVE_HOME": str(proc_home)})
        assert "Traceback" not in r.stderr, (args, r.stderr)
        assert "cannot create the folder /proc/groove-test" in r.stdout + r.stderr and r.returncode != 0, (args, r)
