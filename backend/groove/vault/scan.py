"""Walk a vault: which files are notes, and which are skipped and why.

Only regular files are notes: a FIFO, socket or device named ``x.md`` would
block or never end a read (ADR 0094). A name that is not valid UTF-8 (a
Shift-JIS name from a Windows zip) is skipped with a reason that shows it
escaped and says how to rename it: no editor can open it by name either.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..paths import check_vault
from . import folders
from .rules import (  # noqa: F401 - the rules' names, as callers have always imported them from here
    IGNORE_FILE,
    LEFT_OUT_BY_RULES,
    LINK_LEAVES,
    LINK_TO_LEFT_OUT,
    OBSIDIAN_APP_FILE,
    OBSIDIAN_RULE,
    SKIP_DIRS,
    THROUGH_LINKED_FOLDER,
    IgnoreRules,
    ObsidianFilters,
    ignore_rules,
    obsidian_rule,
)

UNREADABLE = "unreadable (permission denied): not in search until it can be read"

# The files that are notes: Markdown, and Obsidian's JSON canvases (ADR 0195).
NOTE_SUFFIXES = (".md", ".canvas")


def is_note_name(name: str) -> bool:
    """A file name the vault's notes may have (hidden files are never notes)."""
    return name.lower().endswith(NOTE_SUFFIXES) and not name.startswith(".")


@dataclass(frozen=True)
class NoteFile:
    path: str  # vault-relative, '/' separators
    abspath: Path
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


def _stat_key(p: Path) -> tuple[int, int] | None:
    try:
        st = os.stat(p)
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def _inside(vault: Path, p: Path) -> bool:
    try:
        p.resolve().relative_to(vault)
        return True
    except (ValueError, OSError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return False


def shown_path(path: str) -> str:
    """``path`` as valid UTF-8: bytes that are not (kept by the OS as lone
    surrogates) become ``\\xNN``."""
    try:
        path.encode("utf-8")
        return path
    except UnicodeEncodeError:
        return os.fsencode(path).decode("utf-8", errors="backslashreplace")


def _guess_name(name: str) -> str:
    raw = os.fsencode(name)
    for codec, label in (("cp932", "Shift-JIS"), ("cp1252", "Windows-1252")):
        try:
            guess = raw.decode(codec)
        except UnicodeDecodeError:
            continue
        if guess.isprintable():
            return f" (as {label} it reads {guess!r}: e.g. `convmv -f {codec} -t utf-8 --notest FILE`)"
    return ""


def bad_name_reason(rel: str) -> str:
    bad = next(part for part in rel.split("/") if shown_path(part) != part)
    return (f"file name is not valid UTF-8{_guess_name(bad)}: not indexed, since "
            "no editor can open it by that name; rename it to UTF-8 and it is indexed on the next run")


_KINDS = ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"))


def not_regular_reason(mode: int) -> str | None:
    """Why a file of this st_mode is not read, or None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
    return f"{kind}, not a regular file: groove reads only regular files"


def read_regular_file(path: Path, max_bytes: int) -> tuple[bytes | None, os.stat_result | None, str | None]:
    """(bytes, stat at open, skip reason). Opened non-blocking and checked
    after open, so a file swapped for a FIFO since the scan cannot hang the
    read; at most ``max_bytes`` + 1 bytes are read."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None, None, "deleted while indexing"
    except PermissionError:
        return None, None, UNREADABLE
    except OSError as e:
        return None, None, _os_reason(e)
    try:
        st = os.fstat(fd)
        reason = not_regular_reason(st.st_mode)
        if reason:
            return None, st, reason
        if st.st_size > max_bytes:
            return None, st, None  # the caller words "too large"
        parts: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 20))
            if not b:
                break
            parts.append(b)
            left -= len(b)
        return b"".join(parts), st, None
    except OSError as e:
        return None, None, _os_reason(e)
    finally:
        os.close(fd)


def _os_reason(e: OSError) -> str:
    if e.errno == errno.ELOOP:
        return "symlink loop (not followed)"
    return f"unreadable ({e.strerror or e})"


def scan_vault(vault: Path) -> tuple[list[NoteFile], list[Skipped]]:
    """Every regular ``*.md`` and ``*.canvas`` file under the vault, except ignored ones;
    symlinks that leave the vault are not followed (a symlinked note inside
    the vault is fine)."""
    vault = check_vault(vault)
    rules = ignore_rules(vault)
    notes: list[NoteFile] = []
    skipped: list[Skipped] = []

    # Depth-first with a stack of open listings, in the order a recursive walk
    # had: a folder nested hundreds deep must not exhaust Python's stack
    # (issue 50 R3), and a folder that cannot be listed is skipped and named.
    stack = [_listing(vault, vault, skipped)]
    while stack:
        entry = next(stack[-1], None)
        if entry is None:
            stack.pop()
            continue
        p = Path(entry.path)
        rel = p.relative_to(vault).as_posix()
        is_note = is_note_name(entry.name)
        try:
            is_link = entry.is_symlink()
            if not is_link and not is_note:  # attachments: no stat call (d_type suffices)
                if entry.is_dir(follow_symlinks=False) and not rules.skips_dir(rel):
                    stack.append(_listing(vault, p, skipped))
                continue
            st = entry.stat()  # follows symlinks
        except OSError as e:
            if is_note:  # a dangling link or a loop
                skipped.append(Skipped(shown_path(rel), "broken symlink (its target does not exist)"
                                       if e.errno == errno.ENOENT else _os_reason(e)))
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        if is_link and not _inside(vault, p):
            if is_dir or is_note:
                skipped.append(Skipped(shown_path(rel), "symlink pointing outside the vault (not followed)"))
            continue
        if is_dir:
            # A link to a folder inside the vault would index its notes twice.
            if not is_link and not rules.skips_dir(rel):
                stack.append(_listing(vault, p, skipped))
            continue
        if not is_note:
            continue
        if rules.skips_file(rel):
            continue
        if is_link:
            # The target answers to the same rules: a link must not bring
            # a hidden or ignored note into search (issue 35 F1).
            why = rules.link_reason(rel)
            if why is not None:
                skipped.append(Skipped(shown_path(rel), why))
                continue
        if shown_path(rel) != rel:
            skipped.append(Skipped(shown_path(rel), bad_name_reason(rel)))
            continue
        reason = not_regular_reason(st.st_mode)
        if reason:
            skipped.append(Skipped(rel, reason))
            continue
        if not os.access(p, os.R_OK):
            # As a folder that cannot be read: its notes leave search. A stat
            # unchanged by chmod must not keep the old text searchable (ADR 0150).
            skipped.append(Skipped(rel, UNREADABLE))
            continue
        notes.append(NoteFile(rel, p, st.st_size, st.st_mtime_ns))
    return notes, skipped


def _listing(vault: Path, dirpath: Path, skipped: list[Skipped]) -> Iterator[os.DirEntry[str]]:
    """A folder's entries by name; an unreadable folder is skipped and said so."""
    try:
        with os.scandir(dirpath) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as e:
        rel = dirpath.relative_to(vault).as_posix()
        skipped.append(Skipped(shown_path(rel) or ".", f"folder unreadable: {e.strerror or e}"))
        return iter(())
    return iter(entries)


def other_files(vault: Path) -> list[str]:
    """Vault-relative paths of the files that are not notes (attachments,
    for link resolution), under the same rules as ``scan_vault``: skipped
    folders are not entered, symlinks leaving the vault are left out."""
    return _files(vault, notes=False)


def note_paths(vault: Path) -> list[str]:
    """Vault-relative paths of the notes on disk, indexed or not (links to a
    note the watcher has not reached yet resolve, as in Obsidian)."""
    return _files(vault, notes=True)


# The last answer of ``_files`` per (vault, notes or not), with what it was
# made from: the listing's stamp and the stats of .grooveignore and .obsidian/app.json.
_answers: dict[tuple[str, bool], tuple[tuple[int, object], list[str]]] = {}


def _files(vault: Path, *, notes: bool) -> list[str]:
    vault = check_vault(vault)
    rules = ignore_rules(vault)
    ignore = (_stat_key(vault / IGNORE_FILE), _stat_key(vault / OBSIDIAN_APP_FILE))
    # Names from the kept listing (vault/folders.py): a resolver asks on every
    # link the index cannot resolve, and a big vault's walk cost ~35 ms.
    found = folders.walk(vault, rules.skips_dir)
    key = (str(vault), notes)
    kept = _answers.get(key)
    if kept is not None and kept[0] == (found.stamp, ignore):
        return list(kept[1])
    out: list[str] = []
    for prefix, files in found.dirs:
        for f, link in files:
            rel = prefix + f
            if f.lower().endswith(NOTE_SUFFIXES) != notes or rules.skips_file(rel):
                continue
            if link and (not _inside(vault, vault / rel) or rules.link_reason(rel) is not None):
                continue
            out.append(rel)
    if len(_answers) >= 2 * folders.MAX_VAULTS:
        _answers.clear()
    _answers[key] = ((found.stamp, ignore), out)
    return list(out)


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
