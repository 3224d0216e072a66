"""Keeping a big vault's word index (ADR 0132) and its bigram table's (ADR
0163): building them from the FTS table (``word_runs.py`` makes their
pieces), refreshing them after writes, and the per-index cache long-lived
processes build them in.

SQLite stays the source of truth: the index answers only for the rows
version it was made from (``meta.rows_version``, bumped by triggers on every
note and chunk change). It is built in the background of a long-lived
process (the daemon, the standalone MCP server), never on a search's path.
After a write a refresh re-reads only the notes whose stamp (path, content
hash, indexed_at) moved and checks the result against FTS5's own row and
token counts; until it lands, FTS5 answers. Builds and refreshes are spaced
so that they take at most a third of one core.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import json
import logging
import sys
import threading
import time
from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING

import apsw
import numpy as np

from groove.engines.lexical import bm25_topk, shortcjk, word_postings
from groove.engines.lexical.word_postings import TABLE, WordPostings
from groove.engines.lexical.word_runs import BIGRAMS, WORDS, Kind, Runs, Tokenizer, gram_map, tokenize
from groove.engines.rows import rows_version

if TYPE_CHECKING:
    from groove.wire.status_types import WordIndexState, WordIndexStatus

log = logging.getLogger(__name__)

SPACING = 2.0  # a build waits twice its last duration after the last one ended
REFRESH_MAX_SHARE = 0.1  # a refresh re-reads the rewritten notes only while they are this share at most
DEAD_WORDS = 0.25  # past this share of words no row holds, a refresh builds anew


def _sizes(conn: apsw.Connection, ids: np.ndarray, table: str = TABLE) -> np.ndarray:
    """float64: the docsize (tokens, all columns) of each row of ``ids``."""
    got = {r: sum(bm25_topk._varints(sz)) for r, sz in conn.execute(
        f"SELECT id, sz FROM {table}_docsize WHERE id IN (SELECT value FROM json_each(?))",
        (json.dumps(ids.tolist()),))}
    return np.asarray([got.get(int(r), 0) for r in ids], dtype=np.float64)


def _all_sizes(conn: apsw.Connection, table: str) -> tuple[np.ndarray, np.ndarray]:
    """Every row of ``table``'s docsize: (ids ascending, tokens as float64)."""
    ids, sizes = array("q"), array("d")
    for r, sz in conn.execute(f"SELECT id, sz FROM {table}_docsize ORDER BY id"):
        ids.append(r)
        sizes.append(sum(bm25_topk._varints(sz)))
    return np.frombuffer(ids, dtype=np.int64), np.frombuffer(sizes, dtype=np.float64)


def _doc_stamps(conn: apsw.Connection) -> dict[int, tuple]:
    """note id -> what changes whenever its rows are rewritten (upsert, rename)."""
    return {d: (p, h, t) for d, p, h, t in conn.execute(
        "SELECT id, path, content_hash, indexed_at FROM documents")}


def _total_tokens(conn: apsw.Connection, table: str = TABLE) -> int:
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    return sum(bm25_topk._varints(row[0])[1:]) if row and row[0] else 0


@dataclasses.dataclass(frozen=True)
class _Seen:
    """What one read transaction saw besides the text: the rows' version,
    every chunk's id and its note's id (ascending by chunk), and each note's
    stamp (a refresh re-reads the notes whose stamp moved)."""

    version: str
    chunks: tuple[np.ndarray, np.ndarray]
    stamps: dict[int, tuple]


def _moved(runs: Runs, name: str, order: np.ndarray) -> np.ndarray:
    """``runs``' array ``name`` in ``order``, the original let go from
    ``runs`` (an empty array of its dtype in its place), so that only one
    copy of each column is alive at the build's peak."""
    arr = getattr(runs, name)
    setattr(runs, name, np.empty(0, dtype=arr.dtype))
    return arr[order]


def _assemble(kind: Kind, seen: _Seen, vocab: dict[str, int], runs: Runs, sizes: np.ndarray,
              prior: WordPostings | None = None, *, by_word: bool = False) -> WordPostings:
    """The index of ``runs``' rows (``sizes``: their token counts) from
    their entries (sorted here by word, row, column; ``by_word``: they
    already are by row and column within each word's, as ``Tokenizer.done``
    leaves them, so a stable sort by word is enough). ``runs``' arrays are
    let go as they are moved (the build's peak)."""
    names = sorted(vocab, key=vocab.__getitem__)
    rowids = runs.rowids
    if by_word:
        order = np.argsort(runs.words, kind="stable")
    else:
        order = np.argsort((runs.words.astype(np.int64) << 34) | (runs.slots.astype(np.int64) << 2) | runs.cols,
                           kind="stable")
    words, slots = _moved(runs, "words", order), _moved(runs, "slots", order)
    cols, counts = _moved(runs, "cols", order), _moved(runs, "counts", order)
    del order
    ptr = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(words, minlength=len(names)), out=ptr[1:])
    first = np.ones(len(words), dtype=bool)  # a word's first posting in each row
    first[1:] = (words[1:] != words[:-1]) | (slots[1:] != slots[:-1])
    word_rows = np.bincount(words[first], minlength=len(names)).astype(np.int32)
    del words, first
    grams, gram_ptr, gram_words, gram_mult = gram_map(names, prior, kind.gram, mult=kind is BIGRAMS)
    return WordPostings(
        version=seen.version,
        rowids=rowids,
        sizes=sizes,
        starts=np.cumsum([1] + [len(w) + 1 for w in names], dtype=np.int64),  # and where the vocabulary ends
        vocab="\n" + "\n".join(names) + "\n",
        ptr=ptr,
        slots=slots,
        cols=cols,
        counts=counts,
        odd=runs.odd,
        word_rows=word_rows,
        grams=grams,
        gram_ptr=gram_ptr,
        gram_words=gram_words,
        chunk_ids=seen.chunks[0],
        chunk_docs=seen.chunks[1],
        doc_stamps=seen.stamps,
        gram=kind.gram,
        table=kind.table,
        gram_mult=gram_mult,
    )


def _chunk_rows(conn: apsw.Connection) -> tuple[np.ndarray, np.ndarray]:
    """Every chunk's id, ascending, and its note's id (one copy, both indexes read it)."""
    rows = np.asarray(conn.execute("SELECT id, doc_id FROM chunks ORDER BY id").fetchall(),
                      dtype=np.int64).reshape(-1, 2)
    return rows[:, 0].copy(), rows[:, 1].copy()


def _big_enough(conn: apsw.Connection) -> tuple[str, bm25_topk.TableStats] | None:
    """The rows version and FTS5's statistics, or None: the table is under
    ``MIN_ROWS`` rows (or has no version to check an index by)."""
    version = rows_version(conn)
    stats = bm25_topk.table_stats(conn, TABLE)
    if version is None or stats is None or stats.rows < word_postings.MIN_ROWS:
        return None
    return version, stats


def _bigram_stats(conn: apsw.Connection) -> bm25_topk.TableStats | None:
    """The bigram table's statistics when it is big enough to be kept in
    memory too (``BIGRAM_MIN_ROWS`` chunks holding CJK text), else None."""
    stats = bm25_topk.table_stats(conn, shortcjk.TABLE) if shortcjk.exists(conn) else None
    return stats if stats is not None and stats.rows >= word_postings.BIGRAM_MIN_ROWS else None


def _chains_add_up(bp: WordPostings) -> bool:
    """Whether each row's chains make exactly as many tokens as the bigram
    table's docsize says it holds: the table keeps no text (contentless), so
    this is the check that its chains were read as it was written."""
    per = (np.diff(bp.starts) - 2).astype(np.float64)  # a chain's tokens: its letters less one
    tokens = np.zeros(len(bp.rowids), dtype=np.float64)
    for a in range(0, len(bp.slots), 1 << 20):  # whole numbers: exact in any order; blocks bound the memory
        b = min(a + (1 << 20), len(bp.slots))
        words = np.searchsorted(bp.ptr, np.arange(a, b), side="right") - 1
        tokens += np.bincount(bp.slots[a:b], weights=bp.counts[a:b] * per[words], minlength=len(tokens))
    return bool(np.array_equal(tokens, bp.sizes))


def _from_runs(kind: Kind, seen: _Seen, vocab: dict[str, int], runs: Runs,
               size_rows: tuple[np.ndarray, np.ndarray]) -> WordPostings | None:
    size_ids, sizes = size_rows
    at = np.searchsorted(size_ids, runs.rowids)
    if not kind.every_row and not np.array_equal(size_ids, runs.rowids):
        log.warning("the bigram table's rows are not those its chains make: FTS5 ranks them")
        return None
    wp = _assemble(kind, seen, vocab, runs, sizes[at].copy(), by_word=True)
    if kind is BIGRAMS and not _chains_add_up(wp):
        log.warning("the bigram table's row lengths are not those its chains make: FTS5 ranks them")
        return None
    return wp


def build(conn: apsw.Connection) -> WordPostings | None:
    """The word index of the FTS table as one read transaction sees it
    (None when the table is small or has no version to check it by), with
    the bigram table's beside it when that is big too (ADR 0163)."""
    with conn:  # one read transaction: both indexes see the same rows
        head = _big_enough(conn)
        if head is None:
            return None
        version, _ = head
        seen = _Seen(version, _chunk_rows(conn), _doc_stamps(conn))
        kinds = [WORDS, BIGRAMS] if _bigram_stats(conn) is not None else [WORDS]
        made = []
        for kind in kinds:
            # A read of the text each: one kind's transient arrays are gone
            # before the next is made (read together, a Chinese vault of 100k
            # chunks peaked ~60 MB higher, past ADR 0163's 300 MB).
            tok = Tokenizer(kind, {})
            runs = tokenize(conn.execute(f"SELECT rowid, heading, context, content FROM {TABLE} ORDER BY rowid"),
                             [tok])[0]
            made.append(_from_runs(kind, seen, tok.vocab, runs, _all_sizes(conn, kind.table)))
            del tok, runs
            if made[0] is None:
                return None
    wp = made[0]
    if wp is not None and len(made) > 1:
        wp.bigrams = made[1]
    return wp


def refresh(conn: apsw.Connection, base: WordPostings) -> WordPostings | None:
    """``base`` brought up to the connection's rows by re-reading only the
    notes rewritten since (their stamp moved), or None: build anew — many
    notes changed, the vocabulary is mostly dead words, the bigram table
    crossed the size at which it is kept, or the result does not add up to
    FTS5's own row and token counts."""
    with conn:
        head = _big_enough(conn)
        if head is None:
            return None
        version, stats = head
        total = _total_tokens(conn)
        bstats = _bigram_stats(conn)
        if (bstats is None) != (base.bigrams is None):
            return None
        btotal = _total_tokens(conn, shortcjk.TABLE) if bstats is not None else 0
        stamps = _doc_stamps(conn)
        gone = {d for d, s in base.doc_stamps.items() if stamps.get(d) != s}
        fresh = {d for d, s in stamps.items() if base.doc_stamps.get(d) != s}
        if len(gone | fresh) > REFRESH_MAX_SHARE * max(len(stamps), 1):
            return None
        bases = [base] if base.bigrams is None else [base, base.bigrams]
        if not gone and not fresh and stats.rows == len(base.rowids) and total == int(base.sizes.sum()) and (
                bstats is None or (bstats.rows == len(bases[-1].rowids) and btotal == int(bases[-1].sizes.sum()))):
            # Only a note's stat moved (a touch, a checkout): the rows are the same.
            same = [dataclasses.replace(b, version=version) for b in bases]
            return dataclasses.replace(same[0], bigrams=same[1] if len(same) > 1 else None)
        chunks = _chunk_rows(conn)
        new_ids = chunks[0][np.isin(chunks[1], np.fromiter(fresh, dtype=np.int64))]
        toks = [Tokenizer(k, _vocab(b)) for k, b in zip((WORDS, BIGRAMS), bases)]
        runs = tokenize(conn.execute(
            f"SELECT rowid, heading, context, content FROM {TABLE} "
            f"WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid", (json.dumps(new_ids.tolist()),)), toks)
        new_sizes = [_sizes(conn, r.rowids, t.kind.table) for t, r in zip(toks, runs)]
    seen = _Seen(version, chunks, stamps)
    made = [_merged(t.kind, b, seen, t.vocab, r, ns, gone)
            for t, b, r, ns in zip(toks, bases, runs, new_sizes)]
    wp = made[0]
    if wp is None or len(wp.rowids) != stats.rows or int(wp.sizes.sum()) != total:
        return None  # something rewrote rows without its note's stamp moving
    if len(made) > 1:
        bp = made[1]
        if bp is None or bstats is None or len(bp.rowids) != bstats.rows or int(bp.sizes.sum()) != btotal \
                or not _chains_add_up(bp):
            return None
        wp.bigrams = bp
    for w in made:
        if w is not None and (w.word_rows > 0).sum() < (1 - DEAD_WORDS) * len(w.word_rows):
            return None  # mostly words no row holds any more: build anew to drop them
    return wp


def _vocab(base: WordPostings) -> dict[str, int]:
    names = base.vocab[1:-1].split("\n") if len(base.starts) > 1 else []
    return dict(zip(names, range(len(names))))


def _merged(kind: Kind, base: WordPostings, seen: _Seen, vocab: dict[str, int], runs: Runs,
            new_sizes: np.ndarray, gone: set[int]) -> WordPostings | None:
    """``base``'s rows of notes not in ``gone``, and ``runs`` (the rewritten
    notes' rows, their words added to ``vocab``), as one index."""
    # The base rows of rewritten or deleted notes die; the others keep their
    # entries, moved to their place among the new rows.
    at = np.clip(np.searchsorted(base.chunk_ids, base.rowids), 0, max(len(base.chunk_ids) - 1, 0))
    if len(base.chunk_ids) == 0 or not np.array_equal(base.chunk_ids[at], base.rowids):
        return None  # an FTS row without its chunk: not this code's to guess
    alive = ~np.isin(base.chunk_docs[at], np.fromiter(gone, dtype=np.int64))
    rowids = np.concatenate([base.rowids[alive], runs.rowids])
    order = np.argsort(rowids, kind="stable")
    if len(np.unique(rowids)) != len(rowids):
        return None
    place = np.empty(len(rowids), dtype=np.int64)
    place[order] = np.arange(len(rowids))
    base_place = np.full(len(base.rowids), -1, dtype=np.int64)
    base_place[alive] = place[: int(alive.sum())]
    new_place = place[int(alive.sum()):]
    keep = alive[base.slots]
    base_words = np.repeat(np.arange(len(base.starts) - 1, dtype=np.int32), np.diff(base.ptr))
    merged = Runs(rowids[order], {int(base_place[s]): t for s, t in base.odd.items() if alive[s]}
                  | {int(new_place[s]): t for s, t in runs.odd.items()},
                  np.concatenate([base_words[keep], runs.words]),
                  np.concatenate([base_place[base.slots[keep]], new_place[runs.slots]]).astype(np.int32),
                  np.concatenate([base.cols[keep], runs.cols]), np.concatenate([base.counts[keep], runs.counts]))
    return _assemble(kind, seen, vocab, merged, np.concatenate([base.sizes[alive], new_sizes])[order], prior=base)


def _give_back_freed_memory() -> None:
    """Return the build's freed heap to the system (glibc keeps it otherwise:
    at 100k chunks the daemon stayed ~110 MB above what the index holds)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL("libc.so.6").malloc_trim(0)


class WordPostingsCache:
    """One per index. ``ready`` never builds on the caller's thread;
    ``background`` (set by long-lived processes) lets it start a build on a
    thread of its own when the rows have changed."""

    def __init__(self) -> None:
        self.background = False
        self._lock = threading.Lock()
        self._current: WordPostings | None = None
        self._checked: str | None = None  # the rows version last built (or found too small)
        self._building = False
        self._next_build_at = 0.0
        self._took: float | None = None  # the last build's seconds

    def ready(self, conn: apsw.Connection, open_conn: Callable[[], apsw.Connection] | None = None,
              done: Callable[[], None] | None = None) -> WordPostings | None:
        """The index for the connection's current rows, or None (use FTS5).
        When the rows changed since the last build and ``background`` is on,
        a build starts on a thread using ``open_conn()`` (``done()`` after)."""
        version = rows_version(conn)
        with self._lock:
            cur = self._current
            if cur is not None and cur.version == version:
                return cur
            start = (self.background and open_conn is not None and version != self._checked
                     and not self._building and time.monotonic() >= self._next_build_at)
            if start:
                self._building = True
        if start:
            assert open_conn is not None
            threading.Thread(target=self._build, args=(open_conn, done), name="groove-words", daemon=True).start()
        return None

    def status(self, conn: apsw.Connection) -> WordIndexStatus:
        """What ``index_status`` reports: ``state`` is ``off`` (this process
        keeps none: a one-shot run), ``small`` (under MIN_ROWS rows: FTS5
        ranks), ``ready``, ``building`` or ``stale`` (rows changed: FTS5
        ranks until the next build), with the last build's size."""
        version = rows_version(conn)
        with self._lock:
            cur, checked, building, took = self._current, self._checked, self._building, self._took
        state: WordIndexState
        if cur is not None and cur.version == version:
            state = "ready"
        elif building:
            state = "building"
        elif not self.background:
            state = "off"
        elif cur is None and checked == version:
            state = "small"
        else:
            state = "stale"
        return {"state": state, "min_rows": word_postings.MIN_ROWS,
                "rows": len(cur.rowids) if cur is not None else None,
                "megabytes": round(cur.nbytes / 1e6, 1) if cur is not None else None,
                "build_seconds": round(took, 2) if took is not None and cur is not None else None}

    def warm(self, conn: apsw.Connection) -> WordPostings | None:
        """Build now, on this thread (benchmarks, tests)."""
        version = rows_version(conn)
        wp = build(conn)
        _give_back_freed_memory()
        with self._lock:
            self._current, self._checked = wp, version
        return wp

    def _build(self, open_conn: Callable[[], apsw.Connection], done: Callable[[], None] | None) -> None:
        t = time.monotonic()
        version, wp = None, None
        with self._lock:
            base = self._current
        try:
            conn = open_conn()
            version = rows_version(conn)
            wp = refresh(conn, base) if base is not None else None
            if wp is None:
                wp = build(conn)
        except Exception as e:  # a failed build leaves FTS5 answering
            log.warning("word index build failed, full-text searches use FTS5: %s", e)
        finally:
            if done is not None:
                done()
        took = time.monotonic() - t
        _give_back_freed_memory()
        with self._lock:
            self._current, self._took = wp, took
            self._checked = wp.version if wp is not None else version
            self._building = False
            self._next_build_at = time.monotonic() + SPACING * took
        if wp is not None:
            log.info("word index: %d rows, %.0f MB, built in %.1f s", len(wp.rowids), wp.nbytes / 1e6, took)
