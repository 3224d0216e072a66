"""The query pipeline, in its fixed order (docs/design.md §1):

    parse_query (Korean typed without spaces split by the vault's words)
    → 1 hybrid candidates + RRF → 2 reranker (opt) → 3 MMR (opt)
    → 4 parent retriever (opt) → match_spans → answer_spans → SearchResponse

``run_search`` is the only place the stages are ordered; every surface (CLI,
MCP, socket, eval) calls it. An optional stage that is off is skipped
entirely, so the output is bit-identical to the pipeline without it.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor

import numpy as np

from ..index import calibration, hangul_split, vocabulary
from ..index.notes import carried_names
from ..index.rules_now import left_out
from ..query import ParsedQuery, parse_query, span_terms
from ..runtime import Runtime
from ..storage.db import Index
from ..storage.sentences import SentenceVectors
from ..types import Candidate
from ..wire.bounds import MAX_LIMIT
from ..wire.search import SearchHit, SearchResponse
from .answers import mark_answers
from .confidence import Confidence, Evidence, Rule, judge, unknown_names_warning
from .explain import explain_hits, explain_mmr, explain_rerank
from .filters import build_restriction, require_phrases
from .fusion import Stage1, hybrid_candidates
from .mmr import apply_mmr
from .params import Resolved, SearchParams, resolve_params
from .parent import expand_parents
from .rerank import rerank_candidates, reranker_for_query
from .spans import match_spans
from .titles import named_notes

__all__ = ["run_search", "SearchParams", "Resolved", "resolve_params"]

# Spans sent per hit (docs/protocol.md): far more than any passage of the
# budget holds, and the cost of a hit's spans stays bounded whatever its size.
MAX_SPANS_PER_HIT = 1_000


def run_search(rt: Runtime, params: SearchParams, *, max_limit: int | None = MAX_LIMIT) -> SearchResponse:
    # One read transaction for the whole search: a live reindex cannot make
    # one leg see a chunk another leg or the final fetch no longer finds.
    with rt.index.snapshot():
        return _run_search(rt, params, max_limit)


def _run_search(rt: Runtime, params: SearchParams, max_limit: int | None) -> SearchResponse:
    r = resolve_params(params, rt.config.search, max_limit=max_limit)
    warnings = list(r.warnings)
    parsed = parse_query(r.query, short_cjk=r.short_cjk, identifiers=r.identifier_phrases)
    warnings.extend(parsed.warnings)
    # The vault's rules as they are now (ADR 0235): a note they leave out is
    # not searched even when the index still holds it, and a rule file that
    # cannot be read is said here too (ADR 0236).
    hidden = left_out(rt.index, rt.vault)
    warnings.extend(hidden.warnings)
    restriction = require_phrases(rt.index, build_restriction(rt.index, r, hidden.ids), parsed.required)

    # 1. hybrid candidates + RRF
    qvec: Future[np.ndarray] | None = None
    if r.legs != "fts" and parsed.embed_text.strip():
        # Embedded on a worker while the lexical leg runs here (ADR 0081).
        qvec = _embed_pool().submit(rt.embedder.embed_query, parsed.embed_text)
    # While the query is embedded: 태그검색 is searched as 태그 and 검색 (ADR 0224).
    splits: dict[str, list[str]] = {}
    if r.hangul_split:
        parsed = hangul_split.with_vault_words(rt.index.conn, parsed, splits)
    stage1 = hybrid_candidates(rt.index, parsed, qvec, r, restriction, explain=bool(params.explain),
                               embed=rt.embedder.embed_query if r.fusion.question_mean else None)
    pool: list[Candidate] = stage1.candidates[: r.pool_size]

    # 2. reranker (optional)
    if r.rerank:
        # Asked for on this query → a load failure is an error; from groove.toml → a warning.
        reranker, w = reranker_for_query(rt, r.reranker, asked=r.reranker_explicit or params.rerank is True,
                                          named=r.reranker_explicit)
        warnings.extend(w)
        if reranker is not None:
            pool, w = rerank_candidates(pool, parsed.embed_text, reranker)
            warnings.extend(w)
            if params.explain:
                explain_rerank(pool)

    # 3. MMR (optional)
    if r.mmr:
        picked = apply_mmr(rt.index, pool, r.mmr_lambda, r.mmr_same_doc_penalty, r.limit)
        if params.explain:
            explain_mmr(pool, picked)
        pool = picked
    top = pool[: r.limit]

    hits = [_hit(c, rank) for rank, c in enumerate(top, start=1)]

    # 4. parent retriever (optional)
    if r.parent_retriever:
        hits = expand_parents(rt.index, hits, r.whole_doc_threshold_tokens, r.max_expanded_tokens)

    # match_spans, last: byte offsets into the final content
    terms = span_terms(parsed)
    for h in hits:
        # The first MAX_SPANS_PER_HIT: a hit of a huge one-line note had 140,000 (issue 50 R1).
        h.match_spans = match_spans(h.content, terms, MAX_SPANS_PER_HIT)
    # answer_spans: each hit's sentence nearest the query by meaning (ADR 0256); never reorders
    if r.answer_spans and qvec is not None and hits:
        model = getattr(rt.embedder, "model_id", None)
        said = mark_answers(hits, qvec.result(), rt.embedder, rt.index if rt.config.search.answers_beyond else None,
                            SentenceVectors(rt.index, model) if model else None)
        warnings.extend([said] if said else [])
    if params.explain:
        explain_hits(hits)

    conf = _low_confidence(rt.index, parsed, top, stage1, r, splits)
    if conf.warning:
        warnings.append(conf.warning)
    if conf.unknown_names:
        warnings.append(unknown_names_warning(conf.unknown_names))
    return SearchResponse(hits, conf.low, dict(restriction.applied), warnings,
                          conf.explain() if params.explain else None)


_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _forget_pool_in_child() -> None:
    # A forked child inherits the pool object but not its threads: work
    # submitted to it would never run. Start afresh.
    global _pool, _pool_lock
    _pool, _pool_lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_pool_in_child)


def _embed_pool() -> ThreadPoolExecutor:
    """Threads for query embeddings. llama.cpp releases the GIL while it
    computes, so the full-text leg's SQLite work overlaps the embedding."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="groove-embed")
        return _pool


def _hit(c: Candidate, rank: int) -> SearchHit:
    return SearchHit(
        path=c.path, title=c.title, heading_path=c.heading_path, level=c.level, content=c.content,
        score=c.score, rank=rank, match_spans=[], answer_spans=[], expanded_from=[], byte_range=c.byte_range,
        line_range=c.line_range, chunk_id=c.chunk_id, explain=c.explain,
    )


def _low_confidence(idx: Index, parsed: ParsedQuery, top: list[Candidate], stage1: Stage1, r: Resolved,
                    splits: dict[str, list[str]] | None = None) -> Confidence:
    """The low_confidence verdict (pipeline/confidence.py) on ``stage1``'s
    cosines, reading the legs' document frequencies and word index. The
    calibration and the query's known-word share are read only when the
    calibrated rule will use them: a meta read and a few indexed lookups (ADR 0103)."""
    trigram_df, words = stage1.trigram_df, stage1.words
    sims = np.asarray(stage1.vec_sims) if stage1.vec_sims else None
    cal = known = script = None
    names: list[str] = []
    if top and sims is not None and r.min_confidence_ratio > 0 and r.confidence_rule == "calibrated":
        cal = calibration.load(idx)
        if cal is not None:
            script = parsed.terms.script
            # Asked in a script the vault lacks: its words in that script are no evidence (ADR 0131).
            skip = frozenset({script}) if cal.absent(script) else frozenset()
            # A word only a note's title, alias or tag holds is known: the
            # named-note rule may have put that note first (ADR 0251).
            carried = carried_names(idx)
            known = vocabulary.known_share(idx.conn, parsed.terms, trigram_df, skip=skip, word_index=words,
                                           splits=splits, names=carried)
            if not cal.absent("latin"):  # a vault with no Latin text cannot be judged by a Latin name
                names = vocabulary.unknown_names(idx.conn, parsed.terms, script, trigram_df, words, carried)
            if not (parsed.terms.words or parsed.terms.cjk_runs) and not {c.chunk_id for c in top} & set(
                    stage1.fts_ids):
                # Quoted symbols ('"???"') leave no word to read, and e5 finds
                # something close to any punctuation: no hit holds the phrase.
                names = list(parsed.positives)
    # A hit the whole query names (the named-note rule, ADR 0083): the vault
    # holds what was asked for, whatever the scores say (ADR 0251).
    named = bool(top) and r.fusion.named_note_first and r.legs == "hybrid" and bool(
        {c.doc_id for c in top} & set(named_notes(idx, parsed.terms, None)))
    return judge(bool(top), sims, cal, Rule(r.confidence_rule, r.min_confidence_ratio, r.low_confidence_threshold),
                 Evidence(known, script, tuple(names), named))
