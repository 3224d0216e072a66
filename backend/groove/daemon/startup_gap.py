"""The gap at a daemon's start: the startup pass reads the vault while the
native watch is being registered, so a note made, changed or deleted after
the pass read it but before the watch was up has no event. Once both are
done, the watcher asks ``changed_since`` the pass began, and indexes that."""

from __future__ import annotations

import os
from pathlib import Path

from ..storage.db import Index
from ..vault.scan import content_hash, note_paths

CLOCK_SLACK_S = 2.0  # file times are this coarse on some file systems (FAT: 2 s)


def changed_since(vault: Path, index: Index, t0: float) -> set[str]:
    """Notes whose file (or link) changed at or after ``t0`` (inode change
    time: a write, a rename, or a modification time put back all set it)
    and whose bytes are not what the index holds, and indexed notes no
    longer on disk. Only the notes changed since ``t0`` are read."""
    on_disk = set(note_paths(vault))
    held = dict(index.conn.execute("SELECT path, content_hash FROM documents"))
    changed = set()
    for rel in on_disk:
        p = vault / rel
        try:
            times = [os.lstat(p).st_ctime]
            if p.is_symlink():
                times.append(os.stat(p).st_ctime)
            if max(times) >= t0 and content_hash(p.read_bytes()) != held.get(rel):
                changed.add(rel)
        except OSError:
            changed.add(rel)  # gone or unreadable since it was listed: the job decides
    return changed | (set(held) - on_disk)
