"""The path gate (ADR 0050, 0091): what a client may read, decided in one
place for every surface (MCP tools, the note resource, the socket's note
methods).

``safe_path`` refuses any spelling that could name a file outside the vault
(``..``, absolute and UNC paths, drive letters, URLs, ``~``, NUL and control
characters, and the same after one or two rounds of URL-decoding), and a
path whose resolved target (symlinks followed) leaves the vault.

``check_readable`` then applies the indexer's own rules (``vault/scan.py``:
hidden and tool folders, hidden files, ``.grooveignore``, Obsidian's Excluded
files) to the file that
would be opened: as named, as the folders spell it on disk (another case or
Unicode normalisation reaches the same file on macOS and Windows), and where
its symlinks lead. What ``groove index`` leaves out, no client can read.
"""

from __future__ import annotations

import os
import posixpath
import re
import unicodedata
from pathlib import Path
from urllib.parse import unquote

from ..errors import ConfigError, InvalidArgument, NoteNotFound, PathOutsideVault, clip
from ..wire.bounds import MAX_PATH_CHARS
from .scan import IGNORE_FILE, LEFT_OUT_BY_RULES, OBSIDIAN_RULE, IgnoreRules, ignore_rules

NAME_MAX = 255  # bytes in one file name: ext4, APFS (in UTF-8), NTFS (in UTF-16 units, fewer)
MAX_PATH = MAX_PATH_CHARS

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
            raise PathOutsideVault(f"path {clip(repr(user_path), 200)} {why}; paths must stay inside the vault")
        decoded = unquote(spelling)
        if decoded == spelling:
            break
        spelling = decoded
    if "\x00" in raw:
        # Other control characters can be in a file name, and the indexer keeps such
        # notes (issue 15 D16); surfaces escape them when they print or log one.
        raise PathOutsideVault(f"path {clip(repr(user_path), 200)} contains a NUL character, which no file name can")
    rel = posixpath.normpath(raw.replace("\\", "/"))
    if rel in (".", "") or rel.startswith("../"):
        raise PathOutsideVault(f"path {clip(repr(user_path), 200)} does not name a note inside the vault")
    if len(rel) > MAX_PATH or any(len(part.encode("utf-8", "surrogatepass")) > NAME_MAX for part in rel.split("/")):
        # No such file can exist; asking the OS would be an error (ENAMETOOLONG), not an answer.
        raise NoteNotFound(f"no note {clip(rel, 200)!r}: a file name is at most {NAME_MAX} bytes, a path {MAX_PATH}")
    root = Path(vault).resolve()
    full = root / rel
    try:
        full.resolve().relative_to(root)
    except (ValueError, OSError, RuntimeError):  # RuntimeError: symlink loop
        raise PathOutsideVault(
            f"path {clip(repr(user_path), 200)} resolves outside the vault (a symlink pointing elsewhere?)"
        ) from None
    return full, rel


def _fold(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def on_disk_spelling(root: Path, rel: str) -> str:
    """``rel`` with each part spelled as its folder lists it: on a file system
    that ignores case or Unicode normalisation, 'PRIVATE/Diary.md' opens
    'private/diary.md', and the ignore rules must judge the latter. Parts
    that match nothing are kept as given."""
    out: list[str] = []
    here = root
    for part in rel.split("/"):
        try:
            names = os.listdir(here)
        except OSError:
            names = []
        if part not in names:
            same = sorted(n for n in names if _fold(n) == _fold(part))
            part = same[0] if same else part
        out.append(part)
        here = here / part
    return "/".join(out)


def read_rules(vault: Path) -> IgnoreRules:
    """The vault's ignore rules; a .grooveignore line pathspec cannot read is
    the vault's configuration problem, reported as such."""
    try:
        return ignore_rules(vault)
    except ValueError as e:  # pathspec's GitIgnorePatternError
        raise ConfigError(f"{IGNORE_FILE}: {e}; fix or remove that line") from e


def check_readable(vault: Path, full: Path, rel: str, rules: IgnoreRules | None = None) -> None:
    """Raise NoteNotFound when the indexer's rules leave out the file at
    ``full`` (``rel``, from ``safe_path``), under any spelling that reaches it:
    one rule for "is this note part of the vault" (``IgnoreRules.why_left_out``),
    asked of the name, of the name as the folders spell it, and of where its
    symlinks lead."""
    root = Path(vault).resolve()
    rules = rules or read_rules(root)
    names = [rel, on_disk_spelling(root, rel)]
    try:
        real = full.resolve().relative_to(root).as_posix()
    except (ValueError, OSError, RuntimeError):
        real = None
    if real and real != ".":
        names += [real, on_disk_spelling(root, real)]
    reasons = [why for n in dict.fromkeys(names) if (why := rules.why_left_out(n)) is not None]
    if not reasons:
        return
    named = next((r for r in reasons if r.startswith("excluded by " + OBSIDIAN_RULE)), None)
    if named is not None and LEFT_OUT_BY_RULES not in reasons:  # Obsidian's Excluded files, named (ADR 0190)
        raise NoteNotFound(f"'{rel}' is {named}, so it cannot be read")
    if LEFT_OUT_BY_RULES in reasons:  # the file itself is left out: that is the reason, however it was reached
        raise NoteNotFound(f"'{rel}' is left out of the index by the vault's rules (.grooveignore, hidden or tool "
                           "folders), so it cannot be read")
    why = reasons[0]
    if why.startswith("a path through") and real and not rules.skips(real):
        why += f"; read it as '{real}'"
    raise NoteNotFound(f"'{rel}' cannot be read: it is {why}")
