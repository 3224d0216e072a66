"""Settings: frozen dataclasses loaded from ``groove.toml``.

Lookup order: ``<vault>/groove.toml``, then ``<config dir>/groove.toml``; the
first one found wins as a whole (no merging, so what you read is what runs).
A TOML key has the same name as its CLI flag and its ``SearchParams`` field
(``[search.mmr] lambda`` ↔ ``--mmr-lambda`` ↔ ``mmr_lambda``).

Unknown keys warn naming the key; a wrong type or an out-of-range value raises
``ConfigError`` naming the key and what was expected.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from . import paths
from .errors import ConfigError


@dataclass(frozen=True)
class FusionConfig:
    rrf_k: float = 60.0
    heading_weight: float = 2.0
    context_weight: float = 1.0
    content_weight: float = 1.0
    # Per-leg RRF weights: score = vec_weight/(k+r_vec) + fts_weight/(k+r_fts).
    vec_weight: float = 1.0
    fts_weight: float = 1.0
    # The title leg (pipeline/titles.py): RRF weight, and how much of a title
    # the query must cover to count. 0 turns the leg off.
    # Off by default since the note leg, whose summary holds the title, does
    # its job better (ADR-0076).
    title_weight: float = 0.0
    title_min_coverage: float = 0.5
    # The note leg: notes ranked by their summary vector (vec_notes). 0 = off.
    note_weight: float = 1.0
    # The vector leg ranks a chunk by cos(query, chunk) + dense_note_weight *
    # cos(query, its note's summary vector) (ADR-0078). 0 = plain chunk cosine.
    dense_note_weight: float = 1.0
    # The FTS leg's RRF vote for a chunk is scaled by the share of the query
    # (IDF-weighted) the chunk contains (ADR-0079). false = the plain vote.
    fts_coverage: bool = True
    # A query that is exactly a note's title or alias ranks that note first
    # (ADR-0083). false = it competes like any other hit.
    named_note_first: bool = True
    # The full-text leg's first row ranks first when it holds the whole query
    # and a query term no other note holds (a pasted identifier, ADR 0142).
    sole_holder_first: bool = True
    # Hubness remedies for the vector legs (issue 49, index/space.py): centre
    # the vault's vectors, CSLS local scaling, a note's score drawing on its
    # best section (0 = its summary alone, 1 = its best section alone), and
    # Rocchio feedback toward the nearest sections. All off: sqlite-vec's KNN.
    centre: bool = False
    csls: bool = False
    section_weight: float = 0.25  # on since the third blind generation (ADR 0265)
    prf: bool = False
    question_mean: bool = False  # with centre: the question centred by the titles-as-questions mean
    skip_empty: bool = False  # a chunk with no words of its own (a bare URL, an embed) does not rank
    # section_weight alone is applied to the notes the vector legs found
    # (pipeline/sections.py); true: to every note, by index/space.py's exact
    # scan (the reference it is measured against, docs/eval.md).
    section_exact: bool = False
    # The tiny-chunk prior (ADR 0280): a chunk's vote in the vector leg is
    # scaled by min(1, w / own_words), w its words of its own
    # (index/own_words.py), so a bare URL, an embed, a heading alone or a
    # one-line chunk does not rank on its own; its note still can, through the
    # note leg. 0 = off. own_words_fts: in the full-text leg too, unless its
    # own words hold a query term.
    own_words: float = 10.0  # on since the third blind generation (ADR 0280)
    own_words_fts: bool = True

    @property
    def bm25_weights(self) -> tuple[float, float, float]:
        """The full-text leg's column weights: heading, context, content."""
        return (self.heading_weight, self.context_weight, self.content_weight)


@dataclass(frozen=True)
class MMRConfig:
    enabled: bool = False
    lambda_: float = 0.7  # TOML key "lambda"
    same_doc_penalty: float = 0.0


@dataclass(frozen=True)
class ParentRetrieverConfig:
    enabled: bool = False
    whole_doc_threshold_tokens: int = 100
    max_expanded_tokens: int = 2000


@dataclass(frozen=True)
class QueryConfig:
    short_cjk: bool = True
    # Issue 36/37 rules, switchable so they can be measured on and off
    # (issue 49): a token like ``#page=N`` is also one phrase (ADR 0142);
    # unspaced Korean is split by the vault's words (ADR 0224).
    identifier_phrases: bool = True
    hangul_split: bool = True


@dataclass(frozen=True)
class SearchConfig:
    limit: int = 10
    candidates: int = 50  # top-N taken from each leg before fusion
    reranker: str = ""
    rerank_by_default: bool = False
    # low_confidence (pipeline/confidence.py): the calibrated rule's threshold
    # (ADR 0103); the margin rule's, used by an index without a calibration
    # (ADR 0075); 0 turns both off (only empty results are flagged).
    low_confidence_threshold: float = 0.75
    min_confidence_ratio: float = 0.12
    exclusion_scope: str = "note"  # "note" | "chunk" (ADR-0071)
    # A top note's answer may also come from its nearest section not returned
    # (``note_answer``, ADR 0269). Off: on the unseen fresh2 answer sets it
    # reached more answers but marked fewer right (18 vs 19 of 48).
    answers_beyond: bool = False
    fusion: FusionConfig = field(default_factory=FusionConfig)
    mmr: MMRConfig = field(default_factory=MMRConfig)
    parent_retriever: ParentRetrieverConfig = field(default_factory=ParentRetrieverConfig)
    query: QueryConfig = field(default_factory=QueryConfig)


@dataclass(frozen=True)
class IndexConfig:
    model: str = ""  # "" = the embedded default (multilingual-e5-small)
    chunk_tokens: int = 150  # section split budget (ADR-0074)
    max_file_bytes: int = 10_000_000
    # Long-lived processes of a vault of 10k+ chunks keep an in-memory word
    # index for the full-text leg (ADR 0132; ~46 MB at 100k chunks): false
    # leaves that leg to FTS5, same results, slower.
    word_index: bool = True
    # Long-lived processes of a vault of 10k+ chunks search their vectors
    # from an in-memory copy (ADR 0121, 0133; ~154 MB at 100k chunks of
    # 384-d): false leaves every KNN to sqlite-vec, exact and ~10x slower.
    vector_copy: bool = True
    # Template boilerplate (ADR 0210): a line found in at least this share of
    # the vault's notes (and in 10 or more) is left out of what is embedded,
    # kept for full text and display. false embeds every line as written.
    boilerplate: bool = True
    boilerplate_share: float = 0.2
    # A daemon idle for a while embeds the vault's sentences and stores them
    # in the index (ADR 0281; ~0.8 KB a sentence), so answer_spans read them
    # instead of embedding ~30 sentences a search. false: embedded per search.
    answer_vectors: bool = True


@dataclass(frozen=True)
class WatchConfig:
    debounce_ms: int = 500


@dataclass(frozen=True)
class Config:
    index: IndexConfig = field(default_factory=IndexConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    watch: WatchConfig = field(default_factory=WatchConfig)
    source: str | None = None  # the file it came from, None = built-in defaults
    warnings: tuple[str, ...] = ()


# (key, check, message) range checks, applied after type checks.
_RANGES: dict[str, tuple[Any, str]] = {
    "search.limit": (lambda v: 1 <= v <= 1000, "an integer between 1 and 1000"),
    "search.candidates": (lambda v: 1 <= v <= 10000, "an integer between 1 and 10000"),
    "search.min_confidence_ratio": (lambda v: 0.0 <= v <= 1.0, "a number between 0 and 1"),
    "search.low_confidence_threshold": (lambda v: -10.0 <= v <= 10.0, "a number between -10 and 10"),
    "search.exclusion_scope": (lambda v: v in ("chunk", "note"), '"chunk" or "note"'),
    "search.fusion.rrf_k": (lambda v: v > 0, "a number > 0"),
    "search.fusion.heading_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.context_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.content_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.vec_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.fts_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.title_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.section_weight": (lambda v: 0.0 <= v <= 1.0, "a number between 0 and 1"),
    "search.fusion.own_words": (lambda v: 0.0 <= v <= 1000.0, "a number between 0 and 1000"),
    "search.fusion.title_min_coverage": (lambda v: 0.0 < v <= 1.0, "a number in (0, 1]"),
    "search.fusion.note_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.fusion.dense_note_weight": (lambda v: v >= 0, "a number >= 0"),
    "search.mmr.lambda": (lambda v: 0.0 <= v <= 1.0, "a number between 0 and 1"),
    "search.mmr.same_doc_penalty": (lambda v: v >= 0, "a number >= 0"),
    "search.parent_retriever.whole_doc_threshold_tokens": (lambda v: v >= 0, "an integer >= 0"),
    "search.parent_retriever.max_expanded_tokens": (lambda v: v >= 1, "an integer >= 1"),
    "index.chunk_tokens": (lambda v: 32 <= v <= 8192, "an integer between 32 and 8192"),
    "index.max_file_bytes": (lambda v: v >= 1, "an integer >= 1"),
    "index.boilerplate_share": (lambda v: 0.0 < v <= 1.0, "a number in (0, 1]"),
    "watch.debounce_ms": (lambda v: v >= 0, "an integer >= 0"),
}


def _toml_name(field_name: str) -> str:
    return "lambda" if field_name == "lambda_" else field_name


def _type_name(t: Any) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string"}.get(t, str(t))


def _build(cls: type, data: dict[str, Any], prefix: str, warnings: list[str]) -> Any:
    hints = get_type_hints(cls)
    by_toml = {_toml_name(f.name): f for f in dataclasses.fields(cls) if f.name not in ("source", "warnings")}
    kwargs: dict[str, Any] = {}
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        f = by_toml.get(key)
        if f is None:
            warnings.append(f"groove.toml: unknown key '{dotted}' (ignored)")
            continue
        t = hints[f.name]
        if isinstance(t, type) and dataclasses.is_dataclass(t):
            if not isinstance(value, dict):
                raise ConfigError(f"groove.toml: '{dotted}' must be a table ([{dotted}])")
            kwargs[f.name] = _build(t, value, dotted + ".", warnings)
            continue
        if t is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if type(value) is not t:
            raise ConfigError(
                f"groove.toml: '{dotted}' must be {_type_name(t)}, got {type(value).__name__} {value!r}"
            )
        check = _RANGES.get(dotted)
        if check and not check[0](value):
            raise ConfigError(f"groove.toml: '{dotted}' must be {check[1]}, got {value!r}")
        kwargs[f.name] = value
    return cls(**kwargs)


def mmr_lambda_warning(on: bool, lambda_: float, *, where: str, fix: str) -> str | None:
    """The warning for MMR on with lambda = 1.0 (relevance only: it reorders
    nothing and costs the diversity pass), said by groove.toml and per query."""
    if on and lambda_ == 1.0:
        return f"{where} with lambda = 1.0 is MMR off but slower; {fix}"
    return None


def parse_config(text: str, source: str | None = None) -> Config:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source or 'groove.toml'}: not valid TOML: {e}") from e
    warnings: list[str] = []
    cfg = _build(Config, data, "", warnings)
    mmr = cfg.search.mmr
    footgun = mmr_lambda_warning(mmr.enabled, mmr.lambda_, where="groove.toml: [search.mmr] enabled",
                                 fix="set enabled = false or lower lambda")
    if footgun:
        warnings.append(footgun)
    return dataclasses.replace(cfg, source=source, warnings=tuple(warnings))


def config_file_for(vault: Path | None) -> Path | None:
    candidates = []
    if vault is not None:
        candidates.append(Path(vault) / "groove.toml")
    candidates.append(paths.config_dir() / "groove.toml")
    for c in candidates:
        if c.is_file():
            return c
    return None


def load_config(vault: Path | None = None, path: Path | None = None) -> Config:
    src = path or config_file_for(vault)
    if src is None:
        return Config()
    return parse_config(Path(src).read_text(encoding="utf-8"), str(src))
