"""Which folders the watcher watches: the vault's own real folders, each
on its own (no recursive native watch, which follows symlinks out of the
vault; issue 50 R10, ADR 0238), and when a change of folders needs a new list."""

from __future__ import annotations

import os
from pathlib import Path

from ..vault.scan import SKIP_DIRS


def watched_folders(vault: Path) -> list[str]:
    """The folders to watch, each without its subfolders: the vault and every
    real folder under it, not entering hidden or tool folders (only
    ``.obsidian`` itself, for app.json) nor symlinked ones. A recursive
    native watch follows symlinks: ``ext -> /usr`` or ``loop -> .`` took
    15,744 inotify watches and sent index jobs for files outside the vault
    (issue 50 R10); a folder a symlink leads to inside the vault is watched
    as itself. Iterative: a folder nested hundreds deep is fine (R3)."""
    return real_folders(vault, top=True)


def real_folders(start: Path, *, top: bool = False) -> list[str]:
    """``start`` and the real, visible folders under it (a stack, not recursion)."""
    vault = start
    out = [str(start)]
    stack = [start]
    while stack:
        here = stack.pop()
        try:
            with os.scandir(here) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue  # unreadable: the scan reports it
        for e in entries:
            try:
                if e.is_symlink() or not e.is_dir(follow_symlinks=False):
                    continue
            except OSError:
                continue
            if top and here == vault and e.name == ".obsidian":
                out.append(e.path)
                continue
            if e.name in SKIP_DIRS or e.name.startswith("."):
                continue
            out.append(e.path)
            stack.append(Path(e.path))
    return out


def folders_moved(changes: set, watched: set[str]) -> bool:
    """Whether these events add a real folder not watched yet, or remove one that is."""
    import watchfiles

    for change, path in changes:
        if change == watchfiles.Change.deleted:
            if path in watched:
                return True
        elif path not in watched and os.path.isdir(path) and not os.path.islink(path):
            return True
    return False
