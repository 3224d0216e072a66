"""Stage 1: hybrid candidates (vector leg + FTS leg) fused with RRF.

The ranked lists, in ``hybrid_candidates``:

* the vector leg: nearest chunks, ranked by their cosine plus their note's
  (``note_aware_ranking``, ADR-0078; plain cosine with ``dense_note_weight = 0``);
* the FTS leg: bm25 over the compiled trigram phrases, then short-CJK rows
  (``engines/lexical/fts.py``); each row's vote scaled by how much of the query it
  holds (``fts.query_coverage``, ADR-0079);
* the title leg (off by default, ADR-0072) and the note leg: notes ranked by
  their summary vector, each entering through its best chunk (ADR-0076).

``rrf_fuse`` is pure; fetching goes through ``index/`` (``storage/chunks.py``
for rows, ``engines/lexical/fts.py`` for the full-text leg). Every leg obeys the
same filter restriction and the same exclusion set (docs/design.md §1.2), so they agree
on what is excluded.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from concurrent.futures import Future
from dataclasses import dataclass, field

import numpy as np

from ..engines.allowed import Allowed
from ..engines.lexical import fts, shortcjk
from ..engines.lexical.word_postings import WordPostings
from ..engines.vectors import knn
from ..query import ParsedQuery, fts_phrase
from ..storage import chunks
from ..storage.db import Index
from ..types import Candidate
from ..wire.bounds import MAX_KNN_K
from .explain import LegList, explain_stage1
from .filters import Restriction
from .hubness import LeverView, lever_view
from .params import Resolved
from .sections import doc_ids as _doc_ids
from .sections import with_sections
from .tiny import holding_terms, own_votes, scaled
from .titles import named_notes, title_leg


def rrf_fuse(
    ranked: list[list[int]], k: float, weights: list[float] | None = None,
    votes: list[dict[int, float] | None] | None = None,
) -> list[tuple[int, float]]:
    """Reciprocal Rank Fusion: ``score = Σ w_leg · v / (k + rank)``, rank
    1-based; ``v`` is the leg's per-item vote scale from ``votes`` (1 when
    absent). Ties keep the order of first appearance (leg order, then rank)."""
    weights = weights or [1.0] * len(ranked)
    votes = votes or [None] * len(ranked)
    scores: dict[int, float] = {}
    for leg, w, scale in zip(ranked, weights, votes):
        for rank, cid in enumerate(leg, start=1):
            v = 1.0 if scale is None else scale.get(cid, 0.0)
            scores[cid] = scores.get(cid, 0.0) + w * v / (k + rank)
    order = {cid: i for i, cid in enumerate(dict.fromkeys(c for leg in ranked for c in leg))}
    return sorted(scores.items(), key=lambda kv: (-kv[1], order[kv[0]]))


def _nearest(idx: Index, table: str, blob: bytes, k: int, allowed_sql: str | None,
             excluded: AbstractSet[int] | None = None,
             allowed_docs: np.ndarray | None = None) -> list[tuple[int, float]]:
    """Top-k (rowid, cosine) of a vec0 ``table`` (the vector engine, ``knn.nearest``)."""
    k = min(k, MAX_KNN_K)  # sqlite-vec's ceiling; only an eval asking past 50 hits comes near it
    return knn.nearest(idx.conn, idx.vectors, table, blob, k, Allowed(allowed_sql, (), allowed_docs), excluded)


_blob = knn.as_blob


def vector_leg(
    idx: Index, qvec: np.ndarray, n: int, restriction: Restriction, excluded: AbstractSet[int]
) -> list[tuple[int, float]]:
    """Top-n (chunk id, cosine similarity) by L2 distance, excluded ids dropped.

    A few excluded ids are dropped after a KNN that many deeper; when there
    are more of them than n (a common word excluded note-wide), they are
    filtered out of the KNN instead, which keeps its depth at n."""
    if len(excluded) <= n:
        hits = _nearest(idx, "vec_chunks", _blob(qvec), n + len(excluded), restriction.sql,
                        allowed_docs=restriction.docs)
        return [h for h in hits if h[0] not in excluded][:n]
    return _nearest(idx, "vec_chunks", _blob(qvec), n, restriction.sql, excluded, restriction.docs)


def _sims(idx: Index, table: str, blob: bytes, ids: list[int]) -> dict[int, float]:
    """cos(query, row) for the rows of ``table`` with these rowids."""
    return knn.similarities(idx.conn, idx.vectors, table, blob, ids)


def nearest_notes(idx: Index, qvec: np.ndarray, n: int, restriction: Restriction) -> list[tuple[int, float]]:
    """Top-n (document id, cosine) by the note-summary vectors (ADR-0076);
    empty for an index without them."""
    if not idx.conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_notes'").fetchone():
        return []
    # Notes without chunks have no note vector, so the allowed notes are
    # exactly the notes of the allowed chunks.
    return _nearest(idx, "vec_notes", _blob(qvec), n, restriction.doc_sql, allowed_docs=restriction.docs)


# The note-aware vector leg re-ranks this many times the leg's depth of nearest chunks.
NOTE_AWARE_POOL = 4


def note_aware_ranking(
    idx: Index, qvec: np.ndarray, chunk_hits: list[tuple[int, float]], near: list[tuple[int, float]], n: int,
    weight: float, doc_of: dict[int, int] | None = None,
) -> list[int]:
    """``chunk_hits`` (the nearest chunks, with their cosines) re-ranked by
    cos(q, chunk) + weight * cos(q, note), top n (ADR-0078).

    Similarities are summed, not rank-fused: a fairly close chunk of the note
    that is clearly about the query beats a close chunk of an unrelated note
    (a glossary, a code reference), and RRF would throw those margins away.
    ``near`` holds the nearest notes' cosines; the others are looked up,
    as are the chunks' notes unless given (``doc_of``)."""
    if not near:
        return [cid for cid, _ in chunk_hits[:n]]
    chunk_sim = dict(chunk_hits)
    if doc_of is None:
        doc_of = _doc_ids(idx, list(chunk_sim))
    note_sim = dict(near)
    rest = {d for d in doc_of.values() if d not in note_sim}
    if rest:
        note_sim.update(_sims(idx, "vec_notes", _blob(qvec), sorted(rest)))

    def score(cid: int) -> float:
        return chunk_sim[cid] + weight * note_sim.get(doc_of.get(cid, -1), 0.0)

    return sorted(chunk_sim, key=lambda cid: (-score(cid), cid))[:n]


def excluded_chunk_ids(idx: Index, parsed: ParsedQuery, scope: str, restriction: Restriction,
                       words: WordPostings | None = None) -> AbstractSet[int]:
    if not (parsed.negatives or parsed.negative_shorts):
        return set()
    if words is not None and restriction.sql is None:
        found = words.rows_with(idx.conn, parsed.negatives, shorts=parsed.negative_shorts,
                                whole_notes=scope == "note")
        if found is not None:
            return found
    ids = fts.excluded_ids(idx.conn, parsed, restriction.sql)
    if scope == "note" and ids:
        # Note-level exclusion: a note any of whose chunks matches is dropped
        # whole, so its other chunks cannot slip back in (ADR-0071).
        if words is not None:
            return words.chunks_of_same_notes(ids)
        return chunks.chunks_of_same_notes(idx, ids)
    return ids


@dataclass
class Stage1:
    candidates: list[Candidate]  # the first ``r.pool_size`` fused, loaded
    vec_ids: list[int]
    fts_ids: list[int]
    vec_sims: list[float]  # cosine of each vec_ids chunk to the query
    # trigram -> rows, as the full-text leg looked them up: low_confidence's
    # known-word share reads the same trigrams (a doclist walk each, ~7 ms a
    # search at 100k chunks when looked up twice).
    trigram_df: dict[str, int] = field(default_factory=dict)
    words: WordPostings | None = None  # the word index the legs read, if any (ADR 0132)


def hybrid_candidates(
    idx: Index,
    parsed: ParsedQuery,
    qvec: np.ndarray | Future[np.ndarray] | None,
    r: Resolved,
    restriction: Restriction,
    *,
    explain: bool = False,
    embed: Callable[[str], np.ndarray] | None = None,
) -> Stage1:
    """``qvec`` may still be being computed: the lexical work runs first and
    the vector is waited for only when the vector legs need it (ADR 0081).
    ``explain``: each candidate records which legs found it (explain.py)."""
    words = idx.word_postings()  # big vaults, long-lived processes (ADR 0132)
    excluded = excluded_chunk_ids(idx, parsed, r.exclusion_scope, restriction, words)
    trigram_df: dict[str, int] = {}
    fts_ids, fts_votes = _full_text(idx, parsed, r, restriction, excluded, trigram_df, words)
    # The sole holder reads the full-text leg alone: found here, while the
    # query is still being embedded, not after the vector legs (ADR 0221).
    sole = None
    if r.fusion.sole_holder_first and r.legs == "hybrid" and fts_votes:
        sole = sole_holder(idx, parsed, fts_ids, fts_votes, trigram_df, words)
    if isinstance(qvec, Future):
        qvec = qvec.result()
    use_note_leg = r.fusion.note_weight > 0 and qvec is not None and r.legs == "hybrid"
    use_dense_notes = r.fusion.dense_note_weight > 0 and qvec is not None and r.legs in ("hybrid", "vector")
    # The hubness remedies (issue 49) answer the vector legs from memory.
    view = lever_view(idx, qvec, r.fusion, restriction, embed) if qvec is not None and r.legs != "fts" else None
    # The nearest notes, found once for the note-aware vector leg and the note leg.
    near: list[tuple[int, float]] = []
    if qvec is not None and (use_note_leg or use_dense_notes):
        near = view.nearest_notes(r.candidates) if view else nearest_notes(idx, qvec, r.candidates, restriction)
    found: tuple[list[tuple[int, float]], dict[int, int] | None] | None = None
    if view is None and near and qvec is not None and r.fusion.section_weight > 0:
        # Section evidence (sections.py): the nearest notes and the notes of
        # the nearest chunks rescored; every note of the chunk leg gets its
        # blended score, as the note-aware ranking reads it.
        hits = _chunk_hits(idx, qvec, r, restriction, excluded, use_dense_notes)
        scores = with_sections(idx, qvec, near, hits, r.fusion.section_weight, r.candidates,
                               hits_exact=not excluded and restriction.sql is None)
        near, found = scores.notes, (hits, scores.doc_of)
    dense_near = near if use_dense_notes else []
    if found is None and view is None and qvec is not None and r.legs in ("hybrid", "vector"):
        found = (_chunk_hits(idx, qvec, r, restriction, excluded, bool(dense_near)), None)
    vec_ids, vec_sims = _vectors(idx, qvec, r, excluded, dense_near, view, found)

    vec_votes: dict[int, float] | None = None
    if r.fusion.own_words > 0:  # the tiny-chunk prior (tiny.py, ADR 0280)
        with_fts = r.fusion.own_words_fts
        prior = own_votes(idx, vec_ids + fts_ids if with_fts else vec_ids, r.fusion.own_words)
        vec_votes = scaled(None, vec_ids, prior)
        if with_fts:
            held = holding_terms(idx, r.fusion.own_words, prior, fts_ids, [*parsed.positives, *parsed.short_terms])
            fts_votes = scaled(fts_votes, fts_ids, held)

    names = ["vector", "full_text"]
    lists, weights = [vec_ids, fts_ids], [r.fusion.vec_weight, r.fusion.fts_weight]
    votes: list[dict[int, float] | None] = [vec_votes, fts_votes]
    chunk_fused = rrf_fuse(lists, r.fusion.rrf_k, weights, votes)
    if r.fusion.title_weight > 0 and r.legs == "hybrid":
        names.append("title")
        lists.append(_title_chunks(idx, parsed, r, restriction, excluded, chunk_fused))
        weights.append(r.fusion.title_weight)
        votes.append(None)
    if use_note_leg:
        # The note leg (ADR-0076): the nearest notes by their summary vector.
        names.append("note")
        lists.append(_docs_to_chunks(idx, [d for d, _ in near[:r.candidates]], excluded, chunk_fused))
        weights.append(r.fusion.note_weight)
        votes.append(None)
    if sole is not None:
        # As much weight as every other leg together: the one note that
        # holds a rare term of the query and the whole query cannot be
        # outvoted by pages the vector legs like (ADR 0142).
        names.append("sole_holder")
        lists.append([sole])
        weights.append(sum(weights))
        votes.append(None)
    if r.fusion.named_note_first and r.legs == "hybrid":
        named = _named_chunks(idx, parsed, restriction, excluded, chunk_fused)
        if named:
            # Twice every other leg's weight: the named note's first place
            # cannot be outvoted (ADR 0083).
            names.append("named_note")
            lists.append(named)
            weights.append(2 * sum(weights))
            votes.append(None)
    fused = rrf_fuse(lists, r.fusion.rrf_k, weights, votes)
    candidates = _candidates(idx, fused, vec_ids, fts_ids, r.pool_size)
    if explain:
        legs = [LegList(n, ids, w, v) for n, ids, w, v in zip(names, lists, weights, votes)]
        explain_stage1(candidates, legs, r.fusion.rrf_k, dict(zip(vec_ids, vec_sims)))
    return Stage1(candidates, vec_ids, fts_ids, vec_sims, trigram_df, words)


# Terms rarer than this (in rows, by their rarest trigram) are checked for a
# sole holder; a term in more rows is too common to name one note.
SOLE_HOLDER_MAX_ROWS = 1000
SOLE_HOLDER_MAX_TERMS = 3


def sole_holder(idx: Index, parsed: ParsedQuery, fts_ids: list[int], coverage: dict[int, float],
                trigram_df: dict[str, int], words: WordPostings | None = None) -> int | None:
    """The full-text leg's first row, when it holds every query term any row
    holds (coverage 1) and one of those terms occurs in no other note: the
    page that documents a pasted identifier (``{{column_name}}``,
    ``#page=N``), which the vector and note legs, blind to rare strings,
    would otherwise outvote (issue 36). None otherwise.

    Only the rarest few terms are counted (by their trigram bound, already
    looked up by the leg), each with a query that stops at its second note."""
    if not fts_ids or coverage.get(fts_ids[0], 0.0) < 1.0 - 1e-9:
        return None
    top = fts_ids[0]
    row = idx.conn.execute(f"SELECT heading, context, content FROM {fts.FTS_TABLE} WHERE rowid = ?",
                           (top,)).fetchone()
    if row is None:
        return None
    text = "\x00".join(col or "" for col in row).casefold()
    held = [t for t in parsed.positives if t.casefold() in text]
    shorts = [t for t in parsed.short_terms if t.casefold() in text]
    bounds = fts.phrase_df_bounds(idx.conn, held, trigram_df, words) if held else []
    ranked = sorted((b, t, fts.FTS_TABLE) for b, t in zip(bounds, held) if b <= SOLE_HOLDER_MAX_ROWS)
    candidates = [(t, table) for _, t, table in ranked[:SOLE_HOLDER_MAX_TERMS]]
    if shorts and shortcjk.exists(idx.conn):
        candidates += [(t, shortcjk.TABLE) for t in shorts[:SOLE_HOLDER_MAX_TERMS]]
    doc = _doc_ids(idx, [top]).get(top)
    bp = fts.bigram_postings(words, shorts)
    for term, table in candidates:
        if table == shortcjk.TABLE and bp is not None:
            if doc is not None and bp.only_in(idx.conn, term, doc):
                return top
            continue
        phrase = shortcjk.as_bigrams(term) if table == shortcjk.TABLE else term  # as the leg matched it
        notes = {d for (d,) in idx.conn.execute(
            f"SELECT DISTINCT c.doc_id FROM {table} f JOIN chunks c ON c.id = f.rowid "
            f"WHERE {table} MATCH ? LIMIT 2", (fts_phrase(phrase),))}
        if notes == {doc}:
            return top
    return None


def _full_text(
    idx: Index, parsed: ParsedQuery, r: Resolved, restriction: Restriction, excluded: AbstractSet[int],
    trigram_df: dict[str, int], words: WordPostings | None = None,
) -> tuple[list[int], dict[int, float] | None]:
    """The FTS leg's chunk ids, best first, and each one's vote scale: how
    much of the query it holds (ADR-0079) — rank 1 for one common word is
    weak evidence. No scale (None) when coverage is off or the leg runs alone."""
    if r.legs not in ("hybrid", "fts") or not (parsed.match_expr or parsed.short_terms):
        return [], None
    # Looked up once for the leg (pruning, exact top-k) and the coverage.
    allowed = fts.Allowed(restriction.sql, (), restriction.docs)
    search = fts.LexicalSearch(idx.conn, parsed, r.fusion.bm25_weights, allowed, words=words, memo=trigram_df,
                               counts={})
    hits = fts.fts_search(search, r.candidates, excluded)
    ids = [cid for cid, _ in hits]
    if not (r.fusion.fts_coverage and ids and r.legs == "hybrid"):
        return ids, None
    return ids, search.coverage(ids)


def _chunk_hits(idx: Index, qvec: np.ndarray, r: Resolved, restriction: Restriction, excluded: AbstractSet[int],
                note_aware: bool) -> list[tuple[int, float]]:
    """The chunk leg's nearest chunks with their cosines: ``NOTE_AWARE_POOL``
    times the leg's depth when the note-aware ranking re-ranks them."""
    n = r.candidates * (NOTE_AWARE_POOL if note_aware else 1)
    return vector_leg(idx, qvec, n, restriction, excluded)


def _vectors(
    idx: Index, qvec: np.ndarray | None, r: Resolved, excluded: AbstractSet[int], near: list[tuple[int, float]],
    view: LeverView | None, found: tuple[list[tuple[int, float]], dict[int, int] | None] | None,
) -> tuple[list[int], list[float]]:
    """The vector leg's chunk ids, best first (note-aware when ``near`` holds
    the nearest notes, ADR-0078), and the plain cosines of the nearest
    chunks, which ``low_confidence`` reads (ADR-0075). ``found``: the
    nearest chunks (``_chunk_hits`` with ``bool(near)``) and their notes
    when already looked up; asked of ``view`` when the exact scan answers."""
    if qvec is None or r.legs not in ("hybrid", "vector"):
        return [], []
    n = r.candidates
    if view is not None:
        return view.vectors(n, NOTE_AWARE_POOL, excluded, near, r.fusion.dense_note_weight)
    if found is None:
        return [], []
    hits, doc_of = found
    if near:
        ranked = note_aware_ranking(idx, qvec, hits, near, n, r.fusion.dense_note_weight, doc_of)
        return ranked, [sim for _, sim in hits[:n]]
    return [cid for cid, _ in hits], [sim for _, sim in hits]


def _candidates(idx: Index, fused: list[tuple[int, float]], vec_ids: list[int], fts_ids: list[int],
                depth: int) -> list[Candidate]:
    """The first ``depth`` fused chunks loaded (what stages 2-3 take: loading
    all ~150 cost ~1.5 ms a search at 100k chunks), with their score and
    per-leg ranks."""
    vrank = {cid: i for i, cid in enumerate(vec_ids, 1)}
    frank = {cid: i for i, cid in enumerate(fts_ids, 1)}
    out: list[Candidate] = []
    at = 0
    while len(out) < depth and at < len(fused):
        batch = fused[at:at + depth - len(out)]
        at += len(batch)
        by_id = {c.chunk_id: c for c in chunks.load_candidates(idx, [cid for cid, _ in batch])}
        for cid, score in batch:
            c = by_id.get(cid)
            if c is None:
                continue  # deleted between the legs and the load (a live reindex): the next one moves up
            c.score = score
            c.vec_rank = vrank.get(cid)
            c.fts_rank = frank.get(cid)
            out.append(c)
    return out


def _title_chunks(
    idx: Index, parsed: ParsedQuery, r: Resolved, restriction: Restriction, excluded: AbstractSet[int],
    fused: list[tuple[int, float]],
) -> list[int]:
    """The title leg (ADR-0072) as chunk ids."""
    doc_sql = restriction.doc_sql
    hits = title_leg(idx, parsed.terms.title_words, doc_sql, r.fusion.title_min_coverage)
    return _docs_to_chunks(idx, [h.doc_id for h in hits], excluded, fused)


def _named_chunks(
    idx: Index, parsed: ParsedQuery, restriction: Restriction, excluded: AbstractSet[int],
    fused: list[tuple[int, float]],
) -> list[int]:
    """Notes the query names exactly (``titles.named_notes``), as chunk ids."""
    doc_sql = restriction.doc_sql
    return _docs_to_chunks(idx, named_notes(idx, parsed.terms, doc_sql), excluded, fused)


def _docs_to_chunks(idx: Index, docs: list[int], excluded: AbstractSet[int],
                    fused: list[tuple[int, float]]) -> list[int]:
    """A ranked list of notes as a ranked list of chunks for RRF: each note's
    best chunk so far (by the chunk legs' fusion), else its first chunk that
    is not excluded. A note with no chunk left drops out — under note-level
    exclusion (ADR-0071) every chunk of an excluded note is in ``excluded``."""
    if not docs:
        return []
    ids = [cid for cid, _ in fused]
    doc_of = _doc_ids(idx, ids)
    best: dict[int, int] = {}
    for cid in ids:
        best.setdefault(doc_of[cid], cid)
    # The notes the fusion has not reached: their first chunk not excluded.
    best.update(chunks.first_chunks(idx, [d for d in docs if d not in best], excluded))
    return [best[d] for d in docs if d in best and best[d] not in excluded]
