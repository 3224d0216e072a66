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

from groove import paths, service
from groove.runtime import open_runtime
from helpers import run_groove, write_note

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
        service.reindex(rt)
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
            service.reindex(rt)
        assert SECRET.encode() not in planted.read_bytes()


def test_an_index_folder_others_can_write_is_refused(shared, vault):
    with pytest.raises(paths.UnsafeFolder, match="writable by other users"):
        open_runtime(vault, index_path=shared / "index.sqlite")


def test_a_groove_home_that_cannot_be_made_is_a_message(vault, world):
    """R13: a read-only parent (as an unprivileged user: root writes anyway)
    and a path under /proc; `groove doctor` reports it as a failed check."""
    readonly = world / "ro"
    readonly.mkdir()
    os.chmod(readonly, 0o555)
    code = ("import sys; from pathlib import Path; from groove.runtime import open_runtime\n"
            "try:\n    open_runtime(Path(sys.argv[1]))\n"
            "except Exception as e:\n    print(type(e).__name__, e)\n")
    env = {**os.environ, "GROOVE_HOME": str(readonly / "home")}
    o = _other()
    r = subprocess.run([sys.executable, "-c", code, str(vault)], capture_output=True, text=True, env=env,
                       user=o.pw_uid, group=o.pw_gid, timeout=60)
    assert r.stdout.startswith("FolderUnusable cannot create the folder"), r.stdout + r.stderr
    assert str(readonly / "home") in r.stdout and "GROOVE_HOME" in r.stdout
    for home in (readonly / "home", Path("/proc/groove-test/home")):
        env = {**os.environ, "GROOVE_HOME": str(home)}
        for args in (("index", str(vault)), ("doctor", "--vault", str(vault))):
            r = subprocess.run([sys.executable, "-m", "groove", *args], capture_output=True, text=True, env=env,
                               user=o.pw_uid, group=o.pw_gid, timeout=300)
            assert "Traceback" not in r.stderr, (args, r.stderr)
            assert str(home) in r.stdout + r.stderr and r.returncode != 0, (args, r.stdout, r.stderr)
