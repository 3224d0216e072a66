"""Searches never fail while notes change (issue 15 D4): several socket
clients search while a writer creates, edits, deletes and renames notes and
the daemon's watcher reindexes them. Every search reads one snapshot of the
index (``Index.snapshot``), so no leg can see a chunk another leg or the
final fetch no longer finds.

GROOVE_CHURN_SECONDS / GROOVE_CHURN_CLIENTS scale it up for the closing
measurement (8 clients x 500 searches); the suite runs a short version.
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

from groove.daemon.protocol import RpcError
from groove.errors import GrooveError

from .conftest import poll

SECONDS = float(os.environ.get("GROOVE_CHURN_SECONDS", "8"))
CLIENTS = int(os.environ.get("GROOVE_CHURN_CLIENTS", "4"))
QUERIES = ["coffee", "tea garden", "python code", "travel japan", "bread recipe ideas", "meeting notes plans",
           "music books", "note about the day", "details links", "churn edit"]
# Each option set drives a different read path: the legs only, the parent
# retriever (reads whole notes), MMR (reads vectors), a folder restriction.
OPTIONS: list[dict] = [{}, {"parent_retriever": True}, {"mmr": True, "limit": 20}, {"path_globs": ["journal/**"]},
                       {"limit": 50}]


def _writer(vault: Path, stop: threading.Event, ops: list[str], seed: int) -> None:
    rnd = random.Random(seed)
    n = 0
    while not stop.is_set():
        notes = sorted(vault.rglob("*.md"))
        op = rnd.choice(["create", "edit", "edit", "delete", "rename"])
        try:
            if op == "create" or len(notes) < 10:
                n += 1
                folder = vault / rnd.choice(["journal", "projects", "churn"])
                folder.mkdir(exist_ok=True)
                (folder / f"churn{seed}-{n}.md").write_text(
                    f"# Churn {n}\n\nchurn edit {rnd.choice(QUERIES)}\n\n## More\n\n{rnd.choice(QUERIES)} " * 3,
                    encoding="utf-8")
            elif op == "edit":
                p = rnd.choice(notes)
                p.write_text(p.read_text(encoding="utf-8") + f"\n\nchurn edit {rnd.choice(QUERIES)} {n}\n",
                             encoding="utf-8")
            elif op == "delete":
                rnd.choice(notes).unlink()
            else:
                p = rnd.choice(notes)
                os.replace(p, p.with_name(f"renamed-{n}-{p.name}"))
                n += 1
            ops.append(op)
        except FileNotFoundError:
            pass  # raced with our own earlier rename; the next round picks afresh
        stop.wait(rnd.uniform(0.05, 0.25))


def _searcher(daemon, stop: threading.Event, seed: int, out: dict) -> None:
    rnd = random.Random(seed)
    with daemon.client(f"churn-{seed}") as c:
        while not stop.is_set():
            q, opts = rnd.choice(QUERIES), rnd.choice(OPTIONS)
            try:
                res = c.search(q, **opts)
            except (GrooveError, RpcError, TimeoutError, OSError) as e:  # any failed search counts
                out["errors"].append(f"{q!r} {opts}: {e}")
            else:
                out["searches"] += 1
                out["hits"] += len(res["results"])


def test_searches_while_notes_are_created_edited_deleted_and_renamed_never_fail(spawn):
    d = spawn(n=40)
    vault = d.vault
    with d.client("churn-setup") as c:
        d.wait_idle(c)
    stop = threading.Event()
    ops: list[str] = []
    results = [{"errors": [], "searches": 0, "hits": 0} for _ in range(CLIENTS)]
    threads = [threading.Thread(target=_writer, args=(vault, stop, ops, 1))]
    threads += [threading.Thread(target=_searcher, args=(d, stop, 100 + i, results[i])) for i in range(CLIENTS)]
    for t in threads:
        t.start()
    time.sleep(SECONDS)
    stop.set()
    for t in threads:
        t.join(60)
    errors = [e for r in results for e in r["errors"]]
    searches = sum(r["searches"] for r in results)
    print(f"churn: {searches} searches by {CLIENTS} clients during {len(ops)} changes, {len(errors)} errors")
    assert not errors, errors[:5]
    assert len(ops) >= SECONDS * 2 and searches >= CLIENTS * 5, (len(ops), searches)

    # Once the watcher has caught up (the last change may not have reached it
    # yet: wait for the index to match the disk), no hit names a note that is gone.
    with d.client("churn-check") as c:
        poll(lambda: (st := c.index_status())["stale_files"] == 0 and not st["indexing"], 60, "the watcher to catch up")
        on_disk = {p.relative_to(vault).as_posix() for p in vault.rglob("*.md")}
        for q in QUERIES:
            for opts in OPTIONS:
                for h in c.search(q, **opts)["results"]:
                    assert h["path"] in on_disk, (q, opts, h["path"])
        assert c.index_status()["documents"] == len(on_disk)
