"""Listing a big vault's notes, as a link the index cannot resolve makes
the resolver do (``related_notes``, ``get_document``'s links): the kept
listing of ``vault/folders.py`` against the walk it replaced.

    python bench/vault_listing.py [--notes 8000] [--repeat 15]

Writes a vault of N notes in 40 × 7 folders (a big vault's shape: ~8k notes
at 100k chunks), then times, interleaved: the old walk (``os.walk`` and an
``lstat`` per file for symlinks), ``note_paths`` with nothing kept (the
first call of a process) and ``note_paths`` again (nothing changed), and
``note_paths`` after a note was added (one folder read again). Prints each
as a ratio of the old walk.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import median, scratch_dir  # noqa: E402


def old_walk(vault: Path) -> list[str]:
    from groove.vault.scan import _inside, ignore_rules

    rules = ignore_rules(vault)
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(vault):
        rel_dir = Path(dirpath).relative_to(vault).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        dirnames[:] = sorted(d for d in dirnames if not rules.skips_dir(prefix + d))
        for f in sorted(filenames):
            rel = prefix + f
            if not f.lower().endswith(".md") or rules.skips_file(rel):
                continue
            if os.path.islink(os.path.join(dirpath, f)) and not _inside(vault, Path(dirpath) / f):
                continue
            out.append(rel)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--notes", type=int, default=8000)
    ap.add_argument("--repeat", type=int, default=15)
    a = ap.parse_args()

    from groove.vault import folders
    from groove.vault.scan import note_paths

    vault = (scratch_dir("groove-listing-") / "vault").resolve()
    for i in range(a.notes):
        d = vault / f"area {i % 40:02d}" / f"topic {i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"note {i}.md").write_text(f"# note {i}\n[[not written yet {i}]]\n", encoding="utf-8")
    past = time.time() - 60  # written a minute ago: old enough to be trusted
    for d, _, _ in os.walk(vault):
        os.utime(d, (past, past))

    def timed(fn) -> float:
        t = time.perf_counter()
        fn()
        return time.perf_counter() - t

    assert note_paths(vault) == old_walk(vault)
    old, cold, warm, added = [], [], [], []
    for i in range(a.repeat):
        old.append(timed(lambda: old_walk(vault)))
        folders._vaults.clear()
        cold.append(timed(lambda: note_paths(vault)))
        warm.append(timed(lambda: note_paths(vault)))
        folder = vault / f"area {i % 40:02d}" / "topic 0"
        (folder / f"added {i}.md").write_text("# added\n", encoding="utf-8")
        added.append(timed(lambda: note_paths(vault)))
        os.utime(folder, (past, past))  # as if a while ago: trusted again for the next round
    base = median(old)
    print(f"{a.notes} notes in {40 * 7} folders: the old walk {base * 1e3:.1f} ms; "
          f"first listing {median(cold) / base:.2f}x, unchanged {median(warm) / base:.2f}x, "
          f"after a note was added {median(added) / base:.2f}x of it")


if __name__ == "__main__":
    main()
