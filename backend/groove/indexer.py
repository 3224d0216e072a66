"""scan -> parse -> embed -> store, incrementally, one transaction per note.

Change detection: a note whose size and mtime match the index is unchanged
without being read. Otherwise its bytes are hashed: the same hash means the
same content (only the stat is refreshed); the hash of a note that vanished
from its old path means a rename (vectors kept, nothing re-embedded).

A killed run leaves every note either fully stored or untouched, so the next
run simply carries on. Notes are embedded in batches across files (small
notes would otherwise waste the model's batch) but written one per
transaction.

One note never stops a run (ADR 0093): whatever goes wrong while reading,
parsing or embedding it skips that note with a reason, recorded in the
index (``skipped``) for `groove status`, index_status and the editors. A
note skipped for its content is not retried until it changes. Only a
broken index (disk full, I/O error, damage) or a model that fails on a
trivial text ends the run, with one message naming the cause.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import cast

import apsw
import numpy as np

from . import __version__
from .config import IndexConfig
from .errors import EmbedderMismatch, IndexWriteFailed, ModelFailed
from .index import boilerplate, calibration, rules_now
from .models.base import Embedder
from .models.llama_embedder import file_sha256
from .note_vector_upgrade import upgrade_note_vectors
from .storage import store
from .storage.db import Index, exclusive_lock, remove_index_files
from .types import ParsedNote
from .vault.daily_notes import DAILY_NOTES_FILE, DailyNotes, daily_notes
from .vault.encoding import binary_reason, decode_note_bytes
from .vault.reader import CHANGED_WHILE_READ, NotANote, parse_file, read_consistently
from .vault.scan import NoteFile, Skipped, content_hash, shown_path
from .wire.status_types import ReindexSummary

log = logging.getLogger("groove.indexer")
_read = read_consistently  # a module name, so a test can stand in for the file system

Progress = Callable[[dict], None]

EMBED_BATCH_CHUNKS = 32


@dataclass
class IndexSummary:
    indexed: list[str] = field(default_factory=list)
    unchanged: int = 0
    renamed: list[tuple[str, str]] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    chunks_embedded: int = 0
    seconds: float = 0.0
    boilerplate_lines: int = 0  # the vault's common lines, left out of what is embedded (ADR 0210)
    boilerplate_refreshed: int = 0  # other notes whose vectors were redone because that set changed

    def to_json(self) -> ReindexSummary:
        return {
            "indexed": len(self.indexed),
            "unchanged": self.unchanged,
            # A 2-list, which the wire's tuple describes (the schema validator wants a list).
            "renamed": cast(list[tuple[str, str]], [[a, b] for a, b in self.renamed]),
            "deleted": len(self.deleted),
            "skipped": [{"path": s.path, "reason": s.reason} for s in self.skipped],
            "warnings": [{"path": p, "warning": w} for p, w in self.warnings],
            "chunks_embedded": self.chunks_embedded,
            "seconds": round(self.seconds, 3),
            "boilerplate_lines": self.boilerplate_lines,
            "boilerplate_refreshed": self.boilerplate_refreshed,
        }


def _failure(what: str, e: BaseException) -> str:
    msg = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
    return f"{what} ({type(e).__name__}{': ' + msg if msg else ''}); please report it if the note looks ordinary"


def prepare_embedder(idx: Index, embedder: Embedder, *, rebuild: bool = False) -> None:
    """Make sure the index and the embedder agree; --rebuild starts over
    (on the fresh index built aside, so clearing it costs nothing)."""
    if rebuild:
        store.clear_all(idx)
    idx.check_embedder(embedder.model_id, embedder.dim, recipe=store.EMBED_RECIPE)
    if idx.embedder_info() is None or not idx.has_vec_table():
        idx.set_embedder(embedder.model_id, embedder.dim, file_sha256(embedder.model_path), recipe=store.EMBED_RECIPE)


def _check_chunk_budget(idx: Index, budget: int) -> None:
    """Chunks cut under one budget are not mixed with chunks cut under another."""
    stored = idx.get_meta("chunk_tokens")
    if stored is None:
        idx.set_meta("chunk_tokens", str(budget))
    elif int(stored) != budget:
        raise EmbedderMismatch(
            f"this index was chunked with [index] chunk_tokens = {stored}, the configuration says {budget}; "
            "run `groove index --rebuild` to re-chunk and re-embed"
        )


def index_vault(
    vault: Path,
    idx: Index,
    embedder: Embedder,
    cfg: IndexConfig,
    *,
    rebuild: bool = False,
    only: set[str] | None = None,
    progress: Progress | None = None,
) -> IndexSummary:
    """Bring the index up to date with the vault. ``only`` limits the work to
    some vault-relative paths (the watcher's batches); deletions of paths in
    ``only`` that no longer exist are applied too. Raises IndexWriteFailed
    (the notes committed so far stay), ModelFailed, IndexUnusable (damaged)."""
    if only is not None:
        # The watcher names files as the OS does: a name that is not UTF-8
        # carries lone surrogates, which SQLite cannot store. The scanner
        # shows such names escaped (\xNN); so must the run's scope.
        only = {shown_path(p) for p in only}
    # One run re-uses the model's output buffer; it is given back at the end (ADR 0096).
    hold = getattr(embedder, "holding_outputs", None)
    try:
        with hold() if hold else contextlib.nullcontext():
            if rebuild:
                return _rebuild_aside(vault, idx, embedder, cfg, progress)
            if only is None:  # a whole pass's "unchanged" must not be said of a damaged file (issue 50 R13)
                idx.refuse_if_damaged()
            return _index_vault(vault, idx, embedder, cfg, rebuild=False, only=only, progress=progress)
    except apsw.Error as e:
        raise idx.write_failure(e) from e


def aside_path(idx: Index) -> Path:
    """Where a rebuild of ``idx`` is built before it replaces the index."""
    return idx.path.with_name(idx.path.name + ".rebuild")


def _rebuild_aside(vault: Path, idx: Index, embedder: Embedder, cfg: IndexConfig,
                   progress: Progress | None) -> IndexSummary:
    """``--rebuild`` (ADR 0151): build a new index in a file beside this
    one, then copy it over the index in one transaction. Searches, in this
    process or a daemon's, keep getting the old results until the new index
    commits; a rebuild killed at any point leaves the old index serving
    (its half-built file is removed by the next rebuild). Notes edited
    while it built are caught by an incremental pass after the copy."""
    aside = aside_path(idx)
    with exclusive_lock(aside.with_name(aside.name + ".lock")) as mine:
        if not mine:
            raise IndexWriteFailed(f"another `groove index --rebuild` of {idx.path} is running; "
                                   "wait for it to finish (its result replaces the index)")
        remove_index_files(aside)  # a killed rebuild's half-built file
        new = Index(aside)
        try:
            try:
                summary = _index_vault(vault, new, embedder, cfg, rebuild=True, only=None, progress=progress)
            except apsw.Error as e:
                raise new.write_failure(e) from e
            idx.replace_with(new)
        finally:
            new.close()
            remove_index_files(aside)
    later = _index_vault(vault, idx, embedder, cfg, rebuild=False, only=None, progress=None)
    summary.indexed = list(dict.fromkeys(summary.indexed + later.indexed))
    summary.deleted += later.deleted
    summary.renamed += later.renamed
    summary.chunks_embedded += later.chunks_embedded
    return summary


@dataclass
class Ready:
    """A note read and parsed, waiting for its vectors (``nf`` holds the
    stat of the bytes read)."""

    nf: NoteFile
    note: ParsedNote
    content_hash: str


@dataclass
class IndexRun:
    """One run's state, shared by its steps: plan_run -> read_note (each
    file to do) -> flush_pending (embed_batch, write_batch) -> finish_run."""

    idx: Index
    embedder: Embedder
    cfg: IndexConfig
    rebuild: bool
    only: set[str] | None
    emit: Progress
    summary: IndexSummary = field(default_factory=IndexSummary)
    known: dict[str, store.DocRow] = field(default_factory=dict)  # what the index held at the start
    gone: dict[str, store.DocRow] = field(default_factory=dict)  # to delete at the end, unless renamed
    by_hash: dict[str, str] = field(default_factory=dict)  # content hash -> a vanished note's path
    todo: list[NoteFile] = field(default_factory=list)  # files whose stat moved
    pending: list[Ready] = field(default_factory=list)  # parsed, not yet embedded
    done: int = 0  # files of ``todo`` settled, for progress
    known_skips: dict[str, store.SkipRow] = field(default_factory=dict)
    daily: DailyNotes | None = None  # a daily note's day is the one in its name (ADR 0191)
    bp: boilerplate.Boilerplate = boilerplate.OFF  # lines left out of what is embedded (ADR 0210)
    notes: int = 0  # notes in the vault (present), the census's denominator
    skip_rows: list[store.SkipRow] = field(default_factory=list)
    started: float = field(default_factory=time.perf_counter)
    rules_walked: str | None = None  # the walk's rules' fingerprint, when they held still through it

    def skip(self, path: str, reason: str, nf: NoteFile | None = None, *, sticky: bool = False) -> None:
        """``sticky``: the reason is the content's, so the note is not retried
        while its stat (from ``nf``) stays the same."""
        self.summary.skipped.append(Skipped(path, reason))
        self.skip_rows.append(store.SkipRow(path, reason, nf.size if nf else None, nf.mtime_ns if nf else None,
                                            sticky and nf is not None, __version__))
        if path not in self.known_skips or self.known_skips[path].reason != reason:
            log.info("skipped %r: %s", path, reason)

    def still_skipped(self, nf: NoteFile) -> bool:
        """A note skipped for its content that has not changed since."""
        row = self.known_skips.get(nf.path)
        if (row is None or not row.sticky or row.groove_version != __version__
                or (row.size, row.mtime_ns) != (nf.size, nf.mtime_ns)):
            return False
        self.skip(nf.path, row.reason, nf, sticky=True)
        return True

    def content_skip(self, nf: NoteFile, reason: str) -> None:
        """The file is not a note any more: what the index had of it goes."""
        self.skip(nf.path, reason, nf, sticky=True)
        if nf.path in self.known and store.delete_doc(self.idx, nf.path):
            self.summary.deleted.append(nf.path)


def _index_vault(
    vault: Path,
    idx: Index,
    embedder: Embedder,
    cfg: IndexConfig,
    *,
    rebuild: bool,
    only: set[str] | None,
    progress: Progress | None,
) -> IndexSummary:
    run = plan_run(vault, idx, embedder, cfg, rebuild=rebuild, only=only, progress=progress)
    for nf in run.todo:
        ready = read_note(run, nf)
        if ready is None:
            run.done += 1
            continue
        if run.pending and len(ready.note.chunks) >= EMBED_BATCH_CHUNKS:
            # A long note is embedded alone, after the notes queued before it are
            # stored: its minutes never hold theirs (issue 50 R2).
            flush_pending(run)
        run.pending.append(ready)
        if sum(len(r.note.chunks) for r in run.pending) >= EMBED_BATCH_CHUNKS:
            flush_pending(run)
    if run.pending:
        flush_pending(run)
    return finish_run(run)


def plan_run(vault: Path, idx: Index, embedder: Embedder, cfg: IndexConfig, *,
             rebuild: bool, only: set[str] | None, progress: Progress | None) -> IndexRun:
    """Check the index against the model, scan the vault, and list what to do:
    files whose stat moved (``todo``), notes gone (``gone``), scan skips."""
    run = IndexRun(idx, embedder, cfg, rebuild, only, progress or (lambda e: None))
    if not rebuild:
        upgrade_note_vectors(vault, idx, embedder, cfg, run.emit)
    prepare_embedder(idx, embedder, rebuild=rebuild)
    _check_chunk_budget(idx, cfg.chunk_tokens)
    run.known_skips = {} if rebuild else store.skipped_notes(idx)
    walk = rules_now.scan(idx, vault)  # the walk, and the rules it used (ADR 0235, 0236)
    files, skipped, run.rules_walked = walk.files, walk.skipped, walk.fingerprint
    run.summary.warnings += walk.warned
    run.daily = daily_notes(vault)
    run.summary.warnings += [(DAILY_NOTES_FILE, w) for w in run.daily.warnings]
    for sk in skipped:
        if only is None or sk.path in only:
            run.skip(sk.path, sk.reason)
    run.known = store.all_docs(idx)
    present = {f.path for f in files}
    run.notes = len(present)
    if only is not None:
        files = [f for f in files if f.path in only]
    gone_all = {p: d for p, d in run.known.items() if p not in present}
    # A partial run deletes only what it was told about (or what a rename explains).
    run.gone = gone_all if only is None else {p: d for p, d in gone_all.items() if p in only}
    run.by_hash = {d.content_hash: p for p, d in gone_all.items()}
    for f in files:
        d = run.known.get(f.path)
        # Files named by events are compared by content (an edit can keep the size and restore the mtime).
        if d and d.size == f.size and d.mtime_ns == f.mtime_ns and not rebuild and only is None:
            run.summary.unchanged += 1
        else:
            run.todo.append(f)
    run.emit({"phase": "scan", "done": 0, "total": len(run.todo)})
    # The common lines, decided before anything is embedded (ADR 0210).
    run.bp = boilerplate.plan(idx, cfg, run.todo, run.known, run.gone, notes=run.notes)
    run.summary.boilerplate_lines = len(run.bp.common)
    return run


def read_note(run: IndexRun, nf: NoteFile) -> Ready | None:
    """Read and parse one file of ``todo``. None when it needs no model: it
    is skipped (unreadable, binary, unparsable, still the content skipped
    before), unchanged but for its stat, or a renamed note (moved in place)."""
    if not run.rebuild and run.still_skipped(nf):
        return None
    data, reason, size, mtime = _read(nf, run.cfg.max_file_bytes)
    if data is None:
        run.skip(nf.path, reason or "unreadable", nf)
        # What the index holds of it is no longer what is on disk (unreadable, too
        # large, gone): it leaves search (ADR 0150). A note changed while it was
        # read keeps its last text until the next run reads it whole.
        if reason != CHANGED_WHILE_READ and nf.path in run.known and store.delete_doc(run.idx, nf.path):
            run.summary.deleted.append(nf.path)
        return None
    nf = replace(nf, size=size, mtime_ns=mtime)  # the stat of the bytes read
    h = content_hash(data)
    d = run.known.get(nf.path)
    if d and d.content_hash == h and not run.rebuild:
        store.touch_doc(run.idx, nf.path, size, mtime)
        run.summary.unchanged += 1
        return None
    reason = binary_reason(decode_note_bytes(data).data)
    if reason:
        run.content_skip(nf, reason)
        return None
    try:
        note = parse_file(nf.path, data, chunk_tokens=run.cfg.chunk_tokens, count_tokens=run.embedder.count_tokens)
    except NotANote as e:  # a canvas that is not JSON Canvas: its own reason (ADR 0195)
        run.content_skip(nf, str(e))
        return None
    except Exception as e:  # noqa: BLE001 - RecursionError, MemoryError, a parser bug: skip this note
        run.content_skip(nf, _failure("could not be parsed", e))
        return None
    for w in note.warnings:
        run.summary.warnings.append((nf.path, w))
    if run.daily is not None:
        note.date = run.daily.date_of(nf.path) or note.date
    old = run.by_hash.pop(h, None) if not run.rebuild and d is None else None
    if old is not None and store.move_note(run.idx, old, note, size=size, mtime_ns=mtime, content_hash=h):
        run.summary.renamed.append((old, nf.path))
        run.gone.pop(old, None)
        return None
    return Ready(nf, note, h)


def embed_batch(embedder: Embedder, batch: list[Ready],
                bp: boilerplate.Boilerplate = boilerplate.OFF) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The chunk vectors of every note in ``batch`` (in order; of what is
    embedded, ``bp.view``) and one note vector per note that has chunks;
    None where there is nothing to embed."""
    views = [bp.view(r.note) for r in batch]  # boilerplate left out (ADR 0210)
    texts = [store.embed_text(ch.context, ch.content) for n in views for ch in n.chunks]
    vecs = embedder.embed_passages(texts) if texts else None
    notes = [store.note_text(n) for n in views if n.chunks]
    starts = np.cumsum([0] + [len(n.chunks) for n in views])[:-1]
    firsts = [vecs[at] for at, n in zip(starts, views) if n.chunks] if vecs is not None else []
    note_vecs = store.note_vectors(embedder, notes, np.array(firsts)) if notes else None
    return vecs, note_vecs


def write_batch(run: IndexRun, batch: list[Ready], vecs: np.ndarray | None, note_vecs: np.ndarray | None) -> None:
    """Store each note of ``batch`` in its own transaction. A note the index
    refuses is skipped; a broken index (apsw.Error) stops the run."""
    pos = 0
    note_pos = 0
    for r in batch:
        view = run.bp.view(r.note)
        nf, k = r.nf, len(view.chunks)
        v = run.bp.spread(r.note, view, vecs[pos:pos + k]) if vecs is not None and k else None
        nv = note_vecs[note_pos] if note_vecs is not None and k else None
        pos += k
        note_pos += 1 if k else 0
        try:
            # Not over a newer text another writer stored meanwhile (issue 50 R8).
            stored = store.upsert_if_unchanged(run.idx, r.note, r.nf, r.content_hash, vectors=v, note_vector=nv,
                                               lines=run.bp.flags(r.note))
        except apsw.TooBigError as e:
            run.content_skip(nf, _failure("too big for the index", e))
        except apsw.Error:
            raise  # the index, not the note: the run stops (index_vault says why)
        except Exception as e:  # noqa: BLE001 - one note's failure stays that note's
            run.content_skip(nf, _failure("could not be stored", e))
        else:
            if stored:
                run.summary.indexed.append(nf.path)
                run.summary.chunks_embedded += k
            else:
                run.summary.warnings.append((nf.path, CHANGED_WHILE_READ))
        _settled(run, nf)


def _settled(run: IndexRun, nf: NoteFile) -> None:
    """One note of the batch is done with, stored or skipped: progress counts it."""
    run.done += 1
    run.emit({"phase": "embed", "done": run.done, "total": len(run.todo), "path": nf.path,
              "chunks": run.summary.chunks_embedded})


def flush_pending(run: IndexRun) -> None:
    """Embed and store ``pending``. When the batch fails, each note is tried
    alone: the one at fault is skipped, or the model is (ModelFailed)."""
    try:
        vecs, note_vecs = embed_batch(run.embedder, run.pending, run.bp)
    except Exception:  # noqa: BLE001 - find the note (or the model) at fault
        _check_model(run.embedder)
        for item in run.pending:
            try:
                one, note_one = embed_batch(run.embedder, [item], run.bp)
            except Exception as e:  # noqa: BLE001
                _check_model(run.embedder)
                run.content_skip(item.nf, _failure("could not be embedded", e))
                _settled(run, item.nf)  # counted, so the last event still reaches the total
                continue
            write_batch(run, [item], one, note_one)
    else:
        write_batch(run, run.pending, vecs, note_vecs)
    run.pending.clear()


def finish_run(run: IndexRun) -> IndexSummary:
    """Delete the notes gone (not renamed), record the skips, calibrate, stamp."""
    summary, idx = run.summary, run.idx
    for p in run.gone:
        if p in {new for _, new in summary.renamed}:
            continue
        if store.delete_doc(idx, p):
            summary.deleted.append(p)
    if run.daily is not None and idx.get_meta("daily_notes") != run.daily.key:
        # The daily-notes settings changed (or this index predates them): every
        # note's date is worked out again from what the index holds.
        store.redate(idx, run.daily.date_of)
        idx.set_meta("daily_notes", run.daily.key)
    # Notes embedded under another set of common lines are redone (ADR 0210).
    settled = boilerplate.settle(idx, run.embedder, run.cfg, notes=run.notes)
    summary.boilerplate_lines = settled.common
    summary.boilerplate_refreshed = settled.notes
    summary.chunks_embedded += settled.chunks_embedded
    scope = None if run.only is None else set(run.only) | {r.path for r in run.skip_rows}
    store.record_skipped(idx, run.skip_rows, scope=scope)
    try:
        # low_confidence's yardstick (ADR 0103): measured when missing or outdated.
        calibration.ensure(idx, run.embedder)
    except apsw.Error:
        raise  # the index cannot be written: reported as such, not as a calibration problem
    except Exception as e:  # noqa: BLE001 - searches fall back to the margin rule and say so
        summary.warnings.append(("", f"confidence calibration failed ({e}); low_confidence uses the margin rule"))
    if run.only is None and run.rules_walked:  # every note the rules leave out is deleted by now
        rules_now.indexed_with(idx, run.rules_walked)
    if summary.indexed or summary.deleted or summary.renamed:
        idx.set_meta("last_indexed", str(time.time()))
    elif idx.get_meta("last_indexed") is None:
        idx.set_meta("last_indexed", str(time.time()))
    summary.seconds = time.perf_counter() - run.started
    run.emit({"phase": "done", "done": len(run.todo), "total": len(run.todo)})
    return summary


def _check_model(embedder: Embedder) -> None:
    """Raise ModelFailed when the model cannot embed a trivial text: then
    the fault is the model's, not a note's."""
    try:
        embedder.embed_passages(["groove model check"])
    except Exception as e:  # noqa: BLE001
        raise ModelFailed(
            f"the embedding model {getattr(embedder, 'model_id', '')} fails on any text ({type(e).__name__}: {e}); "
            "check it with `groove doctor`, or re-download it"
        ) from e
