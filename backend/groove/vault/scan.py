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


@dataclass(frozen=True)
class IgnoreRules:
    """What the walk leaves out, as predicates on vault-relative '/' paths:
    hidden and tool folders, hidden files, and ``.grooveignore`` patterns.
    The walk below and the read gate (vault/gate.py) both ask these."""

    spec: pathspec.GitIgnoreSpec | None

    def skips_dir(self, rel: str) -> bool:
        name = rel.rsplit("/", 1)[-1]
        return name in SKIP_DIRS or name.startswith(".") or bool(self.spec and self.spec.match_file(rel + "/"))

    def skips_file(self, rel: str) -> bool:
        return rel.rsplit("/", 1)[-1].startswith(".") or bool(self.spec and self.spec.match_file(rel))

    def skips(self, rel: str) -> bool:
        """The walk never reaches or never takes the file at ``rel``."""
        parts = rel.split("/")
        return any(self.skips_dir("/".join(parts[:i])) for i in range(1, len(parts))) or self.skips_file(rel)


def ignore_rules(vault: Path) -> IgnoreRules:
    return IgnoreRules(_ignore_spec(vault))


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
    rules = ignore_rules(vault)
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
                if is_link:
                    continue  # a link to a folder inside the vault would be indexed twice
                if rules.skips_dir(rel):
                    continue
                walk(p)
                continue
            if not entry.name.lower().endswith(".md") or rules.skips_file(rel):
                continue
            try:
                st = p.stat()
            except OSError as e:
                skipped.append(Skipped(rel, f"unreadable: {e.strerror}"))
                continue
            notes.append(NoteFile(rel, p, st.st_size, st.st_mtime_ns))

    walk(vault)
    return notes, skipped


def other_files(vault: Path) -> list[str]:
    """Vault-relative paths of the files that are not notes (attachments,
    for link resolution), under the same rules as ``scan_vault``: skipped
    folders are not entered, symlinks leaving the vault are left out."""
    vault = check_vault(vault)
    rules = ignore_rules(vault)
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(vault):
        rel_dir = Path(dirpath).relative_to(vault).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if not rules.skips_dir(prefix + d))
        for f in sorted(filenames):
            rel = prefix + f
            if f.lower().endswith(".md") or rules.skips_file(rel):
                continue
            if os.path.islink(os.path.join(dirpath, f)) and not _inside(vault, Path(dirpath) / f):
                continue
            out.append(rel)
    return out


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
