"""The path gate (ADR 0050): every path a client passes goes through
``safe_path`` before anything is opened, on every surface (MCP tools, the
note resource, the socket's note methods).

It refuses any spelling that could name a file outside the vault (``..``,
absolute and UNC paths, drive letters, URLs, ``~``, NUL and control
characters, and the same after one or two rounds of URL-decoding), and a
path whose resolved target (symlinks followed) leaves the vault.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

from ..errors import InvalidArgument, PathOutsideVault
from .scan import SKIP_DIRS

_DRIVE = re.compile(r"^[A-Za-z]:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
NOTE_URI_PREFIX = "groove://note/"


def _escape_reason(p: str) -> str | None:
    """Why ``p`` (one spelling of the user's path) could leave the vault, or None."""
    if "\x00" in p:
        return "contains a NUL byte"
    if p.startswith(("\\\\", "//")):
        return "is a UNC / network path"
    if _DRIVE.match(p):
        return "is an absolute Windows path (drive letter)"
    if _SCHEME.match(p):
        return "is a URL, not a vault-relative path"
    if p.startswith(("/", "\\")):
        return "is an absolute path"
    if p == "~" or p.startswith(("~/", "~\\")):
        return "starts with '~' (home folder), not a vault-relative path"
    if ".." in re.split(r"[\\/]", p):
        return "contains '..'"
    return None


def safe_path(vault: Path, user_path: str, *, param: str = "path") -> tuple[Path, str]:
    """Resolve a client-supplied, vault-relative path; refuse anything that
    could name a file outside ``vault``.

    Returns (absolute path inside the vault, vault-relative '/'-separated path).
    The relative path is the lexical one (a symlinked note inside the vault
    keeps the name the index knows it by); the check is on the fully resolved
    path, so a symlink pointing outside is refused.
    """
    if not isinstance(user_path, str):
        raise InvalidArgument(f"'{param}' must be a string, got {type(user_path).__name__}", param=param)
    raw = user_path.strip()
    if raw.startswith(NOTE_URI_PREFIX):
        raw = unquote(raw[len(NOTE_URI_PREFIX):])
    if not raw:
        raise InvalidArgument(f"'{param}' is empty; pass a vault-relative note path such as 'Folder/Note.md'",
                              param=param)
    # Check the path as given and as it would read after one or two rounds of
    # URL-decoding: a layer that decodes later must not turn it into an escape.
    spelling = raw
    for _ in range(3):
        why = _escape_reason(spelling)
        if why:
            raise PathOutsideVault(f"path {user_path!r} {why}; paths must stay inside the vault")
        decoded = unquote(spelling)
        if decoded == spelling:
            break
        spelling = decoded
    if any(unicodedata.category(c) == "Cc" for c in raw):
        raise PathOutsideVault(f"path {user_path!r} contains control characters")
    rel = posixpath.normpath(raw.replace("\\", "/"))
    if rel in (".", "") or rel.startswith("../"):
        raise PathOutsideVault(f"path {user_path!r} does not name a note inside the vault")
    root = Path(vault).resolve()
    full = root / rel
    try:
        full.resolve().relative_to(root)
    except (ValueError, OSError, RuntimeError):  # RuntimeError: symlink loop
        raise PathOutsideVault(
            f"path {user_path!r} resolves outside the vault (a symlink pointing elsewhere?)"
        ) from None
    return full, rel


def is_hidden(rel: str) -> bool:
    return any(part.startswith(".") or part in SKIP_DIRS for part in rel.split("/")[:-1])
