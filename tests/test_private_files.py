"""Private by default on disk (issue 15: D8, D17): the index (every note's
text), its WAL/SHM, the log and the runtime folder are not readable by
other local users, and a runtime folder someone else could control is
refused rather than used."""

from __future__ import annotations

import logging
import os
import stat
import tempfile
from pathlib import Path

import pytest

from groove import operations, paths
from groove.storage.db import Index
from helpers import make_runtime
from test_indexer import write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


def mode(p: Path) -> int:
    return stat.S_IMODE(os.lstat(p).st_mode)


@pytest.fixture
def loose_umask():
    old = os.umask(0o022)  # the usual default: files 0644, folders 0755
    yield
    os.umask(old)


def test_the_index_its_wal_and_shm_are_created_0600_in_0700_folders(tmp_path, tiny_embedder, groove_home, loose_umask):
    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\nsecret diary text\n")
    from groove.runtime import open_runtime

    rt = open_runtime(vault)  # the default location, under the data dir
    rt._embedder = tiny_embedder
    operations.reindex(rt)
    db = rt.index.path
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        assert p.exists() and mode(p) == 0o600, (p, oct(mode(p)))
    assert mode(db.parent) == 0o700 and mode(paths.data_dir()) == 0o700


def test_an_index_of_an_older_groove_readable_by_all_is_tightened_on_open(tmp_path, tiny_embedder, loose_umask):
    vault = tmp_path / "vault"
    write(vault, "a.md", "# A\n\ntext\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    db = rt.index.path
    rt.close()
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if p.exists():
            os.chmod(p, 0o644)
    Index(db).close()
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if p.exists():
            assert mode(p) == 0o600, p


def test_groove_folders_are_0700_and_an_open_one_is_tightened(groove_home, loose_umask):
    for make in (paths.data_dir, paths.log_dir, paths.config_dir, paths.runtime_dir):
        assert mode(make()) == 0o700, make
    os.chmod(groove_home / "log", 0o755)
    assert mode(paths.log_dir()) == 0o700
    # The indexes folder too: its file names name the vaults.
    indexes = paths.default_index_path(Path("/some/vault")).parent
    assert mode(indexes) == 0o700
    os.chmod(indexes, 0o755)
    paths.default_index_path(Path("/some/vault"))
    assert mode(indexes) == 0o700


def test_the_daemon_log_is_created_0600(groove_home, loose_umask):
    from groove.daemon import lifecycle

    log_file = paths.log_dir() / "v.log"
    lifecycle.setup_logging(foreground=False, log_file=log_file)
    try:
        logging.getLogger("groove").info("a line naming a note")
    finally:
        for h in list(logging.getLogger("groove").handlers):
            h.close()
            logging.getLogger("groove").removeHandler(h)
    assert mode(log_file) == 0o600 and "a line naming a note" in log_file.read_text()


def test_a_runtime_folder_that_is_a_symlink_is_refused(groove_home, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    os.symlink(elsewhere, groove_home / "run")
    with pytest.raises(paths.UnsafeFolder, match="is a symlink"):
        paths.runtime_dir()


def test_a_runtime_folder_inside_a_folder_others_can_write_is_refused(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # no sticky bit: anyone may rename what is inside
    monkeypatch.setenv("GROOVE_HOME", str(shared))
    with pytest.raises(paths.UnsafeFolder, match="writable by other users"):
        paths.runtime_dir()


def _tmp_fallback(monkeypatch, tmp: Path) -> Path | None:
    """Point the no-XDG_RUNTIME_DIR fallback at ``tmp``; None when
    platformdirs prefers another folder on this machine (/run/user/<uid>)."""
    monkeypatch.delenv("GROOVE_HOME", raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    base = tmp / f"runtime-{os.geteuid()}"
    import warnings

    import platformdirs

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            got = Path(platformdirs.user_runtime_dir("groove"))
        except PermissionError:
            return base
    return base if got.parent == base else None


def test_without_xdg_runtime_dir_the_tmp_fallback_is_made_private(tmp_path, monkeypatch):
    base = _tmp_fallback(monkeypatch, tmp_path)
    if base is None:
        pytest.skip("platformdirs uses /run/user/<uid> here, not the /tmp fallback")
    base.mkdir(mode=0o755)
    os.chmod(base, 0o755)  # made by an older groove with the default umask
    run = paths.runtime_dir()
    assert run.parent == base and mode(base) == 0o700 and mode(run) == 0o700


def test_a_tmp_fallback_made_by_another_user_is_refused(tmp_path, monkeypatch):
    base = _tmp_fallback(monkeypatch, tmp_path)
    if base is None:
        pytest.skip("platformdirs uses /run/user/<uid> here, not the /tmp fallback")
    if os.geteuid() != 0:
        # Without root nothing can be given to another user: stand in with a symlink to a folder of root's.
        os.symlink("/", base)
        with pytest.raises(paths.UnsafeFolder):
            paths.runtime_dir()
        return
    base.mkdir(mode=0o777)
    os.chmod(base, 0o777)
    os.chown(base, 65534, 65534)  # nobody pre-created it
    with pytest.raises(paths.UnsafeFolder, match="belongs to uid 65534|runtime"):
        paths.runtime_dir()
    assert not (base / "groove").exists(), "nothing may be created in a folder another user controls"
