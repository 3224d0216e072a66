"""Where groove keeps things: models, indexes, runtime sockets, logs, config.

Everything hangs off platformdirs, except that ``GROOVE_HOME`` (used by the
tests, and by anyone who wants a self-contained install) moves all of it
under one folder.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

import platformdirs

APP = "groove"


def _home() -> Path | None:
    home = os.environ.get("GROOVE_HOME")
    return Path(home).expanduser() if home else None


def _dir(kind: str, default: str) -> Path:
    home = _home()
    path = home / kind if home else Path(default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir() -> Path:
    return _dir("data", platformdirs.user_data_dir(APP))


def models_dir() -> Path:
    home = _home()
    path = home / "models" if home else Path(platformdirs.user_data_dir(APP)) / "models"
    env = os.environ.get("GROOVE_MODELS_DIR")
    if env:
        path = Path(env).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def config_dir() -> Path:
    return _dir("config", platformdirs.user_config_dir(APP))


def log_dir() -> Path:
    return _dir("log", platformdirs.user_log_dir(APP))


def runtime_dir() -> Path:
    """Private (0700) folder for sockets, pid files and state files."""
    home = _home()
    if home:
        path = home / "run"
    else:
        # Without XDG_RUNTIME_DIR (headless Linux, CI) platformdirs falls back
        # to /tmp/runtime-<uid> and warns on every call; the fallback is fine
        # (we chmod it 0700 below), the warning is noise.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            path = Path(platformdirs.user_runtime_dir(APP))
    path.mkdir(parents=True, exist_ok=True)
    try:
        os.chmod(path, 0o700)
    except OSError:
        pass
    return path


def vault_key(vault: Path) -> str:
    """A short stable key for a vault, from its real path."""
    real = str(Path(vault).resolve())
    stem = Path(real).name or "vault"
    digest = hashlib.sha256(real.encode("utf-8")).hexdigest()[:12]
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in stem)[:40]
    return f"{safe}-{digest}"


def default_index_path(vault: Path) -> Path:
    return data_dir() / "indexes" / f"{vault_key(vault)}.sqlite"
