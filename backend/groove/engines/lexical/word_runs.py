"""How the in-memory indexes of big vaults are made from rows of text
(ADR 0132, 0141, 0163): a column's runs (the word index's words, the bigram
table's chains), their (word, row, column, count) entries, and the map from
each n-gram to the words holding it. ``word_index.py`` keeps and refreshes
the indexes made of them.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from groove.engines.lexical import shortcjk
from groove.engines.lexical.word_postings import FOLDS_TO_ASCII, RUN, TABLE, WordPostings

ODD = re.compile(f"[{FOLDS_TO_ASCII}]")
BATCH = 4096  # rows aggregated at a time while building (bounds the build's memory)
GRAM_BATCH = 1 << 18  # vocabulary characters turned into trigram codes at a time


@dataclass(frozen=True)
class Kind:
    """What one in-memory index is made of: the FTS table it answers for, and
    how a column of ``fts_chunks`` text becomes that table's runs."""

    table: str
    gram: int  # the n-grams its map is keyed by
    odd: re.Pattern[str] | None  # rows holding these are left to the tokenizer
    every_row: bool  # every FTS row has a slot (else only rows holding a run: the bigram table's)

    def split(self, text: str) -> list[str]:
        return [r.lower() for r in RUN.findall(text)] if self.table == TABLE else shortcjk.chains(text)


WORDS = Kind(TABLE, 3, ODD, True)
BIGRAMS = Kind(shortcjk.TABLE, 2, None, False)  # ADR 0163


@dataclass
class Runs:
    """Rows tokenized into runs: one entry per (word, row slot, column)."""

    rowids: np.ndarray  # int64, the rows in slot order (slots count from 0)
    odd: dict[int, list[str]]
    words: np.ndarray  # int32
    slots: np.ndarray  # int32
    cols: np.ndarray  # int8
    counts: np.ndarray  # uint16


class Tokenizer:
    """Rows of (rowid, heading, context, content) into one kind's runs, new
    words added to ``vocab``."""

    def __init__(self, kind: Kind, vocab: dict[str, int]) -> None:
        self.kind, self.vocab = kind, vocab
        self.rowids = array("q")
        self.odd: dict[int, list[str]] = {}
        self.parts: tuple[list[np.ndarray], ...] = ([], [], [], [])  # words, slots, cols, counts per batch
        # One entry per run: its word, row slot and column (C arrays: no Python
        # object per run, so the build's memory goes back when done).
        self.w_run, self.s_run, self.c_run = array("i"), array("i"), array("b")

    def _flush(self) -> None:
        w, sl, c = (np.frombuffer(a, dtype=dt).astype(np.int64)
                    for a, dt in ((self.w_run, np.int32), (self.s_run, np.int32), (self.c_run, np.int8)))
        key, cnt = np.unique((w << 33) | (sl << 2) | c, return_counts=True)
        for part, a in zip(self.parts, ((key >> 33).astype(np.int32), ((key >> 2) & 0x7FFFFFFF).astype(np.int32),
                                        (key & 3).astype(np.int8), np.minimum(cnt, 0xFFFF).astype(np.uint16))):
            part.append(a)
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
        if slot % BATCH == BATCH - 1:
            self._flush()

    def done(self) -> Runs:
        """The entries, sorted by (word, row, column) within each batch of
        rows, batches in row order. Each column's batches are let go once
        joined, so the entries are never held twice over."""
        self._flush()
        joined = []
        for part in self.parts:
            joined.append(np.concatenate(part))
            part.clear()
        return Runs(np.frombuffer(self.rowids, dtype=np.int64).copy(), self.odd, *joined)


def tokenize(rows, tokenizers: list[Tokenizer]) -> list[Runs]:
    """One read of ``rows`` of (rowid, heading, context, content) for every kind."""
    for rid, *cols in rows:
        texts = [c or "" for c in cols]
        for t in tokenizers:
            t.add(rid, texts)
    return [t.done() for t in tokenizers]


def _gram_pairs(names: list[str], first: int, n: int = 3
                ) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per batch of ``names`` (ids counted from ``first``): the (n-gram
    code, word id, occurrences) of each distinct n-gram of each word, sorted
    by code then word. Computed on the names' code points as arrays, a batch
    at a time, so the transient memory stays a few MB; yielded, not kept."""
    at = 0
    while at < len(names):
        end, size = at, 0
        while end < len(names) and size < GRAM_BATCH:
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


def gram_map(names: list[str], prior: WordPostings | None = None, n: int = 3, mult: bool = False
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
        for lo in range(0, len(prior.grams), GRAM_BATCH):
            hi = min(lo + GRAM_BATCH, len(prior.grams))
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
