"""The full-text leg's top rows without scoring every matching row (MaxScore).

``ORDER BY bm25`` makes FTS5 score every row its expression matches, about
0.7 µs a row: 30–60 ms at 100k chunks for a query holding a word found in
a third of them ("for", "and", a vault's own topic). bm25 saturates: a
phrase adds at most ``idf · (k1 + 1)`` to any row, little for a phrase that
common. So, for a big index:

1. The positive phrases found in at least ``OPTIONAL_SHARE`` of the rows
   are *optional*; the others *essential*.
2. FTS5 ranks the rows of the essential phrases alone, best first. Their
   partial scores, plus the optional phrases' bound, cap what any row
   further down that list can reach.
3. Rows are taken from the top of that list and scored in full here, by
   FTS5's own formula over every phrase: the same instances (the trigram
   tokenizer matches case-folded substrings, counted overlapping; text
   with letters other than ASCII ones that have case is run through the
   table's own tokenizer instead of Python's folding), the same row length
   (the docsize record), the same order of additions, hence the same float.
4. Once the ``limit``-th best full score exceeds both the cap of the next
   row and the optional phrases' bound (a row holding optional phrases
   only), no other row can enter: the result is exactly the plain ranked
   query's. If that is not reached, the caller runs the plain query.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import apsw

from groove.engines.lexical.terms import Allowed, RankedMatch
from groove.query import fts_phrase, or_expr

K1, B = 1.2, 0.75  # FTS5's bm25 constants (fts5_aux.c)
OPTIONAL_SHARE = 0.2  # a phrase in this share of the rows adds at most ~3 to a row
SKIP_MIN_ROWS = 10_000  # below this many skippable rows the plain query is cheap enough
BATCH = 64  # rows scored in full per round
MAX_DEPTH = 1_000  # essential rows read at most before giving up (a decline then costs ~10 ms)
# Tried only when the optional phrases' bound is under this share of the
# essential phrases' own: above it, 5 of 6 tries declined (100k chunks, 120
# random queries), and a decline costs about one plain query.
MAX_BOUND_SHARE = 0.5
MARGIN = 1e-9  # relative slack on the bounds (partial scores are summed in another order)


@dataclass(frozen=True)
class TableStats:
    rows: int
    avgdl: float  # tokens per row, all columns (FTS5's averages record)


def _varints(buf: bytes) -> list[int]:
    """SQLite/FTS5 varints (big-endian, 7 bits a byte, a 9th byte of 8 bits)."""
    out, i = [], 0
    while i < len(buf):
        v = 0
        for k in range(9):
            b = buf[i]
            i += 1
            if k == 8:
                v = (v << 8) | b
                break
            v = (v << 7) | (b & 0x7F)
            if not b & 0x80:
                break
        out.append(v)
    return out


def table_stats(conn: apsw.Connection, table: str) -> TableStats | None:
    """nRow and the mean row length from FTS5's averages record (None: empty)."""
    row = conn.execute(f"SELECT block FROM {table}_data WHERE id = 1").fetchone()
    if row is None or not row[0]:
        return None
    n, *cols = _varints(row[0])
    return TableStats(n, float(sum(cols)) / float(n)) if n else None


def idf(rows: int, df: int) -> float:
    """FTS5's IDF, floored as it floors it."""
    v = math.log((rows - df + 0.5) / (df + 0.5))
    return v if v > 0.0 else 1e-6


_ASCII = re.compile(r"[\x00-\x7f]+")


def _foldable(s: str) -> bool:
    """Whether ``s.lower()`` is the trigram tokenizer's case folding of ``s``:
    ASCII, and characters without case (kana, kanji, digits, punctuation)."""
    if s.isascii():
        return True
    rest = _ASCII.sub("", s)
    return rest.lower() == rest == rest.upper()


def _instances(text: str, phrase: str) -> int:
    """Overlapping occurrences: a phrase of trigrams matches at every start."""
    n, at = 0, text.find(phrase)
    while at >= 0:
        n += 1
        at = text.find(phrase, at + 1)
    return n


def _token_instances(tokens: list[str], phrase: list[str]) -> int:
    """Starts at which ``phrase``'s tokens follow one another in ``tokens``."""
    m = len(phrase)
    return sum(1 for i in range(len(tokens) - m + 1) if tokens[i] == phrase[0] and tokens[i:i + m] == phrase) \
        if m else 0


class _Counter:
    """Phrase instances in a row's columns, as the trigram tokenizer sees them."""

    def __init__(self, conn: apsw.Connection, phrases: list[str]) -> None:
        self._tok = conn.fts5_tokenizer("trigram")
        self.fast = all(map(_foldable, phrases))
        self.lowered = [p.lower() for p in phrases]
        self.tokens = [self._split(p, apsw.FTS5_TOKENIZE_QUERY) for p in phrases]

    def _split(self, text: str, flags: int) -> list[str]:
        # Without offsets or colocated tokens the tokenizer yields plain strings.
        return cast("list[str]", list(self._tok(text.encode("utf-8"), flags, None, include_offsets=False,
                                                include_colocated=False)))

    def counts(self, cols: list[str]) -> list[list[int]]:
        """[phrase][column] -> instances."""
        if self.fast and all(map(_foldable, cols)):
            low = [c.lower() for c in cols]
            return [[_instances(c, p) for c in low] for p in self.lowered]
        toks = [self._split(c, apsw.FTS5_TOKENIZE_DOCUMENT) for c in cols]
        return [[_token_instances(t, p) for t in toks] for p in self.tokens]


def _score(counts: list[list[int]], size: int, idfs: list[float], weights: tuple[float, ...],
           avgdl: float) -> float:
    """bm25 as fts5_aux.c computes it: weights added once per instance,
    column by column, then the phrases summed in expression order."""
    score = 0.0
    norm = K1 * (1 - B + B * size / avgdl)
    for per_col, w_idf in zip(counts, idfs):
        f = 0.0
        for n, w in zip(per_col, weights):
            for _ in range(n):
                f += w
        score += w_idf * ((f * (K1 + 1.0)) / (f + norm))
    return score


def ranked_top(conn: apsw.Connection, table: str, match: RankedMatch, limit: int, allowed: Allowed,
               phrase_df: Callable[[str], int]) -> list[tuple[int, float]] | None:
    """The ``limit`` best (rowid, -bm25) of ``(match.kept) NOT
    (match.negatives)`` among the ``allowed`` rows, exactly as the plain
    ranked query orders them, or None when this path does not apply or
    cannot prove its answer (run the plain query)."""
    positives, negatives, weights = match.kept, match.negatives, match.weights
    restrict_sql, restrict_params = allowed.sql, allowed.params
    stats = table_stats(conn, table)
    if stats is None or stats.rows < SKIP_MIN_ROWS or len(positives) < 2:
        return None  # a small index ranks every row in a few ms: the plain query
    if not 0 < limit <= MAX_DEPTH // 4:
        return None  # a deep list (a note-wide exclusion adds its chunks to it) would not be proven in MAX_DEPTH
    dfs = [phrase_df(p) for p in positives]
    optional = [p for p, d in zip(positives, dfs) if d >= OPTIONAL_SHARE * stats.rows]
    essential = [p for p in positives if p not in optional]
    if not essential or not optional or sum(d for p, d in zip(positives, dfs) if p in optional) < SKIP_MIN_ROWS:
        return None
    # FTS5 sums the phrases in the order written. The excluded ones come last
    # and add exactly 0.0 to every row the expression matches (none holds
    # them), so they are left out.
    idfs = [idf(stats.rows, d) for d in dfs]
    counter = _Counter(conn, positives)
    bound = sum(idf(stats.rows, d) * (K1 + 1.0) for p, d in zip(positives, dfs) if p in optional)
    if bound >= MAX_BOUND_SHARE * sum(idf(stats.rows, d) * (K1 + 1.0) for p, d in zip(positives, dfs)
                                      if p not in optional):
        return None  # the top scores are unlikely to clear the optional phrases' bound

    ess = str(or_expr(essential))
    if negatives:
        ess = f"({ess}) NOT ({' OR '.join(fts_phrase(p) for p in negatives)})"
    where = f"{table} MATCH ?" + (f" AND +rowid IN ({restrict_sql})" if restrict_sql else "")
    ranked: list[Any] = conn.execute(f"SELECT rowid, -bm25({table}, ?, ?, ?) FROM {table} WHERE {where} "
                                     f"ORDER BY 2 DESC LIMIT ?",
                                     (*weights, ess, *restrict_params, MAX_DEPTH)).fetchall()
    scored: list[tuple[float, int]] = []
    for start in range(0, len(ranked), BATCH):
        batch = ranked[start:start + BATCH]
        marks = ",".join(str(int(r)) for r, _ in batch)
        texts = {r: cols for r, *cols in conn.execute(
            f"SELECT rowid, heading, context, content FROM {table} WHERE rowid IN ({marks})")}
        sizes = {r: sum(_varints(sz)) for r, sz in conn.execute(
            f"SELECT id, sz FROM {table}_docsize WHERE id IN ({marks})")}
        for rid, _ in batch:
            counts = counter.counts([c or "" for c in texts[rid]])
            scored.append((_score(counts, sizes[rid], idfs, weights, stats.avgdl), int(rid)))
        if len(scored) < limit:
            continue
        scored.sort(key=lambda s: (-s[0], s[1]))
        del scored[limit:]
        theta = scored[-1][0]
        if theta <= bound * (1 + MARGIN):
            continue  # a row of optional phrases alone could still reach the top
        nxt = start + BATCH
        if nxt >= len(ranked):
            # Every essential row was scored, unless the list was cut at MAX_DEPTH.
            return [(rid, s) for s, rid in scored] if len(ranked) < MAX_DEPTH else None
        if (ranked[nxt][1] + bound) * (1 + MARGIN) < theta:
            return [(rid, s) for s, rid in scored]
    return None
