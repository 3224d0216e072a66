"""The lexical leg of stage 1 and the exclusion scan the vector leg obeys.

SQL builders (``*_sql``) are separate from the executors so the statements
can be read, tested and benchmarked on their own.

* ``fts_search``: one ``LexicalSearch``'s bm25-ranked trigram match of ``ParsedQuery.match_expr``,
  with phrases too common to rank pruned from the ranked expression
  (ADR 0012), followed by the short-CJK bigram leg's extra rows (ADR 0011).
* ``query_coverage``: how much of the query each of the leg's rows holds,
  which scales the leg's RRF votes (ADR 0079).
* ``excluded_ids``: the chunk ids the negative expression alone matches, one
  rowid scan, no bm25, no ORDER BY, only when there are negatives (ADR 0014).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import math
from collections.abc import Set as AbstractSet
from typing import Any, cast

import apsw

from groove.engines.lexical import bm25_topk, shortcjk
from groove.engines.lexical.terms import EVERY_ROW, Allowed, RankedMatch
from groove.engines.lexical.word_postings import WordPostings, answers, countable
from groove.query import ParsedQuery, fts_phrase, is_cjk, or_expr

log = logging.getLogger(__name__)

FTS_TABLE = "fts_chunks"
# Where a search's ``counts`` keeps a short term's bigram-table count (a
# control character: no phrase holds one, so no trigram phrase's key is it).
BIGRAM_COUNT = "\x00bigrams:"
VOCAB_TABLE = "temp.groove_fts_vocab"  # per connection: works on read-only DBs


# ---------------------------------------------------------------- SQL builders

# A restriction is written ``+rowid IN (...)``: the unary plus keeps SQLite
# from handing the rowid list to FTS5, which would then run the whole MATCH
# once per allowed row (600 ms a search on the en eval vault under a filter
# allowing every chunk, minutes for a long phrase; issue 15). Run once, then
# filtered: 1.1 ms, the same rows in the same order.
def _restricted(where: str, restrict_sql: str | None) -> str:
    return f"{where} AND +rowid IN ({restrict_sql})" if restrict_sql else where


def fts_sql(restrict_sql: str | None = None, *, table: str = FTS_TABLE) -> str:
    """Ranked match. Params: w_h, w_c, w_b, match, *restrict, limit.

    ``ORDER BY bm25`` scores every matching row before LIMIT applies, so the
    cost follows the rows the expression matches (hence the pruning below).
    """
    where = _restricted(f"{table} MATCH ?", restrict_sql)
    return (
        f"SELECT rowid, bm25({table}, ?, ?, ?) AS r FROM {table} "
        f"WHERE {where} ORDER BY r LIMIT ?"
    )


def match_ids_sql(restrict_sql: str | None = None, *, limit: bool = False,
                  table: str = FTS_TABLE) -> str:
    """Unranked rowid scan. Params: match, *restrict[, limit]."""
    sql = "SELECT rowid FROM " + table + " WHERE " + _restricted(f"{table} MATCH ?", restrict_sql)
    return sql + (" LIMIT ?" if limit else "")


def matches_any(conn: apsw.Connection, expr: str, table: str = FTS_TABLE) -> bool:
    """Whether any row of ``table`` matches the MATCH expression ``expr``:
    the first row answers, no doclist is walked to its end."""
    sql = f"SELECT 1 FROM {table} WHERE {table} MATCH ? LIMIT 1"
    return conn.execute(sql, (expr,)).fetchone() is not None


def shortcjk_sql(restrict_sql: str | None = None, *, negated: bool = False) -> str:
    """Ranked bigram match. Params: w_h, w_c, w_b, match, [negative_expr], *restrict, limit.

    The bigram table has no NOT partner in the same FTS row, so exclusions are
    applied as the same rowid set the vector leg drops.
    """
    t = shortcjk.TABLE
    where = f"{t} MATCH ?"
    if negated:
        where += f" AND rowid NOT IN ({match_ids_sql()})"
    where = _restricted(where, restrict_sql)
    return f"SELECT rowid, bm25({t}, ?, ?, ?) AS r FROM {t} WHERE {where} ORDER BY r LIMIT ?"


# ------------------------------------------------------- OR-expansion pruning

def fts_row_count(conn: apsw.Connection, table: str = FTS_TABLE) -> int:
    """Rows in the FTS table in O(1): the nRow varint of FTS5's averages record."""
    stats = bm25_topk.table_stats(conn, table)
    return stats.rows if stats else 0


def _ensure_vocab(conn: apsw.Connection) -> None:
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS {VOCAB_TABLE} "
        f"USING fts5vocab(main, {FTS_TABLE}, row)"
    )


def phrase_df_bounds(conn: apsw.Connection, phrases: list[str], memo: dict[str, int] | None = None,
                     words: WordPostings | None = None) -> list[int]:
    """An upper bound on each phrase's document frequency: its rarest trigram's.

    Tokenized by the table's own trigram tokenizer so case folding agrees.
    ``memo`` (trigram -> df) lets one search look each trigram up once,
    for the leg's pruning and again for ``query_coverage``. ``words``
    counts the trigrams it can (ASCII letters and digits, kana and kanji)
    in memory: the same count, without fts5vocab's walk of each trigram's
    doclist, and skips a trigram whose vocabulary lower bound cannot beat
    the rarest one counted so far (the memo then lacks it; the minimum is
    the same).
    """
    _ensure_vocab(conn)
    memo = {} if memo is None else memo
    tok = conn.fts5_tokenizer("trigram")
    grams: list[set[str]] = [set(cast("list[str]", tok(p.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None,
                                                        include_offsets=False, include_colocated=False)))
                             for p in phrases]
    if words is not None:
        for gs in grams:
            todo = [g for g in gs if g not in memo and answers(g)]
            best = min((memo[g] for g in gs if g in memo), default=None)
            for lo, g in sorted((words.df_range(g)[0], g) for g in todo):
                if best is not None and lo >= best:
                    break  # this trigram, and every one after it, is in at least ``best`` rows
                memo[g] = words.df(conn, g)
                best = memo[g] if best is None else min(best, memo[g])
    for term in sorted(set().union(*grams) - memo.keys()):  # one indexed lookup each
        if words is not None and answers(term):
            continue  # left out above: cannot be the minimum
        r = conn.execute(f"SELECT doc FROM {VOCAB_TABLE} WHERE term = ?", (term,)).fetchone()
        memo[term] = r[0] if r else 0
    return [min((memo[g] for g in gs if g in memo), default=0) for gs in grams]


def _bound_within(conn: apsw.Connection, phrase: str, cap: float, memo: dict[str, int],
                  words: WordPostings, counts: dict[str, int]) -> bool:
    """Whether ``phrase``'s trigram bound (its rarest trigram's count) is at
    most ``cap``, from the word index: first by the vocabulary's cheap
    bounds, then counting exactly, and only until one trigram answers."""
    if words.df_range(phrase)[0] > cap:
        return False  # the bound is at least the phrase's own count
    grams = list(dict.fromkeys(_trigrams(conn, phrase)))
    if any(memo[g] <= cap for g in grams if g in memo):
        return True
    if any(words.df_range(g)[1] <= cap for g in grams if g not in memo):
        return True
    if counts.setdefault(phrase, words.df(conn, phrase)) > cap:
        return False
    for g in grams:
        if g not in memo:
            memo[g] = words.df(conn, g)
            if memo[g] <= cap:
                return True
    return False


def _trigrams(conn: apsw.Connection, phrase: str) -> list[str]:
    tok = conn.fts5_tokenizer("trigram")
    # Without offsets or colocated tokens the tokenizer yields plain strings.
    return cast("list[str]", list(tok(phrase.encode("utf-8"), apsw.FTS5_TOKENIZE_QUERY, None,
                                      include_offsets=False, include_colocated=False)))


def ranked_phrases(conn: apsw.Connection, phrases: list[str], memo: dict[str, int] | None = None,
                   words: WordPostings | None = None, counts: dict[str, int] | None = None) -> list[str]:
    """The phrases worth ranking with bm25 (ADR 0012).

    FTS5's bm25 clamps the IDF of a phrase found in at least half the rows to
    1e-6: it cannot move the order but costs a full doclist scan. Phrases
    whose bound exceeds half the rows leave the ranked expression; the rarest
    is always kept so the leg still ranks something.
    """
    if len(phrases) <= 1:
        return phrases
    n = fts_row_count(conn)
    if words is not None and memo is not None and counts is not None and all(map(answers, phrases)):
        kept = [p for p in phrases if _bound_within(conn, p, n / 2, memo, words, counts)]
        if kept:
            return kept
    bounds = phrase_df_bounds(conn, phrases, memo, words)
    kept = [p for p, b in zip(phrases, bounds) if b <= n / 2]
    if not kept:
        kept = [phrases[min(range(len(phrases)), key=bounds.__getitem__)]]
    return kept


# ------------------------------------------------------------------ executors

def _ranked_expr(parsed: ParsedQuery, positives: list[str]) -> str:
    pos = or_expr(positives)
    return f"({pos}) NOT ({parsed.negative_expr})" if parsed.negative_expr else str(pos)


@dataclasses.dataclass
class LexicalSearch:
    """One search's full-text state, carried between the trigram leg, the
    short-CJK leg and the coverage the fusion reads (issue 51: it was seven
    parameters of every function on the way).

    ``allowed``: the rows a filter allows (filters apply inside the leg).
    ``words``: the in-memory word index of a big vault, when one is ready
    (ADR 0132). ``prune``: leave phrases too common to rank out of the
    ranked expression (ADR 0012). ``memo`` (trigram -> its rows, a bound)
    and ``counts`` (phrase -> its exact rows; a short term's bigram count
    under ``BIGRAM_COUNT``) are filled as the legs look things up, so the
    coverage and the confidence check never count anything twice; None
    counts afresh each time.
    """

    conn: apsw.Connection
    parsed: ParsedQuery
    weights: tuple[float, float, float]
    allowed: Allowed = EVERY_ROW
    words: WordPostings | None = None
    prune: bool = True
    memo: dict[str, int] | None = None
    counts: dict[str, int] | None = None

    def coverage(self, ids: list[int]) -> dict[int, float]:
        """``query_coverage`` of ``ids`` with what this search has counted."""
        return query_coverage(self.conn, self.parsed, ids, self.memo, self.counts, self.words)


def _trigram_leg(s: LexicalSearch, limit: int) -> list[tuple[int, float]]:
    conn, parsed, allowed = s.conn, s.parsed, s.allowed
    assert parsed.match_expr is not None
    kept = ranked_phrases(conn, parsed.positives, s.memo, s.words, s.counts) if s.prune else parsed.positives
    match = RankedMatch(parsed.positives, kept, parsed.negatives, s.weights)
    if s.words is not None and s.prune and allowed.in_memory:
        out = s.words.ranked(conn, match, limit, s.counts, allowed.docs_if_filtered)
        if out is not None:
            return out
    expr = parsed.match_expr if len(kept) == len(parsed.positives) else _ranked_expr(parsed, kept)
    out = bm25_topk.ranked_top(conn, FTS_TABLE, match, limit, allowed,
                               lambda p: counted_df(conn, p, s.counts)) if s.prune else None
    if out is None:
        rows: list[Any] = conn.execute(fts_sql(allowed.sql), (*s.weights, expr, *allowed.params, limit)).fetchall()
        out = [(int(rid), -float(r)) for rid, r in rows]
    if expr != parsed.match_expr and len(out) < limit:
        # Rows matching only pruned phrases scored ~0 in the full ranking;
        # append them unranked so the match set is the full expression's.
        seen = {rid for rid, _ in out}
        # Enough rows that a short list means no more exist (as the word index's).
        more: list[Any] = conn.execute(match_ids_sql(allowed.sql, limit=True),
                            (parsed.match_expr, *allowed.params, limit + len(seen))).fetchall()
        for (rid,) in more:
            if rid not in seen and len(out) < limit:
                out.append((int(rid), 0.0))
    return out


def bigram_postings(words: WordPostings | None, terms: list[str]) -> WordPostings | None:
    """The bigram table's in-memory index when it can count every one of
    ``terms`` (ADR 0163), else None (FTS5 counts them)."""
    bp = words.bigrams if words is not None else None
    return bp if bp is not None and all(map(countable, terms)) else None


def _shortcjk_leg(s: LexicalSearch, limit: int) -> list[tuple[int, float]]:
    conn, parsed, allowed = s.conn, s.parsed, s.allowed
    bp = bigram_postings(s.words, parsed.short_terms)
    if bp is not None and allowed.in_memory:
        assert s.words is not None
        banned: AbstractSet[int] | None = None
        if parsed.negatives:  # the rows the FTS5 query's NOT IN names
            banned = s.words.rows_with(conn, parsed.negatives)
            if banned is None:
                banned = excluded_ids(conn, parsed)
        found: dict[str, int] = {}
        out = bp.ranked_terms(conn, parsed.short_terms, s.weights, limit, banned, allowed.docs_if_filtered, found)
        if s.counts is not None:  # for the coverage, beside the trigram phrases' counts
            s.counts.update({BIGRAM_COUNT + t: d for t, d in found.items()})
        return out
    if not shortcjk.exists(conn):
        log.warning("short-CJK index missing: run `groove index` to build it")
        return []
    expr = " OR ".join(fts_phrase(shortcjk.as_bigrams(t)) for t in parsed.short_terms)
    neg = (parsed.negative_expr,) if parsed.negative_expr else ()
    rows: list[Any] = conn.execute(shortcjk_sql(allowed.sql, negated=bool(neg)),
                                   (*s.weights, expr, *neg, *allowed.params, limit)).fetchall()
    return [(int(rid), -float(r)) for rid, r in rows]


def append_unseen(lists: list[list[tuple[int, float]]]) -> list[tuple[int, float]]:
    """The trigram list, then bigram-only rows after it (ADR 0011).

    Measured against RRF-fusing the two lists on the Japanese dev queries:
    equal-weight RRF let 2-character terms (``登録``) outrank trigram phrase
    matches and cost paraphrase MRR (0.125 -> 0.083 hybrid); appending
    keeps every query with trigram hits exactly as before.
    """
    out: list[tuple[int, float]] = []
    seen: set[int] = set()
    for lst in lists:
        for rid, score in lst:
            if rid not in seen:
                seen.add(rid)
                out.append((rid, score))
    return out


def fts_search(search: LexicalSearch, limit: int,
               skip: AbstractSet[int] | None = None) -> list[tuple[int, float]]:
    """The lexical leg: (chunk_id, score), best first, at most ``limit``.

    Score: -bm25 of the list a row came from (higher is better within a
    list). Trigram hits come first, then rows only the short-CJK bigram
    search found. In a big index the ranked match takes the exact top-k
    path of ``bm25_topk`` when it can prove its answer, or ``search.words``,
    the in-memory word index, when it holds every phrase (both give the
    plain query's exact rows and scores). ``skip``: rows left out (the
    chunks of notes an exclusion drops whole, and those holding an excluded
    2-letter word, which no FTS5 NOT can name); the result is the first
    ``limit`` of the others.
    """
    if limit <= 0:
        return []
    if not skip:
        return _ranked_rows(search, limit)[0]
    # Ranking limit + len(skip) rows at once (all a note-wide exclusion of a
    # common word might need) cost 5-15x a plain search at 100k chunks. Rows
    # come in one fixed order whatever the limit, ties settled by rowid, so
    # asking for a few more each round until ``limit`` are kept gives the
    # same rows; the last round is the old single ask.
    most = limit + len(skip)
    ask = min(2 * limit, most)
    while True:
        rows, complete = _ranked_rows(search, ask)
        kept = [h for h in rows if h[0] not in skip]
        if len(kept) >= limit or complete or ask >= most:
            return kept[:limit]
        ask = min(4 * ask, most)


def _ranked_rows(s: LexicalSearch, limit: int) -> tuple[list[tuple[int, float]], bool]:
    """The legs' rows, ``limit`` at most, and whether that is all there are
    (every leg that ran returned fewer than it was asked for)."""
    lists = []
    if s.parsed.match_expr is not None:
        lists.append(_trigram_leg(s, limit))
    # Bigram-only rows come after every trigram hit: when the trigram list is
    # already full they would all be cut, and ranking them is the costliest
    # part of a Japanese query in a big vault (a common term like 設定 matches
    # thousands of rows; ~9-12 ms at 100k chunks).
    if s.parsed.short_terms and not (lists and len(lists[0]) >= limit):
        lists.append(_shortcjk_leg(s, limit))
    complete = all(len(lst) < limit for lst in lists)
    lists = [lst for lst in lists if lst]
    if not lists:
        return [], complete
    if len(lists) == 1:
        return lists[0], complete
    return append_unseen(lists)[:limit], complete


def phrase_df(conn: apsw.Connection, phrase: str, table: str = FTS_TABLE) -> int:
    """Rows that contain ``phrase`` (an exact count over its match)."""
    (n,) = conn.execute(f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (fts_phrase(phrase),)).fetchone() or (0,)
    return int(n)


def counted_df(conn: apsw.Connection, phrase: str, counts: dict[str, int] | None) -> int:
    """``phrase_df`` of the trigram table, counted once per search with ``counts``."""
    if counts is None:
        return phrase_df(conn, phrase)
    if phrase not in counts:
        counts[phrase] = phrase_df(conn, phrase)
    return counts[phrase]


def query_coverage(conn: apsw.Connection, parsed: ParsedQuery, ids: list[int],
                   memo: dict[str, int] | None = None, counts: dict[str, int] | None = None,
                   words: WordPostings | None = None) -> dict[int, float]:
    """The share of the query each row of ``ids`` contains, in [0, 1] (ADR 0079).

    A term (positive phrase or short-CJK term) weighs its IDF as bm25 does;
    a row's coverage is the weight of the terms it contains over the weight
    of the terms *any* of the rows contains. Terms no row contains are left
    out: the compiler's particle-tail phrases (``を選ぶには``) match nothing
    and would shrink every row alike. Containment is a case-folded substring
    test on the stored columns — what the trigram tokenizer matches.

    df is counted exactly, except for phrases whose trigram bound says they
    are in over half the rows (too common to rank, ADR 0012): those weigh
    bm25's floor, and counting them would walk their whole doclists.
    """
    shorts = list(parsed.short_terms) if shortcjk.exists(conn) else []
    terms = list(dict.fromkeys([*parsed.positives, *shorts]))
    if not ids or not terms:
        return {}
    marks = ",".join(str(int(i)) for i in ids)
    texts = {
        rid: "\x00".join(col or "" for col in cols).casefold()
        for rid, *cols in conn.execute(
            f"SELECT rowid, heading, context, content FROM {FTS_TABLE} WHERE rowid IN ({marks})")
    }
    folded = [(t, t.casefold()) for t in terms]
    held = {rid: {t for t, f in folded if f in text} for rid, text in texts.items()}
    present = [t for t in terms if any(t in h for h in held.values())]
    if not present:
        return {rid: 0.0 for rid in texts}
    if len(present) == 1:
        # One term: its weight divides by itself (exactly 1.0), so its document
        # frequency is not needed: counting a phrase the word index cannot
        # (one with a space, a CJK one) cost ~5 ms a search at 100k chunks.
        return {rid: 1.0 if h else 0.0 for rid, h in held.items()}
    n = fts_row_count(conn)
    trigram = [t for t in present if t in parsed.positives]
    df: dict[str, int] = {}
    if words is not None and memo is not None and counts is not None:
        # Only whether the bound exceeds n / 2 matters: past it the weight is
        # the floor whatever the bound, and under it the exact count is used.
        for t in [t for t in trigram if answers(t)]:
            df[t] = counted_df(conn, t, counts) if _bound_within(conn, t, n / 2, memo, words, counts) else n
        trigram = [t for t in trigram if t not in df]
    df.update(zip(trigram, phrase_df_bounds(conn, trigram, memo, words)))
    # A 2-character term is one token of the bigram table: its vocabulary has the count.
    bp = bigram_postings(words, [t for t in present if t not in df])
    single = {} if bp is not None else shortcjk.doc_counts(
        conn, [t for t in present if t not in df and len(t) == 2 and all(map(is_cjk, t))])
    for t in present:
        if bp is not None and t not in df:
            df[t] = counts[BIGRAM_COUNT + t] if counts and BIGRAM_COUNT + t in counts else bp.df(conn, t)
        elif t in single:
            df[t] = single[t]
        elif t not in df:
            df[t] = phrase_df(conn, shortcjk.as_bigrams(t), shortcjk.TABLE)
        elif df[t] <= n / 2:
            df[t] = counted_df(conn, t, counts)
    weight = {t: max(math.log((n - df[t] + 0.5) / (df[t] + 0.5)), 1e-6) for t in present}  # FTS5's floor
    total = sum(weight.values())
    # Summed in the query's order, not the set's: a set of strings iterates in
    # a per-process hash order, and the float sum then differs in its last bit.
    return {rid: sum(weight[t] for t in present if t in h) / total for rid, h in held.items()}


def excluded_ids(conn: apsw.Connection, parsed: ParsedQuery, restrict_sql: str | None = None,
                 restrict_params: tuple = ()) -> set[int]:
    """Chunk ids the negative expression alone matches (all three columns),
    and those holding an excluded 2-letter CJK or Hangul word
    (``negative_shorts``: one bigram-table token each, ADR 0223).

    The vector leg drops these so both legs agree on what is excluded.
    Queries without exclusions never pay for the scan.
    """
    ids: set[int] = set()
    if parsed.negative_expr:
        ids |= _match_ids(conn, match_ids_sql(restrict_sql), parsed.negative_expr, restrict_params)
    if parsed.negative_shorts and shortcjk.exists(conn):
        expr = " OR ".join(fts_phrase(shortcjk.as_bigrams(t)) for t in parsed.negative_shorts)
        ids |= _match_ids(conn, match_ids_sql(restrict_sql, table=shortcjk.TABLE), expr, restrict_params)
    return ids


def _match_ids(conn: apsw.Connection, sql: str, expr: str, restrict_params: tuple) -> set[int]:
    # One JSON array instead of a row per id: stepping thousands of rows
    # through Python cost as much as the scan itself (0.8 ms of 1.7 at 5k).
    row = conn.execute(f"SELECT json_group_array(rowid) FROM ({sql})", (expr, *restrict_params)).fetchone()
    return set(json.loads(row[0])) if row else set()
