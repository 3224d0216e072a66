"""Run a golden set through the real pipeline (``run_search``) and score it.

Layers, from pure to effectful:

* ``score_results`` / ``aggregate`` — metrics from ranked document lists;
* ``quoted_queries`` — the guard against a corpus that quotes the golden set;
* ``evaluate`` — golden queries + a ``search`` callable → ``EvalRun``;
* ``EvalSession`` — binds queries to vaults and Runtimes (models loaded once,
  shared by every vault's Runtime), keeps indexes current, builds the
  ``ConfigFingerprint`` and the history record.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import __version__
from .. import query as query_compiler
from ..errors import BadQuery, GrooveError
from ..pipeline import SearchParams, resolve_params, run_search
from ..runtime import Runtime, open_runtime
from .golden import GoldenQuery, GoldenSet
from .history import ConfigFingerprint
from .metrics import collapse_to_documents, expected_ranks, group_means, metric_names, score_query


@dataclass(frozen=True)
class SearchOptions:
    """The `groove search` flags eval passes through, plus the leg switch."""

    rerank: bool | None = None
    reranker: str | None = None
    mmr: bool | None = None
    mmr_lambda: float | None = None
    mmr_same_doc_penalty: float | None = None
    parent_retriever: bool | None = None
    legs: str = "hybrid"

    def params(self, query: str, k: int) -> SearchParams:
        return SearchParams(
            query=query, limit=k, rerank=self.rerank, reranker=self.reranker, mmr=self.mmr,
            mmr_lambda=self.mmr_lambda, mmr_same_doc_penalty=self.mmr_same_doc_penalty,
            parent_retriever=self.parent_retriever, legs=self.legs,
            answer_spans=False,  # marks sentences, never ranks: eval measures ranking only
        )


@dataclass
class QueryResult:
    golden: GoldenQuery
    docs: list[str]  # collapsed, rank order, at most k
    metrics: dict[str, float]
    ranks: dict[str, int | None]  # expected path -> document rank
    unreachable: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def first_rank(self) -> int | None:
        r = [v for v in self.ranks.values() if v is not None]
        return min(r) if r else None


@dataclass
class EvalRun:
    k: int
    results: list[QueryResult]
    warnings: list[str]
    seconds: float = 0.0

    @property
    def metric_names(self) -> list[str]:
        return metric_names(self.k)

    def aggregate(self) -> dict[str, Any]:
        return aggregate(self.results)


def score_results(g: GoldenQuery, chunk_paths: Sequence[str], k: int,
                  unreachable: Sequence[str] = ()) -> QueryResult:
    docs = collapse_to_documents(chunk_paths)[:k]
    return QueryResult(g, docs, score_query(docs, g.expected, g.partial, k), expected_ranks(docs, g.expected),
                       list(unreachable))


def _means(group: Any) -> dict[str, float]:
    return {"n": group.n, **group.means}


def aggregate(results: Sequence[QueryResult]) -> dict[str, Any]:
    """Means overall, per kind and per lang (``"-"`` for entries without one)."""
    overall = group_means([("all", r.metrics) for r in results]).get("all")
    return {
        "overall": _means(overall) if overall else {"n": 0},
        "by_lang": {k: _means(v) for k, v in group_means([(r.golden.lang or "-", r.metrics) for r in results]).items()},
        "by_kind": {k: _means(v) for k, v in group_means([(r.golden.kind, r.metrics) for r in results]).items()},
    }


def evaluate(queries: Sequence[GoldenQuery], search: Callable[[GoldenQuery], Sequence[str]], k: int,
             available: Callable[[GoldenQuery], set[str] | None] = lambda g: None) -> EvalRun:
    """Score each query. ``search`` returns chunk paths in rank order;
    ``available`` the vault's note paths (None: don't check reachability)."""
    if k < 1:
        raise GrooveError(f"--k must be at least 1, got {k}")
    t0 = time.perf_counter()
    warnings: list[str] = []
    results: list[QueryResult] = []
    for g in queries:
        have = available(g)
        missing = [p for p in g.expected if have is not None and p not in have]
        if missing:
            warnings.append(f"line {g.line}: expected path(s) not in the vault, counted as unreachable: "
                            + ", ".join(missing))
        try:
            paths = list(search(g))
            err = None
        except BadQuery as e:  # e.g. exclusions only: scored as finding nothing
            paths, err = [], str(e)
            warnings.append(f"line {g.line}: query {g.query!r} cannot run: {e}; scored as no hits")
        r = score_results(g, paths, k, missing)
        r.error = err
        results.append(r)
    return EvalRun(k, results, warnings, time.perf_counter() - t0)


# -- the corpus-quotes-the-golden-set guard ---------------------------------------

# Shorter strings occur in any corpus by chance: a 3-word phrase is a
# phrase, a 4-word question quoted verbatim is the golden set leaking.
MIN_QUOTE_WORDS = 4
MIN_QUOTE_CJK_CHARS = 10  # CJK text has no spaces to count words by
LITERAL_KINDS = {"keyword", "short"}  # meant to match literal text


def _norm(s: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


def quote_probe(g: GoldenQuery) -> str | None:
    """The text whose verbatim presence in the vault makes ``g`` meaningless, or
    None when the query is too short or literal by design."""
    if g.kind in LITERAL_KINDS:
        return None
    text = _norm(" ".join(w for w in g.query.split() if not (w.startswith("-") and len(w) > 1)))
    text = text.strip("\"'?？!！。. ")
    if len(text.split()) >= MIN_QUOTE_WORDS:
        return text
    if any(query_compiler.is_cjk(ch) for ch in text) and len(text.replace(" ", "")) >= MIN_QUOTE_CJK_CHARS:
        return text
    return None


def quoted_queries(
    queries: Sequence[GoldenQuery], texts: Callable[[GoldenQuery], Mapping[str, str]]
) -> list[tuple[GoldenQuery, list[str]]]:
    """Golden queries found verbatim (case- and whitespace-insensitive) in a note
    of their vault, with the quoting notes. ``texts(g)``: path -> note text."""
    found: list[tuple[GoldenQuery, list[str]]] = []
    norm_cache: dict[int, dict[str, str]] = {}
    for g in queries:
        probe = quote_probe(g)
        if probe is None:
            continue
        notes = texts(g)
        normed = norm_cache.get(id(notes))
        if normed is None:
            normed = norm_cache[id(notes)] = {p: _norm(t) for p, t in notes.items()}
        hits = [p for p, t in normed.items() if probe in t]
        if hits:
            found.append((g, sorted(hits)))
    return found


# -- binding to vaults and runtimes ------------------------------------------------


def resolve_vaults(golden: GoldenSet, vault: Path | None, vault_for_lang: Mapping[str, Path]) -> dict[str, Path]:
    """Query key -> vault. Precedence: the line's ``vault`` (relative to the
    golden file), then ``--vault-for-lang`` for its lang, then ``--vault``."""
    out: dict[str, Path] = {}
    unmapped: dict[str, list[int]] = {}
    for g in golden.queries:
        if g.vault:
            p = Path(g.vault).expanduser()
            out[g.key] = p if p.is_absolute() else (golden.path.parent / p)
        elif g.lang and g.lang in vault_for_lang:
            out[g.key] = Path(vault_for_lang[g.lang])
        elif vault is not None:
            out[g.key] = Path(vault)
        else:
            unmapped.setdefault(g.lang or "(no lang)", []).append(g.line)
    if unmapped:
        parts = [f"lang {lang} (lines {', '.join(map(str, lines[:5]))}{'…' if len(lines) > 5 else ''})"
                 for lang, lines in unmapped.items()]
        raise GrooveError("no vault for " + "; ".join(parts)
                          + ": pass --vault PATH or --vault-for-lang LANG=PATH, or add \"vault\" to the line")
    return {k: v.expanduser().resolve() for k, v in out.items()}


class _QueryEmbeddingCache:
    """Wraps an embedder so repeated queries (tune's grid) embed once."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._cache: dict[str, Any] = {}

    def embed_query(self, text: str) -> Any:
        v = self._cache.get(text)
        if v is None:
            v = self._cache[text] = self._inner.embed_query(text)
        return v

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _sha(obj: Any) -> str:
    path = getattr(obj, "model_path", None)
    if not path:
        return ""
    try:
        from ..models.llama_embedder import file_sha256

        return file_sha256(path)
    except OSError:
        return ""


_NAMED_FUSION = {"rrf_k", "heading_weight", "context_weight", "content_weight", "vec_weight", "fts_weight"}


def _extra_knobs(rt: Runtime) -> dict[str, Any]:
    """Every fusion knob the fingerprint doesn't name, and the passage-text
    recipe: a new knob shows up in the history without touching this file."""
    fusion = rt.config.search.fusion
    extra: dict[str, Any] = {f.name: getattr(fusion, f.name) for f in dataclasses.fields(fusion)
                             if f.name not in _NAMED_FUSION}
    info = rt.index.embedder_info() or {}
    extra["embed_recipe"] = int(info.get("recipe", 1))  # what the index was embedded with
    return extra


class EvalSession:
    """Runtimes for every vault a golden set touches, sharing one embedder."""

    def __init__(self, golden: GoldenSet, vaults: Mapping[str, Path], *, model: str | None = None,
                 embedder: Any = None, index_paths: Mapping[Path, Path] | None = None) -> None:
        self.golden = golden
        self.vault_of = dict(vaults)
        self.runtimes: dict[Path, Runtime] = {}
        for v in dict.fromkeys(self.vault_of.values()):
            rt = open_runtime(v, index_path=(index_paths or {}).get(v), model=model)
            self.runtimes[v] = rt
        first = next(iter(self.runtimes.values()))
        if embedder is not None:
            first._embedder = embedder
        shared = _QueryEmbeddingCache(first.embedder)  # loads the model once
        for rt in self.runtimes.values():
            rt._embedder = shared
            rt._rerankers = first._rerankers
        self._notes: dict[Path, dict[str, str]] = {}

    @property
    def primary(self) -> Runtime:
        return next(iter(self.runtimes.values()))

    def reindex(self, progress: Callable[[Path, dict], None] | None = None) -> list[str]:
        """Bring every index up to date (incremental: unchanged notes cost a stat)."""
        from .. import operations

        warnings: list[str] = []
        for v, rt in self.runtimes.items():
            each = functools.partial(progress, v) if progress else None
            s = operations.reindex(rt, progress=each)
            warnings.extend(getattr(s, "warnings", []) or [])
        return [str(w) for w in warnings]

    def notes(self, vault: Path) -> dict[str, str]:
        """path -> text of every note the scanner accepts."""
        if vault not in self._notes:
            from ..vault.scan import scan_vault

            files, _ = scan_vault(vault)
            self._notes[vault] = {f.path: f.abspath.read_text(encoding="utf-8", errors="replace") for f in files}
        return self._notes[vault]

    def quoted(self) -> list[tuple[GoldenQuery, list[str]]]:
        return quoted_queries(self.golden.queries, lambda g: self.notes(self.vault_of[g.key]))

    def run(self, opts: SearchOptions, k: int, runtimes: Mapping[Path, Runtime] | None = None) -> EvalRun:
        """Evaluate under ``opts``; ``runtimes`` swaps in variants (tune)."""
        rts = runtimes or self.runtimes

        def search(g: GoldenQuery) -> list[str]:
            resp = run_search(rts[self.vault_of[g.key]], opts.params(g.query, k), max_limit=None)
            return [h.path for h in resp.results]

        run = evaluate(self.golden.queries, search, k, lambda g: set(self.notes(self.vault_of[g.key])))
        return run

    def variant(self, search_cfg: Any) -> dict[Path, Runtime]:
        """The same runtimes (index, models) under another ``SearchConfig``."""
        return {v: dataclasses.replace(rt, config=dataclasses.replace(rt.config, search=search_cfg))
                for v, rt in self.runtimes.items()}

    def fingerprint(self, opts: SearchOptions, k: int, runtime: Runtime | None = None) -> ConfigFingerprint:
        rt = runtime or self.primary
        r = resolve_params(opts.params("fingerprint", k), rt.config.search, max_limit=None)
        emb = rt.embedder
        reranker_sha = ""
        if r.rerank and r.reranker:
            try:
                reranker_sha = _sha(rt.reranker(r.reranker))
            except GrooveError:
                reranker_sha = ""
        return ConfigFingerprint(
            embedder_model=str(getattr(emb, "model_id", "")), embedder_sha256=_sha(emb),
            reranker=r.reranker if r.rerank else "", reranker_sha256=reranker_sha, rerank=r.rerank,
            mmr=r.mmr, mmr_lambda=r.mmr_lambda, mmr_same_doc_penalty=r.mmr_same_doc_penalty,
            parent_retriever=r.parent_retriever, legs=r.legs, limit=r.limit, candidates=r.candidates,
            rrf_k=r.fusion.rrf_k, heading_weight=r.fusion.heading_weight, context_weight=r.fusion.context_weight,
            content_weight=r.fusion.content_weight, vec_weight=r.fusion.vec_weight, fts_weight=r.fusion.fts_weight,
            query_compiler_version=str(getattr(query_compiler, "COMPILER_VERSION", "unknown")),
            short_cjk=r.short_cjk, exclusion_scope=r.exclusion_scope, groove_version=__version__,
            extra=_extra_knobs(rt),
        )

    def config_differences(self) -> list[str]:
        """Vaults whose groove.toml [search] differs from the primary's: one
        fingerprint would then misdescribe part of the run."""
        base = self.primary.config.search
        return [str(v) for v, rt in self.runtimes.items() if rt.config.search != base]

    def close(self) -> None:
        for rt in self.runtimes.values():
            rt.close()


def make_record(golden: GoldenSet, session_vaults: Mapping[str, Path], run: EvalRun,
                fp: ConfigFingerprint) -> dict[str, Any]:
    by_lang: dict[str, str] = {}
    for g in golden.queries:
        by_lang.setdefault(g.lang or "-", str(session_vaults[g.key]))
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "golden": {"path": str(golden.path), "sha256": golden.sha256, "queries": len(golden.queries)},
        "vaults": by_lang,
        "k": run.k,
        "fingerprint": fp.to_json(),
        "metrics": run.aggregate(),
        "unreachable": sum(len(r.unreachable) for r in run.results),
        "seconds": round(run.seconds, 3),
        "queries": [
            {"key": r.golden.key, "query": r.golden.query, "kind": r.golden.kind, "lang": r.golden.lang,
             "line": r.golden.line, "ranks": r.ranks, "docs": r.docs, "metrics": r.metrics,
             **({"unreachable": r.unreachable} if r.unreachable else {}),
             **({"error": r.error} if r.error else {})}
            for r in run.results
        ],
    }


_LANG_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*$")


def parse_vault_for_lang(items: Sequence[str]) -> dict[str, Path]:
    """``["en=PATH", "ja=PATH"]`` -> {lang: Path}."""
    out: dict[str, Path] = {}
    for it in items:
        lang, sep, path = it.partition("=")
        if not sep or not _LANG_RE.match(lang.strip()) or not path.strip():
            raise GrooveError(f"--vault-for-lang expects LANG=PATH (e.g. ja=~/Notes-ja), got {it!r}")
        out[lang.strip()] = Path(path.strip()).expanduser()
    return out
