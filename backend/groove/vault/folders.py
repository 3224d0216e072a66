"""The vault's file names, listed once and kept per directory while the
directory's mtime says nothing was added, removed or renamed in it.

A link to a note the index lacks (Obsidian's normal "dangling" link, or a
note the watcher has not reached yet) makes ``related_notes`` and the link
resolver list the notes on disk. At 8,000 notes that walk took ~35 ms a
call, a third of it one ``lstat`` per file to spot symlinks. Here a
directory is re-read only when its mtime moved (a name was added, removed or
renamed in it; edits to a file's content do not touch it), and the symlink
test comes from ``scandir``'s entry, which usually needs no system call.

A directory changed within ``RACY_NS`` of being read is read again next
time: a name added in the same clock tick as the read would leave its mtime
unchanged ("racy git").
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

RACY_NS = 2_000_000_000
MAX_VAULTS = 8  # listings kept, most recently used first


@dataclass(frozen=True)
class _Dir:
    mtime_ns: int
    trusted: bool  # read long enough after its last change for the mtime to vouch for it
    dirs: tuple[tuple[str, bool], ...]  # (name, is a symlink), sorted: os.walk's dirnames
    files: tuple[tuple[str, bool], ...]  # (name, is a symlink), sorted: os.walk's filenames


@dataclass(frozen=True)
class Listing:
    """One walk: each directory's prefix ('' or 'a/b/') and its files
    (name, is a symlink). ``stamp`` changes whenever a walk of this vault
    finds anything changed, and never comes back: what was made from a
    listing with the same stamp is still good."""

    dirs: list[tuple[str, tuple[tuple[str, bool], ...]]]
    stamp: int


_lock = threading.Lock()
_vaults: OrderedDict[str, tuple[int, dict[str, _Dir]]] = OrderedDict()  # vault -> (stamp, directories)
_stamps = 0  # the last stamp handed out, in any vault


def walk(vault: Path, skip_dir: Callable[[str], bool]) -> Listing:
    """Every file under ``vault``, in ``os.walk``'s top-down order with
    sorted names, not entering the directories ``skip_dir(rel)`` refuses
    nor symlinked ones (``os.walk`` without ``followlinks``). Unreadable
    directories are left out, as ``os.walk`` leaves them."""
    global _stamps
    key = str(vault)
    with _lock:
        stamp, cache = _vaults.pop(key) if key in _vaults else (0, {})
        out: list[tuple[str, tuple[tuple[str, bool], ...]]] = []
        same = _walk(vault, "", cache, skip_dir, out) and stamp > 0
        seen = {prefix for prefix, _ in out}
        for gone in cache.keys() - seen:  # deleted or now skipped: not held for nothing
            del cache[gone]
            same = False
        if not same:
            _stamps += 1
            stamp = _stamps
        _vaults[key] = (stamp, cache)
        while len(_vaults) > MAX_VAULTS:
            _vaults.popitem(last=False)
        return Listing(out, stamp)


def _walk(vault: Path, prefix: str, cache: dict[str, _Dir], skip_dir: Callable[[str], bool],
          out: list[tuple[str, tuple[tuple[str, bool], ...]]]) -> bool:
    """Appends this directory and those below, top-down (a stack, not
    recursion: a folder nested hundreds deep must not exhaust Python's
    stack, issue 50 R3); whether all came from ``cache``."""
    same = True
    stack: list[Iterator[str]] = [iter((prefix,))]
    while stack:
        here = next(stack[-1], None)
        if here is None:
            stack.pop()
            continue
        held = cache.get(here)
        d = _listed(vault / here if here else vault, here, cache)
        if d is None:
            same = same and held is None
            continue
        same = same and d is held
        out.append((here, d.files))
        stack.append(iter([here + name + "/" for name, link in d.dirs
                           if not link and not skip_dir(here + name)]))
    return same


def _listed(path: Path, prefix: str, cache: dict[str, _Dir]) -> _Dir | None:
    try:
        mtime = os.stat(path).st_mtime_ns
    except OSError:
        return None
    held = cache.get(prefix)
    if held is not None and held.trusted and held.mtime_ns == mtime:
        return held
    dirs: list[tuple[str, bool]] = []
    files: list[tuple[str, bool]] = []
    try:
        with os.scandir(path) as entries:
            for e in entries:
                try:
                    is_dir = e.is_dir()  # follows a symlink, as os.walk sorts its names
                except OSError:
                    is_dir = False
                try:
                    link = e.is_symlink()
                except OSError:
                    link = False
                (dirs if is_dir else files).append((e.name, link))
    except OSError:
        cache.pop(prefix, None)
        return None
    d = _Dir(mtime, time.time_ns() - mtime > RACY_NS, tuple(sorted(dirs)), tuple(sorted(files)))
    cache[prefix] = d
    return d
