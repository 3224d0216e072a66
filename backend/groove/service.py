"""One function per operation, shared by the CLI, the MCP server and the
socket daemon: a Runtime and plain parameters in, plain results out.

Note reading, related notes and link resolution live in ``notes.py``.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from . import __version__
from .indexer import IndexSummary, index_vault
from .pipeline import SearchParams, run_search
from .runtime import Runtime
from .types import SearchResponse
from .vault.scan import scan_vault

MAX_LIMIT = 50
MAX_SKIPPED_LISTED = 100  # index_status lists this many skipped notes; skipped_count has them all

_reindex_lock = threading.Lock()
_reindex_state: dict[int, dict[str, Any]] = {}  # id(runtime) -> latest progress


def search(rt: Runtime, params: SearchParams, *, max_limit: int | None = MAX_LIMIT) -> SearchResponse:
    return run_search(rt, params, max_limit=max_limit)


def reindex(
    rt: Runtime,
    *,
    force: bool = False,
    only: set[str] | None = None,
    progress: Callable[[dict], None] | None = None,
) -> IndexSummary:
    """Incremental by default; ``force`` re-embeds everything."""
    key = id(rt)

    def track(ev: dict) -> None:
        _reindex_state[key] = ev
        if progress:
            progress(ev)

    with _reindex_lock:
        _reindex_state[key] = {"phase": "scan", "done": 0, "total": 0}
        try:
            return index_vault(
                rt.vault, rt.index, rt.embedder, rt.config.index, rebuild=force, only=only, progress=track
            )
        finally:
            _reindex_state.pop(key, None)


def index_status(rt: Runtime) -> dict[str, Any]:
    idx = rt.index
    # Read "is a job running" before the counts: a report that says idle must
    # not carry counts read while the last job was still committing.
    progress = _reindex_state.get(id(rt))
    docs, chunks = idx.counts()
    info = idx.embedder_info() or {}
    docs_known = {p: (s, m) for p, s, m in idx.conn.execute("SELECT path, size, mtime_ns FROM documents")}
    # A note skipped with its stat recorded is not stale while that stat holds.
    known = {p: (s, m) for p, s, m in idx.conn.execute(
        "SELECT path, size, mtime_ns FROM skipped WHERE size IS NOT NULL")}
    known.update(docs_known)
    stale = 0
    try:
        files, _ = scan_vault(rt.vault)
        present = set()
        for f in files:
            present.add(f.path)
            if known.get(f.path) != (f.size, f.mtime_ns):
                stale += 1
        stale += sum(1 for p in docs_known if p not in present)
    except Exception:
        stale = -1
    last = idx.get_meta("last_indexed")
    skipped = idx.conn.execute(
        "SELECT path, reason FROM skipped ORDER BY path LIMIT ?", (MAX_SKIPPED_LISTED,)).fetchall()
    skipped_count = idx.conn.execute("SELECT count(*) FROM skipped").fetchone()[0]
    return {
        "vault": str(rt.vault),
        "index_path": str(idx.path),
        "documents": docs,
        "chunks": chunks,
        "model": info.get("model_id"),
        "dim": info.get("dim"),
        "last_indexed": float(last) if last else None,
        "last_indexed_iso": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(float(last))) if last else None,
        "stale_files": stale,
        "skipped": [{"path": p, "reason": r} for p, r in skipped],
        "skipped_count": skipped_count,
        "indexing": progress is not None,
        "progress": progress,
        "model_load_seconds": rt.model_load_seconds,
        "groove_version": __version__,
    }
