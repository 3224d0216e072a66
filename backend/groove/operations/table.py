"""The operation table (``OPERATIONS``, ``call``) and the operations on
the index itself: ``search``, ``reindex`` and ``index_status``, also as typed
Python functions for the CLI, eval and tests. See the package's docstring
for the others and for adding one.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from .. import __version__
from ..errors import GrooveError, InvalidArgument
from ..index import calibration
from ..indexer import IndexSummary, index_vault
from ..pipeline import SearchParams, run_search
from ..runtime import Runtime
from ..storage.sentences import SentenceVectors
from ..storage.store import all_docs, skipped_notes
from ..vault.gate import safe_path
from ..vault.scan import IgnoreRules, ignore_rules, scan_vault
from ..wire import bounds
from ..wire.note_types import NotePage
from ..wire.search import SearchResponse
from ..wire.status_types import ExclusionSource, IndexProgress, IndexStatus, ReindexSummary, WhyExcluded
from . import browse, notes, related, unlinked

log = logging.getLogger("groove.operations")

MAX_LIMIT = bounds.MAX_LIMIT  # search hits per request: the CLI, the daemon and MCP alike
MAX_SKIPPED_LISTED = 100  # index_status lists this many skipped notes; skipped_count has them all
MAX_STALE_LISTED = 100  # and this many changed notes; stale_files counts them all

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


def _why(rt: Runtime, rules: IgnoreRules | None, path: str) -> WhyExcluded:
    """Which rule leaves the note at ``path`` out (ADR 0190); null when none does."""
    _, rel = safe_path(rt.vault, path, param="why")
    if rules is None:
        return {"path": rel, "excluded_by": None}
    return {"path": rel, "excluded_by": rules.rule_for(rel) or rules.why_left_out(rel)}


def index_status(rt: Runtime, why: str | None = None) -> IndexStatus:
    idx = rt.index
    # Read "is a job running" before the counts: a report that says idle must
    # not carry counts read while the last job was still committing.
    progress = cast("IndexProgress | None", _reindex_state.get(id(rt)))  # the indexer's events are IndexProgress
    docs, chunks = idx.counts()
    info = idx.embedder_info() or {}
    skips = skipped_notes(idx)
    known = {p: (r.size, r.mtime_ns) for p, r in skips.items() if r.size is not None}
    # A note skipped with its stat recorded is not stale while that stat holds.
    docs_known = {p: (d.size, d.mtime_ns) for p, d in all_docs(idx).items()}
    known.update(docs_known)
    stale: int | None = 0
    stale_paths: list[str] = []
    warnings: list[str] = []
    exclusions: list[ExclusionSource] = []
    rules: IgnoreRules | None = None
    try:
        rules = ignore_rules(rt.vault)
        exclusions = rules.sources()
        warnings += list(rules.warnings)
        files, _ = scan_vault(rt.vault)
    except (OSError, ValueError, GrooveError) as e:  # the folder went away
        stale = None
        warnings.append(f"could not scan the vault to count changed files: {e}")
    except Exception as e:  # noqa: BLE001 - a bug in the scan must cost the stale count, not the status
        log.exception("index_status: the vault scan failed")
        stale = None
        warnings.append(f"could not scan the vault to count changed files ({type(e).__name__}: {e}); "
                        "the counts above still hold")
    else:
        present = set()
        for f in files:
            present.add(f.path)
            if known.get(f.path) != (f.size, f.mtime_ns):
                stale_paths.append(f.path)
        stale_paths += [p for p in docs_known if p not in present]
        stale = len(stale_paths)
    last = idx.get_meta("last_indexed")
    out: IndexStatus = {
        "vault": str(rt.vault),
        "index_path": str(idx.path),
        "documents": docs,
        "chunks": chunks,
        "model": info.get("model_id"),
        "dim": info.get("dim"),
        "last_indexed": float(last) if last else None,
        "last_indexed_iso": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(float(last))) if last else None,
        "stale_files": stale,
        "stale_paths": sorted(stale_paths)[:MAX_STALE_LISTED],  # new, changed or deleted notes, the first ones
        "skipped": [{"path": r.path, "reason": r.reason} for r in list(skips.values())[:MAX_SKIPPED_LISTED]],
        "skipped_count": len(skips),
        "indexing": progress is not None,
        "progress": progress,
        "model_load_seconds": rt.model_load_seconds,
        "groove_version": __version__,
        "warnings": warnings,
        "exclusions": exclusions,  # the rules that leave notes out, with their entry counts (ADR 0190)
        "low_confidence": calibration.status(idx),  # which rule searches use (ADR 0103)
        "word_index": idx.words.status(idx.conn),  # big vaults' full-text ranking in memory (ADR 0132)
        "vector_copy": idx.vectors.status(idx.conn),  # big vaults' vectors in memory (ADR 0121, 0134)
        "answer_vectors": {"stored": SentenceVectors(idx, info["model_id"]).count() if info.get("model_id") else 0},
    }
    if why is not None:
        out["why"] = _why(rt, rules, why)
    return out


# ----------------------------------------------------------------------------- the table


def _search(rt: Runtime, **params: Any) -> dict[str, Any]:
    return search(rt, SearchParams.from_json(params)).to_json()


def _reindex(rt: Runtime, *, force: bool = False, progress: Callable[[dict], None] | None = None) -> ReindexSummary:
    return reindex(rt, force=bool(force), progress=progress).to_json()


def _list_notes(rt: Runtime, *, sort: str = "path", offset: int = 0, limit: int = 50, **where: Any) -> NotePage:
    return browse.list_notes(rt, browse.NoteFilter(sort=sort, offset=offset, limit=limit, **where))


@dataclass(frozen=True)
class Operation:
    fn: Callable[..., Any]  # fn(runtime, **params) -> the result's JSON
    summary: str
    cancellable: bool = False  # a pending call may be dropped (socket `cancel`)


OPERATIONS: dict[str, Operation] = {
    "search": Operation(_search, "hybrid search; SearchParams in, SearchResponse out", cancellable=True),
    "get_document": Operation(notes.get_document, "a note's text (whole, a line range or a heading section)"),
    "related_notes": Operation(related.related_notes, "similar notes, backlinks, outgoing links (each once)"),
    "unlinked_connections": Operation(unlinked.unlinked_connections,
                                      "similar notes no link joins to this one, with the [[link]] to add"),
    "resolve_link": Operation(notes.resolve_link, "where a wikilink points"),
    "read_note": Operation(notes.read_note, "a note's whole text"),
    "index_status": Operation(index_status, "counts, model, staleness, progress of a running reindex"),
    "reindex": Operation(_reindex, "bring the index up to date (force = re-embed everything)"),
    "list_notes": Operation(_list_notes, "a page of notes by folder, glob, tag, date; sorted"),
    "recent_notes": Operation(browse.recent_notes, "notes modified in the last days, newest first"),
    "list_tags": Operation(browse.list_tags, "tags with their note counts"),
}


def call(rt: Runtime, method: str, params: dict[str, Any], **hooks: Any) -> Any:
    """Run operation ``method``; params that are null mean "the default".
    ``hooks`` are Python-only arguments (reindex's ``progress`` callback)."""
    op = OPERATIONS.get(method)
    if op is None:
        raise InvalidArgument(f"unknown operation {method!r}; known: {', '.join(OPERATIONS)}", param="method")
    return op.fn(rt, **{k: v for k, v in params.items() if v is not None}, **hooks)
