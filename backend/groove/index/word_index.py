"""Keeping a big vault's word index (ADR 0132): building it from the FTS
table, refreshing it after writes, and the per-index cache long-lived
processes build it in.

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
import re
import sys
import threading
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import apsw
import numpy as np

from groove.index import bm25_topk, shortcjk, word_postings
from groove.index.schema import rows_version
from groove.index.word_postings import FOLDS_TO_ASCII, RUN, TABLE, WordPostings

log = logging.getLogger(__name__)

SPACING = 2.0  # a build waits twice its last duration after the last one ended
REFRESH_MAX_SHARE = 0.1  # a refresh re-reads the rewritten notes only while they are this share at most
DEAD_WORDS = 0.25  # past this share of words no row holds, a refresh builds anew
_ODD = re.compile(f"[{FOLDS_TO_ASCII}]")
_BATCH = 4096  # rows aggregated at a time while building (bounds the build's memory)
_GRAM_BATCH = 1 << 18  # vocabulary characters turned into trigram codes at a time


@dataclass(frozen=True)
class _Kind:
    """What one in-memory index is made of: the FTS table it answers for, and
    how a column of ``fts_chunks`` text becomes that table's runs."""

    table: str
    gram: int  # the n-grams its map is keyed by
    odd: re.Pattern[str] | None  # rows holding these are left to the tokenizer
    every_row: bool  # every FTS row has a slot (else only rows holding a run: the bigram table's)

    def split(self, text: str) -> list[str]:
        return [r.lower() for r in RUN.findall(text)] if self.table == TABLE else shortcjk.chains(text)


WORDS = _Kind(TABLE, 3, _ODD, True)
BIGRAMS = _Kind(shortcjk.TABLE, 2, None, False)  # ADR 0163


@dataclass
class _Runs:
    """Rows tokenized into runs: one entry per (word, row slot, column)."""

    rowids: np.ndarray  # int64, the rows in slot order (slots count from 0)
    odd: dict[int, list[str]]
    words: np.ndarray  # int32
    slots: np.ndarray  # int32
    cols: np.ndarray  # int8
    counts: np.ndarray  # uint16


class _Tokenizer:
    """Rows of (rowid, heading, context, content) into one kind's runs, new
    words added to ``vocab``."""

    def __init__(self, kind: _Kind, vocab: dict[str, int]) -> None:
        self.kind, self.vocab = kind, vocab
        self.rowids = array("q")
        self.odd: dict[int, list[str]] = {}
        self.batches: list[tuple[np.ndarray, ...]] = []
        # One entry per run: its word, row slot and column (C arrays: no Python
        # object per run, so the build's memory goes back when done).
        self.w_run, self.s_run, self.c_run = array("i"), array("i"), array("b")

    def _flush(self) -> None:
        w, sl, c = (np.frombuffer(a, dtype=dt).astype(np.int64)
                    for a, dt in ((self.w_run, np.int32), (self.s_run, np.int32), (self.c_run, np.int8)))
        key, cnt = np.unique((w << 33) | (sl << 2) | c, return_counts=True)
        self.batches.append(((key >> 33).astype(np.int32), ((key >> 2) & 0x7FFFFFFF).astype(np.int32),
                             (key & 3).astype(np.int8), np.minimum(cnt, 0xFFFF).astype(np.uint16)))
        del self.w_run[:], self.s_run[:], self.c_run[:]

    def add(self, rid: int, texts: list[str]) -> None:
        kind, vocab = self.kind, self.vocab
        slot = len(self.rowids)
        if kind.odd is not None and any(kind.odd.search(t) for t in texts):
            self.rowids.append(rid)
            self.odd[slot] = texts
            return
        per_col = [kind.split(t) for t in texts]
        if not kind.every_row and not any(per_col):
            return
        self.rowids.append(rid)
        for ci, runs in enumerate(per_col):
            self.w_run.extend(vocab.setdefault(r, len(vocab)) for r in runs)
            self.s_run.extend([slot] * len(runs))
            self.c_run.extend([ci] * len(runs))
        if slot % _BATCH == _BATCH - 1:
            self._flush()

    def done(self) -> _Runs:
        self._flush()
        return _Runs(np.frombuffer(self.rowids, dtype=np.int64).copy(), self.odd,
                     *(np.concatenate([b[i] for b in self.batches]) for i in range(4)))


def _tokenize(rows, tokenizers: list[_Tokenizer]) -> list[_Runs]:
    """One read of ``rows`` of (rowid, heading, context, content) for every kind."""
    for rid, *cols in rows:
        texts = [c or "" for c in cols]
        for t in tokenizers:
            t.add(rid, texts)
    return [t.done() for t in tokenizers]


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


def _gram_pairs(names: list[str], first: int, n: int = 3
                ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per batch of ``names`` (ids counted from ``first``): the (n-gram
    code, word id, occurrences) of each distinct n-gram of each word, sorted
    by code then word. Computed on the names' code points as arrays, a batch
    at a time, so the transient memory stays a few MB; yielded, not kept."""
    at = 0
    while at < len(names):
        end, size = at, 0
        while end < len(names) and size < _GRAM_BATCH:
            size += len(names[end]) + 1
            end += 1
        cp = np.frombuffer("\n".join(names[at:end]).encode("utf-32-le"), dtype=np.uint32).astype(np.int64)
        if len(cp) >= n:
            m = len(cp) - n + 1
            sep = cp == 10
            ok = ~np.logical_or.reduce([sep[i:i + m] for i in range(n)])
            code = np.zeros(m, dtype=np.int64)
            for i in range(n):  # word_postings.gram_code, vectorised
                code = (code << 21) | cp[i:i + m]
            code = code[ok]
            word = (np.cumsum(sep)[:m][ok] + first + at).astype(np.int32)
            order = np.lexsort((word, code))
            code, word = code[order], word[order]
            new = np.ones(len(code), dtype=bool)  # an n-gram's first instance in each word
            new[1:] = (code[1:] != code[:-1]) | (word[1:] != word[:-1])
            heads = np.flatnonzero(new)
            yield code[heads], word[heads], np.diff(np.append(heads, len(code)))
        at = end


def _blocks(code: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where each run of equal values of the sorted ``code`` starts, and its length."""
    head = np.ones(len(code), dtype=bool)
    head[1:] = code[1:] != code[:-1]
    starts = np.flatnonzero(head)
    return starts, np.diff(np.append(starts, len(code)))


def _gram_map(names: list[str], prior: WordPostings | None = None, n: int = 3, mult: bool = False
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    """The vocabulary's n-grams (``word_postings.gram_code``, ascending),
    where each one's words begin, and those words, ascending per n-gram
    (with ``mult``, and each one's occurrences in that word); the words of
    ``prior`` (the first of ``names``) are taken from its map as they are.

    A counting sort in two passes over the words: the first finds the
    n-grams and how many words hold each, the second computes the pairs
    again and drops each word into its n-gram's slot. Only the result is
    ever whole in memory: with all pairs sorted at once, a Japanese vault
    of 100k chunks peaked 1.3 GB above the process while building, against
    0.83 GB now (``bench/word_index_memory.py``)."""
    known = len(prior.starts) - 1 if prior is not None else 0
    uniques, held = [], []
    if prior is not None:
        uniques.append(prior.grams)
        held.append(np.diff(prior.gram_ptr))
    for code, _, _ in _gram_pairs(names[known:], known, n):
        starts, lens = _blocks(code)
        uniques.append(code[starts])
        held.append(lens)
    if not uniques:
        return (np.zeros(0, dtype=np.int64), np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                np.zeros(0, dtype=np.uint16) if mult else None)
    grams = np.unique(np.concatenate(uniques))
    counts = np.zeros(len(grams), dtype=np.int64)
    for u, k in zip(uniques, held):
        counts[np.searchsorted(grams, u)] += k
    del uniques, held
    gram_ptr = np.zeros(len(grams) + 1, dtype=np.int64)
    np.cumsum(counts, out=gram_ptr[1:])
    words = np.empty(int(gram_ptr[-1]), dtype=np.int32)
    times = np.empty(len(words), dtype=np.uint16) if mult else None
    fill = gram_ptr[:-1].copy()  # where each n-gram's next word goes
    if prior is not None:  # its words come first (lower ids), a slice of n-grams at a time
        for lo in range(0, len(prior.grams), _GRAM_BATCH):
            hi = min(lo + _GRAM_BATCH, len(prior.grams))
            gi = np.searchsorted(grams, prior.grams[lo:hi])
            a, b = prior.gram_ptr[lo:hi], prior.gram_ptr[lo + 1:hi + 1]
            to = np.repeat(fill[gi] - a, b - a) + np.arange(a[0], b[-1])
            words[to] = prior.gram_words[a[0]:b[-1]]
            if times is not None and prior.gram_mult is not None:
                times[to] = prior.gram_mult[a[0]:b[-1]]
            fill[gi] += b - a
    for code, word, k in _gram_pairs(names[known:], known, n):  # again, in word order
        starts, lens = _blocks(code)
        gi = np.searchsorted(grams, code[starts])
        to = np.repeat(fill[gi] - starts, lens) + np.arange(len(code))
        words[to] = word
        if times is not None:
            times[to] = np.minimum(k, 0xFFFF)
        fill[gi] += lens
    return grams, gram_ptr, words, times


def _assemble(kind: _Kind, version: str, names: list[str], rowids: np.ndarray, sizes: np.ndarray,
              words: np.ndarray, slots: np.ndarray, cols: np.ndarray, counts: np.ndarray,
              odd: dict[int, list[str]], chunks: tuple[np.ndarray, np.ndarray], stamps: dict[int, tuple],
              prior: WordPostings | None = None) -> WordPostings:
    """The index from its entries in any order (sorted here by word, row, column)."""
    order = np.argsort((words.astype(np.int64) << 34) | (slots.astype(np.int64) << 2) | cols, kind="stable")
    words, slots = words[order], slots[order]
    ptr = np.zeros(len(names) + 1, dtype=np.int64)
    np.cumsum(np.bincount(words, minlength=len(names)), out=ptr[1:])
    first = np.ones(len(words), dtype=bool)  # a word's first posting in each row
    first[1:] = (words[1:] != words[:-1]) | (slots[1:] != slots[:-1])
    word_rows = np.bincount(words[first], minlength=len(names)).astype(np.int32)
    del words, first
    grams, gram_ptr, gram_words, gram_mult = _gram_map(names, prior, kind.gram, mult=kind is BIGRAMS)
    return WordPostings(
        version=version,
        rowids=rowids,
        sizes=sizes,
        starts=np.cumsum([1] + [len(w) + 1 for w in names], dtype=np.int64),  # and where the vocabulary ends
        vocab="\n" + "\n".join(names) + "\n",
        ptr=ptr,
        slots=slots,
        cols=cols[order],
        counts=counts[order],
        odd=odd,
        word_rows=word_rows,
        grams=grams,
        gram_ptr=gram_ptr,
        gram_words=gram_words,
        chunk_ids=chunks[0],
        chunk_docs=chunks[1],
        doc_stamps=stamps,
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
    chars = np.diff(bp.starts) - 1
    words = np.repeat(np.arange(len(chars)), np.diff(bp.ptr))
    tokens = np.bincount(bp.slots, weights=bp.counts * (chars[words] - 1.0), minlength=len(bp.rowids))
    return bool(np.array_equal(tokens, bp.sizes))


def _from_runs(kind: _Kind, version: str, vocab: dict[str, int], runs: _Runs,
               size_rows: tuple[np.ndarray, np.ndarray], chunks: tuple[np.ndarray, np.ndarray],
               stamps: dict[int, tuple]) -> WordPostings | None:
    size_ids, sizes = size_rows
    at = np.searchsorted(size_ids, runs.rowids)
    if not kind.every_row and not np.array_equal(size_ids, runs.rowids):
        log.warning("the bigram table's rows are not those its chains make: FTS5 ranks them")
        return None
    wp = _assemble(kind, version, sorted(vocab, key=vocab.__getitem__), runs.rowids, sizes[at].copy(),
                   runs.words, runs.slots, runs.cols, runs.counts, runs.odd, chunks, stamps)
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
        chunks = _chunk_rows(conn)
        stamps = _doc_stamps(conn)
        kinds = [WORDS, BIGRAMS] if _bigram_stats(conn) is not None else [WORDS]
        made = []
        for kind in kinds:
            # A read of the text each: one kind's transient arrays are gone
            # before the next is made (read together, a Chinese vault of 100k
            # chunks peaked ~60 MB higher, past ADR 0163's 300 MB).
            tok = _Tokenizer(kind, {})
            runs = _tokenize(conn.execute(f"SELECT rowid, heading, context, content FROM {TABLE} ORDER BY rowid"),
                             [tok])[0]
            made.append(_from_runs(kind, version, tok.vocab, runs, _all_sizes(conn, kind.table), chunks, stamps))
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
        toks = [_Tokenizer(k, _vocab(b)) for k, b in zip((WORDS, BIGRAMS), bases)]
        runs = _tokenize(conn.execute(
            f"SELECT rowid, heading, context, content FROM {TABLE} "
            f"WHERE rowid IN (SELECT value FROM json_each(?)) ORDER BY rowid", (json.dumps(new_ids.tolist()),)), toks)
        new_sizes = [_sizes(conn, r.rowids, t.kind.table) for t, r in zip(toks, runs)]
    made = [_merged(t.kind, b, version, t.vocab, r, ns, chunks, stamps, gone)
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


def _merged(kind: _Kind, base: WordPostings, version: str, vocab: dict[str, int], runs: _Runs,
            new_sizes: np.ndarray, chunks: tuple[np.ndarray, np.ndarray], stamps: dict[int, tuple],
            gone: set[int]) -> WordPostings | None:
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
    return _assemble(
        kind, version, sorted(vocab, key=vocab.__getitem__), rowids[order],
        np.concatenate([base.sizes[alive], new_sizes])[order],
        np.concatenate([base_words[keep], runs.words]),
        np.concatenate([base_place[base.slots[keep]], new_place[runs.slots]]).astype(np.int32),
        np.concatenate([base.cols[keep], runs.cols]), np.concatenate([base.counts[keep], runs.counts]),
        {int(base_place[s]): t for s, t in base.odd.items() if alive[s]}
        | {int(new_place[s]): t for s, t in runs.odd.items()},
        chunks, stamps, prior=base)


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

    def status(self, conn: apsw.Connection) -> dict[str, object]:
        """What ``index_status`` reports: ``state`` is ``off`` (this process
        keeps none: a one-shot run), ``small`` (under MIN_ROWS rows: FTS5
        ranks), ``ready``, ``building`` or ``stale`` (rows changed: FTS5
        ranks until the next build), with the last build's size."""
        version = rows_version(conn)
        with self._lock:
            cur, checked, building, took = self._current, self._checked, self._building, self._took
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
