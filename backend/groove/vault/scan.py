"""Walk a vault: which files are notes, and which are skipped and why."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import pathspec

from ..errors import VaultError

# Folders that are never notes. Hidden folders (".anything") are skipped too.
SKIP_DIRS = {".obsidian", ".trash", ".git", "node_modules"}
IGNORE_FILE = ".grooveignore"


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


def check_vault(vault: Path) -> Path:
    vault = Path(vault).expanduser()
    if not vault.exists():
        raise VaultError(f"vault not found: {vault} (pass an existing folder, e.g. groove index ~/Notes)")
    if not vault.is_dir():
        raise VaultError(f"vault is not a folder: {vault}")
    return vault.resolve()


def _ignore_spec(vault: Path) -> pathspec.GitIgnoreSpec | None:
    f = vault / IGNORE_FILE
    if not f.is_file():
        return None
    lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _inside(vault: Path, p: Path) -> bool:
    try:
        p.resolve().relative_to(vault)
        return True
    except (ValueError, OSError):
        return False


def scan_vault(vault: Path) -> tuple[list[NoteFile], list[Skipped]]:
    """Every ``*.md`` under the vault, except ignored ones; symlinks that leave
    the vault are not followed (a symlinked note inside the vault is fine)."""
    vault = check_vault(vault)
    spec = _ignore_spec(vault)
    notes: list[NoteFile] = []
    skipped: list[Skipped] = []

    def walk(dirpath: Path) -> None:
        try:
            entries = sorted(os.scandir(dirpath), key=lambda e: e.name)
        except OSError as e:
            rel = dirpath.relative_to(vault).as_posix()
            skipped.append(Skipped(rel or ".", f"folder unreadable: {e.strerror}"))
            return
        for entry in entries:
            p = Path(entry.path)
            rel = p.relative_to(vault).as_posix()
            try:
                is_link = entry.is_symlink()
                is_dir = entry.is_dir()  # follows symlinks
            except OSError:
                continue
            if is_link and not _inside(vault, p):
                if is_dir or entry.name.endswith(".md"):
                    skipped.append(Skipped(rel, "symlink pointing outside the vault (not followed)"))
                continue
            if is_dir:
                if entry.name in SKIP_DIRS or entry.name.startswith("."):
                    continue
                if is_link:
                    continue  # a link to a folder inside the vault would be indexed twice
                if spec and spec.match_file(rel + "/"):
                    continue
                walk(p)
                continue
            if not entry.name.lower().endswith(".md") or entry.name.startswith("."):
                continue
            if spec and spec.match_file(rel):
                continue
            try:
                st = p.stat()
            except OSError as e:
                skipped.append(Skipped(rel, f"unreadable: {e.strerror}"))
                continue
            notes.append(NoteFile(rel, p, st.st_size, st.st_mtime_ns))

    walk(vault)
    return notes, skipped


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
