"""The full-text leg's ranked match from an in-memory word index, for big
vaults (ADR 0132).

FTS5's ``ORDER BY bm25`` scores every row its expression matches, and its
IDF walks each phrase's whole doclist: 30–80 ms at 100k chunks for a query
holding a word found in a third of them. ``bm25_topk`` skips some of that
work, but only where it can prove its answer.

Most queries of a Latin-script vault are made of plain words. A phrase made
only of ASCII letters and digits can only occur inside a run of such
characters, so its trigram instances in a column are the sum, over the
column's runs, of its (overlapping) occurrences in each run, ASCII-folded as
the trigram tokenizer folds them. The same holds for a phrase made only of
kana and kanji (``CJK_LETTERS``) and the runs of those letters: Japanese
text has no spaces, but its punctuation, digits and Latin words end a run,
so a run is a clause, and the tokenizer folds none of these letters nor any
other character into them (ADR 0141). Hence an index of runs -> (row, column,
count) gives every such phrase's exact instances, its document frequency and
so bm25 exactly as ``fts5_aux.c`` computes it: the same float, the same
order. Phrases it cannot answer (other letters, spaces, punctuation), or a
filter, leave the query to FTS5.

Two characters outside ASCII fold to ASCII letters in the trigram tokenizer
(U+017F long s, U+212A Kelvin sign); rows holding them are kept out of the
runs and counted by the tokenizer itself at query time.

The bigram table (ADR 0011) gets the same structure over its chains
(``shortcjk.chains``, ADR 0163), keyed by bigrams: ``ranked_terms`` is its
short-term leg, with the same arithmetic.

How it is built, refreshed after writes and kept: ``word_index.py``.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

import apsw
import numpy as np

from groove.engines.chunk_set import ChunkSet, find_sorted, holds
from groove.engines.lexical import bm25_topk
from groove.engines.lexical.terms import RankedMatch
from groove.query import is_cjk

TABLE = "fts_chunks"
MIN_ROWS = 10_000  # below this the plain ranked query takes a few ms: no index kept
BIGRAM_MIN_ROWS = 10_000  # the same for the bigram table's rows (chunks holding CJK text, ADR 0163)
FOLDS_TO_ASCII = "\u017f\u212a"  # the trigram tokenizer folds these to "s" and "k" (a test pins the list)
# Hiragana, katakana (the prolonged sound mark among them, not the middle
# dot), the iteration and closing marks, and the BMP's unified kanji. The
# trigram tokenizer maps each to itself and nothing else to one (a test
# checks every character).
CJK_LETTERS = "\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u3005-\u3007\u3400-\u4dbf\u4e00-\u9fff"
# Hangul syllables (ADR 0161): the same argument, a third class. Korean puts
# spaces between its words, so a run is a word with its particles (노트를).
HANGUL_LETTERS = "\uac00-\ud7a3"
# the runs the index holds: a word, a clause of kana and kanji, a Korean word
RUN = re.compile(f"[A-Za-z0-9]+|[{CJK_LETTERS}]+|[{HANGUL_LETTERS}]+")
_WORD_PHRASE = re.compile(f"[A-Za-z0-9]{{3,}}|[{CJK_LETTERS}]{{3,}}|[{HANGUL_LETTERS}]{{3,}}")


def gram_code(gram: str) -> int:
    """A trigram (or a bigram) as one integer: its code points of 21 bits
    each. A sorted array of these costs 8 bytes a trigram, where a dict of
    strings cost ~120, and a Japanese vault has millions of distinct trigrams."""
    code = 0
    for ch in gram:
        code = (code << 21) | ord(ch)
    return code


def answers(phrase: str) -> bool:
    """Whether the word index can count ``phrase``: ASCII letters and digits
    only, kana and kanji only, or Hangul syllables only, and long enough to
    make a trigram."""
    return _WORD_PHRASE.fullmatch(phrase) is not None


@dataclass
class WordPostings:
    """Runs of ASCII letters and digits, of kana and kanji and of Hangul (or,
    for the bigram table, chains of CJK letters) -> (row, column, count), one
    snapshot."""

    version: str
    rowids: np.ndarray  # int64, ascending: row slot i is FTS row rowids[i]
    sizes: np.ndarray  # float64: each row's length in tokens, all columns (the docsize record)
    starts: np.ndarray  # int64 (words + 1): where each word begins in ``vocab``, then its length
    vocab: str  # "\n" + the words joined by "\n" + "\n": one string, words sliced by ``starts``
    ptr: np.ndarray  # int64 (words + 1): word w's postings are [ptr[w], ptr[w + 1])
    slots: np.ndarray  # int32: the row slot of each posting
    cols: np.ndarray  # int8: the column of each posting
    counts: np.ndarray  # uint16: the run's occurrences in that row's column
    odd: dict[int, list[str]]  # slot -> its columns, for rows holding FOLDS_TO_ASCII
    word_rows: np.ndarray  # int32: the rows each word is in (cheap bounds on a phrase's count)
    grams: np.ndarray  # int64, ascending: each trigram of the vocabulary as ``gram_code``; the i-th ...
    gram_ptr: np.ndarray  # int64: ... is held by the words gram_words[gram_ptr[i]:gram_ptr[i + 1]]
    gram_words: np.ndarray  # int32, ascending per trigram
    chunk_ids: np.ndarray  # int64: every chunk's id (the chunks table) ...
    chunk_docs: np.ndarray  # int64: ... and its note's id, for note-wide exclusion
    doc_stamps: dict[int, tuple]  # note id -> (path, content hash, indexed at): what ``refresh`` compares
    _slot_docs: np.ndarray | None = field(default=None, repr=False, compare=False)  # made on first filter
    # The bigram table's index (ADR 0163) is the same structure over its
    # chains (``shortcjk.chains``), mapped by bigrams, not trigrams:
    gram: int = 3  # the map's n-gram length
    table: str = TABLE  # the FTS table whose rows, lengths and statistics it holds
    gram_mult: np.ndarray | None = None  # uint16 beside gram_words: the gram's occurrences in that word
    bigrams: WordPostings | None = None  # the bigram table's index, kept beside this one (a CJK vault's)

    @property
    def nbytes(self) -> int:
        arrays = (self.rowids, self.sizes, self.starts, self.ptr, self.slots, self.cols, self.counts,
                  self.word_rows, self.gram_ptr, self.gram_words, self.chunk_ids, self.chunk_docs)
        own = sum(a.nbytes for a in arrays) + self.grams.nbytes + sys.getsizeof(self.vocab)
        if self.gram_mult is not None:
            own += self.gram_mult.nbytes
        if self.bigrams is not None:
            # The chunk -> note arrays are the same objects: counted once.
            own += self.bigrams.nbytes - self.bigrams.chunk_ids.nbytes - self.bigrams.chunk_docs.nbytes
        return own

    def _words(self, phrase: str) -> np.ndarray:
        """The vocabulary words holding ``phrase`` (lowercased, at least
        ``gram`` characters): those holding all its n-grams, then checked whole."""
        n = self.gram
        found: np.ndarray | None = None
        gids = [self._gram_id(g) for g in {phrase[i:i + n] for i in range(len(phrase) - n + 1)}]
        if any(gid < 0 for gid in gids):
            return np.zeros(0, dtype=np.int64)
        for gid in sorted(gids, key=lambda gid: int(self.gram_ptr[gid + 1] - self.gram_ptr[gid])):
            ws = self.gram_words[self.gram_ptr[gid]:self.gram_ptr[gid + 1]]
            found = ws if found is None else np.intersect1d(found, ws, assume_unique=True)
        if found is None:
            return np.zeros(0, dtype=np.int64)
        if len(phrase) > n:
            found = np.asarray([w for w in found.tolist() if phrase in self._word(w)], dtype=np.int64)
        return found.astype(np.int64)

    def _mult(self, phrase: str, words: np.ndarray) -> np.ndarray:
        """float64 per word of ``words`` (``_words(phrase)``): how often it holds
        ``phrase``, overlaps counted as the tokenizers count them. A phrase
        that is one gram reads it from the map (a common bigram is in tens of
        thousands of words); a longer one is counted in the few words holding it."""
        if self.gram_mult is not None and len(phrase) == self.gram and len(words):
            gid = self._gram_id(phrase)
            mult = self.gram_mult[self.gram_ptr[gid]:self.gram_ptr[gid + 1]]
            if not (mult == 0xFFFF).any():  # saturated: counted below
                return mult.astype(np.float64)
        return np.asarray([bm25_topk._instances(self._word(w), phrase) for w in words.tolist()],
                          dtype=np.float64)

    def _gram_id(self, gram: str) -> int:
        """Where ``gram`` is in ``grams``, or -1."""
        code = gram_code(gram)
        i = int(np.searchsorted(self.grams, code))
        return i if i < len(self.grams) and int(self.grams[i]) == code else -1

    def _word(self, w: int) -> str:
        return self.vocab[self.starts[w]:self.starts[w + 1] - 1]

    def df_range(self, phrase: str) -> tuple[int, int]:
        """Bounds on ``df(phrase)`` from the vocabulary alone: the rows of its
        most common word, and the rows of all its words (plus the odd rows)."""
        rows = self.word_rows[self._words(phrase.lower())]
        return int(rows.max(initial=0)), min(int(rows.sum()) + len(self.odd), len(self.rowids))

    def _postings(self, phrase: str, *, times: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """The postings of every word holding ``phrase`` (lowercased) and, with
        ``times``, how often each posting's word holds it (overlapping, as
        trigrams match)."""
        words = self._words(phrase)
        a, b = self.ptr[words], self.ptr[words + 1]
        lens = b - a
        # The ranges [a, b) laid end to end, without a Python loop per word.
        at = np.repeat(a - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum()))
        if not times:
            return at, None
        return at, np.repeat(self._mult(phrase, words), lens)

    def _runs(self, phrase: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The postings of every word holding ``phrase`` (lowercased) laid end
        to end: (slots, cols, counts, how often each posting's word holds the
        phrase). Each word's postings are one slice: for a few words, joining
        slices is ~4x faster than gathering by index (a common word's 88k
        postings at 100k chunks)."""
        words = self._words(phrase)
        if len(words) > 64:
            at, mult = self._postings(phrase)
            assert mult is not None
            return self.slots[at], self.cols[at], self.counts[at], mult
        spans = [(int(self.ptr[w]), int(self.ptr[w + 1])) for w in words.tolist()]
        if not spans:
            return (np.zeros(0, dtype=self.slots.dtype), np.zeros(0, dtype=self.cols.dtype),
                    np.zeros(0, dtype=self.counts.dtype), np.zeros(0, dtype=np.float64))
        return (np.concatenate([self.slots[a:b] for a, b in spans]),
                np.concatenate([self.cols[a:b] for a, b in spans]),
                np.concatenate([self.counts[a:b] for a, b in spans]),
                np.repeat(self._mult(phrase, words), [b - a for a, b in spans]))

    def _slots(self, phrase: str) -> np.ndarray:
        """The row slot of every posting of every word holding ``phrase``
        (lowercased): ``_runs``'s first array, without gathering the others."""
        words = self._words(phrase)
        if len(words) > 64:
            a = self.ptr[words]
            lens = self.ptr[words + 1] - a
            return self.slots.take(np.repeat(a - np.cumsum(lens) + lens, lens) + np.arange(int(lens.sum())))
        spans = [(int(self.ptr[w]), int(self.ptr[w + 1])) for w in words.tolist()]
        return np.concatenate([self.slots[a:b] for a, b in spans]) if spans else self.slots[:0]

    def holders(self, conn: apsw.Connection, phrase: str) -> np.ndarray:
        """bool per row slot: the row holds ``phrase`` (one ``answers`` accepts)."""
        slots = self._slots(phrase.lower())
        has = np.zeros(len(self.rowids), dtype=bool)
        has[slots] = True
        if self.odd:
            counter = bm25_topk._Counter(conn, [phrase])
            for slot, cols in self.odd.items():
                has[slot] = sum(counter.counts(cols)[0]) > 0
        return has

    def df(self, conn: apsw.Connection, phrase: str) -> int:
        """Rows holding ``phrase``: FTS5's count for it, a trigram's included."""
        return int(self.holders(conn, phrase).sum())

    def instances(self, conn: apsw.Connection, phrase: str) -> tuple[np.ndarray, np.ndarray]:
        """(rows, 3) float64 of the phrase's trigram instances per row and
        column, and the bool per row of holding it at all."""
        n = len(self.rowids)
        at, mult = self._postings(phrase.lower())
        has = np.zeros(n, dtype=bool)
        has[self.slots[at]] = True
        flat = self.slots[at].astype(np.int64) * 3 + self.cols[at]
        out = np.bincount(flat, weights=self.counts[at] * mult, minlength=3 * n).reshape(n, 3)
        if self.odd:
            counter = bm25_topk._Counter(conn, [phrase])
            for slot, cols in self.odd.items():
                out[slot] = counter.counts(cols)[0]
                has[slot] = out[slot].sum() > 0
        return out, has

    def frequencies(self, conn: apsw.Connection, phrase: str,
                    weights: tuple[float, float, float]) -> tuple[np.ndarray, np.ndarray]:
        """bm25's weighted frequency of the phrase in each row (float64), and
        the bool per row of holding it. With whole-number column weights
        (the default 2/1/1) one weighted count: a sum of whole numbers is
        exact in any order, so it equals fts5_aux.c's instance-by-instance
        additions; other weights take those additions one by one."""
        if not all(float(w).is_integer() for w in weights):
            inst, has = self.instances(conn, phrase)
            return _freq(inst, weights), has
        n = len(self.rowids)
        slots, cols, counts, mult = self._runs(phrase.lower())
        # Whole numbers: the product is exact in any order (``take`` is
        # faster than fancy indexing, and the product is made in place).
        weighted = np.take(np.asarray(weights, dtype=np.float64), cols) * counts
        weighted *= mult
        f = np.bincount(slots, weights=weighted, minlength=n)
        if all(wc > 0 for wc in weights):
            has = f > 0  # every posting adds at least one positive weight
        else:
            has = np.zeros(n, dtype=bool)
            has[slots] = True
        if self.odd:
            counter = bm25_topk._Counter(conn, [phrase])
            for slot, texts in self.odd.items():
                c = counter.counts(texts)[0]
                f[slot] = float(sum(k * wc for k, wc in zip(c, weights)))
                has[slot] = sum(c) > 0
        return f, has

    def rows_with(self, conn: apsw.Connection, phrases: list[str], *, shorts: list[str] | tuple[str, ...] = (),
                  whole_notes: bool = False) -> ChunkSet | None:
        """Rowids holding any of ``phrases``, or any of ``shorts`` (2-letter CJK
        words, from the bigram index beside this one, ADR 0223), or, with
        ``whole_notes``, every chunk of a note one of them is in (None: a
        phrase or short word it cannot count)."""
        if not all(map(answers, phrases)):
            return None
        if shorts and (self.bigrams is None or not all(map(countable, shorts))):
            return None
        hit = np.zeros(len(self.rowids), dtype=bool)
        for p in phrases:
            hit |= self.holders(conn, p)
        ids = self.rowids[hit]
        if shorts:
            assert self.bigrams is not None
            bhit = np.zeros(len(self.bigrams.rowids), dtype=bool)
            for t in shorts:
                bhit |= self.bigrams.holders(conn, t)
            ids = np.concatenate([ids, self.bigrams.rowids[bhit]])  # a row in both: ChunkSet keeps it once
        if whole_notes and len(ids):
            ids = self._same_notes(ids)
        return ChunkSet(ids)

    def only_in(self, conn: apsw.Connection, phrase: str, doc: int) -> bool:
        """Whether ``phrase`` is in some chunk of note ``doc`` and in no other
        note's. A phrase whose most common word is in more rows than the note
        has chunks is in another note: no rows are gathered for it."""
        if self.df_range(phrase)[0] > int(np.count_nonzero(self.chunk_docs == doc)):
            return False
        at, found = find_sorted(self.chunk_ids, self.rowids[self.holders(conn, phrase)])
        docs = self.chunk_docs[at[found]]
        return bool(len(docs)) and int(docs.min()) == int(docs.max()) == doc

    def chunks_of_same_notes(self, chunk_ids: AbstractSet[int]) -> ChunkSet:
        """Every chunk of every note holding one of ``chunk_ids``: what
        ``chunks.chunks_of_same_notes`` asks SQLite, ~6x faster at 100k chunks."""
        return ChunkSet(self._same_notes(np.fromiter(chunk_ids, dtype=np.int64, count=len(chunk_ids))))

    def allowed_slots(self, docs: np.ndarray) -> np.ndarray:
        """bool per row slot: the row's note is one of ``docs`` (a filter)."""
        if self._slot_docs is None:
            at, found = find_sorted(self.chunk_ids, self.rowids)
            self._slot_docs = np.where(found, self.chunk_docs[at] if len(self.chunk_docs) else -1, -1)
        return np.isin(self._slot_docs, docs)

    def _same_notes(self, ids: np.ndarray) -> np.ndarray:
        docs = self.chunk_docs[np.isin(self.chunk_ids, ids)]
        return self.chunk_ids[np.isin(self.chunk_docs, docs)]

    def ranked(self, conn: apsw.Connection, match: RankedMatch, limit: int,
               counts: dict[str, int] | None = None,
               docs: np.ndarray | None = None) -> list[tuple[int, float]] | None:
        """What ``fts._trigram_leg`` returns for ``match``, ``(positives) NOT
        (negatives)`` ranked by the ``kept`` phrases: (rowid, -bm25) best first, then rows
        matching only pruned phrases (score 0.0, rowid order), ``limit`` in
        all; or None when a phrase is one it cannot count. Fills ``counts``
        with each ranked phrase's exact document frequency. ``docs``: a
        filter's notes; rows of other notes are left out, as FTS5's
        ``rowid IN`` leaves them (bm25 still counts the whole table)."""
        positives, kept, negatives, weights = match.positives, match.kept, match.negatives, match.weights
        if not kept or not all(map(answers, [*positives, *negatives])):
            return None
        stats = bm25_topk.table_stats(conn, TABLE)
        if stats is None or limit <= 0:
            return None
        n = len(self.rowids)
        freq = {p: self.frequencies(conn, p, weights) for p in dict.fromkeys(kept)}
        has = {p: v[1] for p, v in freq.items()}
        for p in dict.fromkeys(negatives):
            if p not in has:
                has[p] = self.holders(conn, p)
        dfs = {p: int(has[p].sum()) for p in kept}
        if counts is not None:
            counts.update(dfs)
        banned = np.zeros(n, dtype=bool) if docs is None else ~self.allowed_slots(docs)
        for p in negatives:
            banned |= has[p]
        matched = np.zeros(n, dtype=bool)
        for p in kept:
            matched |= has[p]
        out = self._scored(stats, kept, freq, dfs, np.flatnonzero(matched & ~banned), limit)
        if len(kept) < len(positives) and len(out) < limit:
            # As the FTS path appends rows matching only pruned phrases.
            rest = np.zeros(n, dtype=bool)
            for p in positives:
                rest |= has[p] if p in has else self.holders(conn, p)
            rest &= ~banned & ~matched
            out += [(int(r), 0.0) for r in self.rowids[rest][: limit - len(out)]]
        return out


    def ranked_terms(self, conn: apsw.Connection, terms: list[str], weights: tuple[float, float, float],
                     limit: int, banned: AbstractSet[int] | None = None,
                     docs: np.ndarray | None = None,
                     counts: dict[str, int] | None = None) -> list[tuple[int, float]]:
        """What the bigram table's ranked match of ``terms`` returns (ADR 0163):
        ``"t1" OR "t2 ..."``, each term the phrase of its bigrams, as
        (rowid, -bm25) best first, ``limit`` at most. ``banned``: rowids an
        exclusion drops; ``docs``: a filter's notes; ``counts`` gets each
        term's document frequency. Every term must be one ``countable`` accepts."""
        stats = bm25_topk.table_stats(conn, self.table)
        if stats is None or limit <= 0 or not terms:
            return []
        n = len(self.rowids)
        freq = {t: self.frequencies(conn, t, weights) for t in dict.fromkeys(terms)}
        dfs = {t: int(v[1].sum()) for t, v in freq.items()}
        if counts is not None:
            counts.update(dfs)
        skip = np.zeros(n, dtype=bool) if docs is None else ~self.allowed_slots(docs)
        if banned:
            skip |= holds(banned, self.rowids)
        matched = np.zeros(n, dtype=bool)
        for _, has in freq.values():
            matched |= has
        return self._scored(stats, terms, freq, dfs, np.flatnonzero(matched & ~skip), limit)

    def _scored(self, stats: bm25_topk.TableStats, phrases: list[str],
                freq: dict[str, tuple[np.ndarray, np.ndarray]], dfs: dict[str, int], at: np.ndarray,
                limit: int) -> list[tuple[int, float]]:
        """The ``limit`` best of the row slots ``at`` by bm25 over ``phrases``
        (in the expression's order, repeats included), with fts5_aux.c's
        arithmetic, term by term and in its order: the same floats."""
        norm = bm25_topk.K1 * (1 - bm25_topk.B + bm25_topk.B * self.sizes[at] / stats.avgdl)
        score = np.zeros(len(at), dtype=np.float64)
        for p in phrases:
            f = freq[p][0][at]
            score += bm25_topk.idf(stats.rows, dfs[p]) * ((f * (bm25_topk.K1 + 1.0)) / (f + norm))
        ids = self.rowids[at]
        top = _top(score, ids, limit)
        return list(zip(ids[top].tolist(), score[top].tolist()))


def countable(term: str) -> bool:
    """Whether the bigram table's index can count ``term`` (a short term): 2+
    letters the table pairs up, so its phrase is the term's overlapping
    bigrams (``shortcjk.as_bigrams``)."""
    return len(term) >= 2 and all(map(is_cjk, term))


def _top(score: np.ndarray, rowids: np.ndarray, limit: int) -> np.ndarray:
    """Indices of the ``limit`` best by (score descending, rowid ascending),
    in that order: ties at the cut are settled by rowid as FTS5's sort does."""
    if len(score) > limit:
        cut = np.partition(score, len(score) - limit)[len(score) - limit]
        pool = np.flatnonzero(score >= cut)
    else:
        pool = np.arange(len(score))
    return pool[np.lexsort((rowids[pool], -score[pool]))][:limit]


def _freq(c: np.ndarray, weights: tuple[float, float, float]) -> np.ndarray:
    """bm25's weighted frequency: each column's weight added once per
    instance, column after column, as fts5_aux.c adds them."""
    f = np.zeros(len(c), dtype=np.float64)
    for col, w in enumerate(weights):
        cc = c[:, col]
        if float(w).is_integer():
            f = f + cc * w  # whole numbers: repeated addition is exact, so is the product
            continue
        for k in range(int(cc.max(initial=0))):
            f = f + np.where(cc > k, w, 0.0)
    return f
