"""Where groove keeps things: models, indexes, runtime sockets, logs, config.

Everything hangs off platformdirs, except that ``GROOVE_HOME`` (used by the
tests, and by anyone who wants a self-contained install) moves all of it
under one folder.

Private by default (ADR 0095): the index holds every note's text, the log
names notes, the runtime folder holds the socket and token. Folders groove
creates are 0700 and groove's own folders are tightened to 0700 when found
looser; files are created 0600 where they are made (storage/db.py, the
daemon). The runtime folder is verified, not trusted: owned by this user,
not a symlink, 0700 — else groove refuses to put a socket there.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import warnings
from pathlib import Path

import platformdirs

from .errors import GrooveError, VaultError

APP = "groove"
POSIX = os.name == "posix"


class UnsafeFolder(GrooveError):
    """A folder groove must keep private is owned by someone else, is a
    symlink, or cannot be made 0700."""


class FolderUnusable(GrooveError):
    """A folder groove needs cannot be created or is not a folder (a
    read-only parent, a path under /proc, a file in its place)."""


def make_private_dirs(path: Path) -> None:
    """Create ``path`` and its missing parents 0700; existing ones are left as
    they are. A folder that cannot be made is a FolderUnusable naming it."""
    path = Path(path)
    missing: list[Path] = []
    p = path
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            os.mkdir(d, 0o700)
        except FileExistsError:
            pass
        except OSError as e:
            raise FolderUnusable(
                f"cannot create the folder {d} ({e.strerror}): groove keeps its index, models and socket under "
                f"{path}; make {d.parent} writable, or set GROOVE_HOME to a folder you can write") from e
    if not path.is_dir():
        raise FolderUnusable(f"{path} is not a folder: groove needs a folder there; move the file away, "
                             "or set GROOVE_HOME to another folder")


def tighten_dir(path: Path) -> None:
    """0700 for a folder of groove's own that is open to others (made by an
    older groove, or under a loose umask)."""
    _tighten(path, 0o700)


def tighten_file(path: Path) -> None:
    """0600 for a file of groove's own that others can read or write."""
    _tighten(path, 0o600)


def _tighten(path: Path, mode: int) -> None:
    if not POSIX:
        return
    try:
        st = os.lstat(path)
    except OSError:
        return
    if stat.S_ISLNK(st.st_mode) or st.st_uid != os.geteuid() or not st.st_mode & 0o077:
        return
    with contextlib.suppress(OSError):
        os.chmod(path, stat.S_IMODE(st.st_mode) & mode)


def _home() -> Path | None:
    home = os.environ.get("GROOVE_HOME")
    return Path(home).expanduser() if home else None


def _checked_home() -> Path | None:
    """``GROOVE_HOME``, created if missing and verified: every folder groove
    keeps notes in hangs off it, so one made first by another user (or open
    to others' writes) would hand them the index (issue 50 R12)."""
    home = _home()
    if home is None:
        return None
    make_private_dirs(home)
    problem = parent_problem(home) if POSIX else None
    if problem:
        raise UnsafeFolder(f"GROOVE_HOME {home} {problem}: another user could read or replace groove's index "
                           "(every note's text) there. Set GROOVE_HOME to a folder you own that others cannot "
                           "write (mkdir -m 700), or remove this one if it is not yours")
    return home


def _own_dir(path: Path) -> Path:
    """One of groove's own folders (index, log, config, models): created 0700,
    tightened when looser, and refused when another user owns it."""
    make_private_dirs(path)
    tighten_dir(path)
    problem = own_dir_problem(path)
    if problem:
        raise UnsafeFolder(f"groove's folder {path} {problem}: another user could read the notes groove keeps "
                           "there. Remove it (or ask its owner to), or set GROOVE_HOME to a folder you own")
    return path


def own_dir_problem(path: Path) -> str | None:
    """What lets another user into one of groove's own folders; None if nothing."""
    if not POSIX:
        return None
    try:
        st = os.stat(path)  # a symlinked folder of the user's is common; its target counts
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    return _foreign(st, "is writable by other users and cannot be made private")


def private_file_problem(path: Path) -> str | None:
    """What lets another user read or write a file of groove's (the index,
    its WAL and shared memory) after tightening it; None if fine or absent."""
    if not POSIX:
        return None
    tighten_file(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    return _foreign(st, "is writable by other users")


def _foreign(st: os.stat_result, writable: str) -> str | None:
    """Another user's, or open to others' writes: what lets them in; None if neither."""
    if st.st_uid != os.geteuid():
        return f"belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})"
    if st.st_mode & 0o022:
        return f"{writable} (mode {stat.S_IMODE(st.st_mode):o})"
    return None


def _dir(kind: str, default: str) -> Path:
    home = _checked_home()
    return _own_dir(home / kind if home else Path(default))


def data_dir() -> Path:
    return _dir("data", platformdirs.user_data_dir(APP))


def models_dir() -> Path:
    env = os.environ.get("GROOVE_MODELS_DIR")
    if env:  # the user's own folder: created if missing, never chmod-ed
        path = Path(env).expanduser()
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise FolderUnusable(f"cannot create GROOVE_MODELS_DIR {path} ({e.strerror}): point it at a folder "
                                 "you can write") from e
        return path
    home = _checked_home()
    return _own_dir(home / "models" if home else Path(platformdirs.user_data_dir(APP)) / "models")


def config_dir() -> Path:
    return _dir("config", platformdirs.user_config_dir(APP))


def log_dir() -> Path:
    return _dir("log", platformdirs.user_log_dir(APP))


def runtime_dir() -> Path:
    """Private (0700) folder for sockets, pid files and state files."""
    home = _checked_home()
    if home:
        path = home / "run"
    else:
        try:
            # Without XDG_RUNTIME_DIR (headless Linux, CI) platformdirs falls
            # back to /tmp/runtime-<uid> and warns on every call: the fallback
            # is verified below, the warning is noise.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                path = Path(platformdirs.user_runtime_dir(APP))
        except PermissionError as e:  # newer platformdirs verify the fallback themselves
            raise UnsafeFolder(f"no private runtime folder for groove's socket ({e}); set XDG_RUNTIME_DIR to "
                               "a folder you own with mode 0700") from e
    if not POSIX:  # pragma: no cover - Windows: per-user folders, no modes
        path.mkdir(parents=True, exist_ok=True)
        return path
    base = path.parent
    if base.name == f"runtime-{os.geteuid()}":
        # platformdirs' /tmp/runtime-<uid>: a predictable name in a
        # world-writable folder, which another user may have made first.
        _private_runtime_dir(base)
    else:
        problem = parent_problem(base)
        if problem:
            raise UnsafeFolder(f"the folder {base} {problem}: groove will not put its socket in it (another user "
                               "could replace it). Set XDG_RUNTIME_DIR (or GROOVE_HOME) to a folder you own")
    return _private_runtime_dir(path)


def parent_problem(path: Path) -> str | None:
    """What lets another user replace entries of ``path``; None if nothing."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"cannot be read ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        st = os.stat(path)  # a symlinked home is common; what counts is the folder it names
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid not in (os.geteuid(), 0):
        return f"belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})"
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        return f"is writable by other users (mode {stat.S_IMODE(st.st_mode):o}, no sticky bit)"
    return None


def _private_runtime_dir(path: Path) -> Path:
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    problem = runtime_dir_problem(path)
    if problem:
        raise UnsafeFolder(
            f"the runtime folder {path} {problem}: groove will not put its socket there (another user could "
            f"replace it). Remove it if it is stale, or set XDG_RUNTIME_DIR to a folder you own with mode 0700"
        )
    return path


def runtime_dir_problem(path: Path) -> str | None:
    """What makes ``path`` unfit for a socket, after trying to make it 0700; None if fine."""
    try:
        st = os.lstat(path)
    except OSError as e:
        return f"cannot be created or read ({e.strerror})"
    if stat.S_ISLNK(st.st_mode):
        return "is a symlink"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a folder"
    if st.st_uid != os.geteuid():
        return f"belongs to uid {st.st_uid}, not to you (uid {os.geteuid()})"
    if st.st_mode & 0o077:
        with contextlib.suppress(OSError):
            os.chmod(path, 0o700)
        mode = stat.S_IMODE(os.lstat(path).st_mode)
        if mode & 0o077:
            return f"cannot be made private (mode {mode:o}, chmod 0700 failed)"
    return None


def vault_key(vault: Path) -> str:
    """A short stable key for a vault, from its real path."""
    real = str(Path(vault).resolve())
    stem = Path(real).name or "vault"
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:12]  # == UTF-8 for UTF-8 paths
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:40]
    return f"{safe}-{digest}"


def default_index_path(vault: Path) -> Path:
    # groove's own folder: 0700 like data_dir (its file names name the vaults).
    return _own_dir(data_dir() / "indexes") / f"{vault_key(vault)}.sqlite"


def check_vault(vault: Path) -> Path:
    """The vault folder, resolved; a clear error when it is missing or a file."""
    vault = Path(vault).expanduser()
    if not vault.exists():
        raise VaultError(f"vault not found: {vault} (pass an existing folder, e.g. groove index ~/Notes)")
    if not vault.is_dir():
        raise VaultError(f"vault is not a folder: {vault}")
    return vault.resolve()
