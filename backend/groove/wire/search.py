"""A search on the wire: its request (``SearchParams``) and its result
(``SearchResponse`` and its ``SearchHit``s).

Offsets: every ``byte_*`` field and every ``MatchSpan`` is a UTF-8 byte offset
(``byte_*`` into the note's text without a byte-order mark: the file's bytes
for a UTF-8 note, the UTF-8 form of a UTF-16 one; ADR 0094).
Editors must convert to their own units (UTF-16 code units in JS/VS Code)
before selecting text; see docs/protocol.md.

``SearchHit`` and ``SearchResponse`` are the one definition of a search
result: ``to_json``/``from_json`` are the wire form, and the JSON Schemas
(MCP's output schema, ``wire/protocol.json``) are derived from these
classes by pydantic, field docstrings included (``__pydantic_config__``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from . import constraints
else:
    from .lazy_constraints import constraints

_DOCSTRINGS = {"use_attribute_docstrings": True}  # pydantic reads field descriptions from them


@dataclass(frozen=True)
class MatchSpan:
    start: int  # UTF-8 byte offset into SearchHit.content, inclusive
    end: int  # exclusive

    def to_json(self) -> list[int]:
        return [self.start, self.end]

    # On the wire a span is a [start, end] pair. Its schema is left loose:
    # MCP clients validate every hit against it, and a per-pair item schema
    # tripled that cost; wire/generate.py pins ByteSpan in protocol.json.
    @classmethod
    def __get_pydantic_core_schema__(cls, _source: Any, _handler: Any) -> Any:
        from pydantic_core import core_schema as cs

        return cs.no_info_after_validator_function(
            lambda v: cls(*v), cs.tuple_schema([cs.int_schema(), cs.int_schema()]),
            serialization=cs.plain_serializer_function_ser_schema(cls.to_json))

    @classmethod
    def __get_pydantic_json_schema__(cls, _core: Any, _handler: Any) -> dict[str, Any]:
        return {}


@dataclass(frozen=True)
class ExpandedRange:
    """A source range that the parent retriever merged into a hit's content."""

    chunk_id: int
    byte_range: constraints.ByteSpan
    line_range: constraints.LineRange

    def to_json(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "byte_range": list(self.byte_range), "line_range": list(self.line_range)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ExpandedRange:
        return cls(d["chunk_id"], tuple(d["byte_range"]), tuple(d["line_range"]))


@dataclass(frozen=True)
class NoteAnswer:
    """Where a note's best answering sentence is, in a section not returned (ADR 0269)"""

    __pydantic_config__ = _DOCSTRINGS

    chunk_id: int
    heading_path: list[str]
    text: str
    """The sentence as written in the note"""
    byte_range: constraints.ByteSpan
    line_range: constraints.LineRange

    def to_json(self) -> dict[str, Any]:
        return {"chunk_id": self.chunk_id, "heading_path": list(self.heading_path), "text": self.text,
                "byte_range": list(self.byte_range), "line_range": list(self.line_range)}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> NoteAnswer:
        return cls(d["chunk_id"], list(d["heading_path"]), d["text"], tuple(d["byte_range"]), tuple(d["line_range"]))



@dataclass
class SearchHit:
    __pydantic_config__ = _DOCSTRINGS

    path: Annotated[str, constraints.MinLen(1)]
    """Vault-relative path of the note"""
    title: str
    heading_path: list[str]
    """Headings from the top of the note down to this passage"""
    level: Annotated[int, constraints.Interval(ge=0, le=6)]
    content: str
    """The passage text"""
    score: float
    rank: Annotated[int, constraints.Ge(1)]
    match_spans: list[MatchSpan]
    """[start, end) UTF-8 byte offset pairs of the query's words in content: each starts at the
    start of a word (or on a CJK character), never on a function word unless the query quoted it"""
    answer_spans: list[MatchSpan]
    """[start, end) UTF-8 byte offset pairs, sorted, of the sentence(s) of content that best answer
    the query by meaning: the best sentence, with the next one when it asks or ends in a colon, else
    with an adjacent one that scores nearly as well (two adjacent sentences are one span); on the
    first 5 hits of a search and the later hits of the same notes; empty on the others, when the
    search set answer_spans false, or when content has no sentence to mark"""
    expanded_from: list[ExpandedRange]
    byte_range: constraints.ByteSpan
    line_range: constraints.LineRange
    """[first, last] 1-based lines of the passage in the note"""
    chunk_id: int
    note_answer_rank: int | None = None
    """On a note's first hit only, when the sentence of that note that best answers the query is in
    another of its hits: that hit's rank (its first answer span marks the sentence). Absent otherwise"""
    note_answer: NoteAnswer | None = None
    """On a note's first hit only, when its best answering sentence is in a section not returned"""
    explain: dict[str, Any] | None = None
    """Why this hit ranked here (only when the search set ``explain``): each
    stage-1 leg that found it with its rank and RRF contribution, the fused
    score, and what the reranker, MMR and the parent retriever did"""

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        for optional in ("note_answer_rank", "note_answer", "explain"):
            if d[optional] is None:
                del d[optional]
        if self.note_answer is not None:
            d["note_answer"] = self.note_answer.to_json()
        d["match_spans"] = [s.to_json() for s in self.match_spans]
        d["answer_spans"] = [s.to_json() for s in self.answer_spans]
        d["expanded_from"] = [r.to_json() for r in self.expanded_from]
        d["byte_range"] = list(self.byte_range)
        d["line_range"] = list(self.line_range)
        return d

    @classmethod
    def from_json(cls, h: dict[str, Any]) -> SearchHit:
        return cls(
            path=h["path"], title=h["title"], heading_path=list(h["heading_path"]), level=h["level"],
            content=h["content"], score=h["score"], rank=h["rank"],
            match_spans=[MatchSpan(a, b) for a, b in h["match_spans"]],
            answer_spans=[MatchSpan(a, b) for a, b in h.get("answer_spans") or []],
            expanded_from=[ExpandedRange.from_json(e) for e in h["expanded_from"]],
            byte_range=tuple(h["byte_range"]), line_range=tuple(h["line_range"]), chunk_id=h["chunk_id"],
            note_answer_rank=h.get("note_answer_rank"), explain=h.get("explain"),
            note_answer=NoteAnswer.from_json(h["note_answer"]) if h.get("note_answer") else None,
        )


@dataclass
class SearchResponse:
    # to_json always writes warnings and confidence (null unless explained):
    # required in the result's schema too.
    __pydantic_config__ = {**_DOCSTRINGS, "json_schema_serialization_defaults_required": True}

    results: list[SearchHit]
    low_confidence: bool
    """True when nothing matched well: results are only the closest notes"""
    filter_applied: dict[str, Any]
    warnings: list[str] = field(default_factory=list)
    confidence: dict[str, Any] | None = None
    """Why low_confidence is what it is (only when the search set ``explain``):
    the rule, its score and threshold, and for the calibrated rule the best
    passage in the vault's own spreads (best_passage_z), the share of the
    query's words the vault uses (known_share), whether the query was read
    as asked in a language the vault is not written in (across_languages),
    and the names it uses that the vault never contains (unknown_names: any
    of them makes the search low confidence whatever the score)"""

    def to_json(self) -> dict[str, Any]:
        return {
            "results": [h.to_json() for h in self.results],
            "low_confidence": self.low_confidence,
            "filter_applied": self.filter_applied,
            "warnings": list(self.warnings),
            "confidence": self.confidence,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SearchResponse:
        """A search result as the socket returns it -> the same object the
        in-process pipeline returns (so surfaces print both the same way)."""
        return cls([SearchHit.from_json(h) for h in d["results"]], d["low_confidence"], d["filter_applied"],
                   list(d["warnings"]), d.get("confidence"))


# ----------------------------------------------------------------------------- the request


# The one definition of a search request: the pipeline runs it
# (``pipeline.params.resolve_params``), and the wire's schema (protocol.json,
# hence the plugins' TypeScript type) and the MCP search tool's arguments
# (mcp/search_args.py) are generated from it, bounds and descriptions included.
@dataclass(frozen=True)
class SearchParams:
    """``SearchParams`` on the wire (``from_json``/``to_json``);
    null or absent = the vault's groove.toml."""

    __pydantic_config__ = {"extra": "forbid", "use_attribute_docstrings": True}

    query: Annotated[str, constraints.Field(max_length=constraints.MAX_QUERY_CHARS)]
    """What to look for, in natural language."""
    limit: Annotated[int, constraints.Field(ge=1, le=constraints.MAX_INT)] | None = None
    rerank: bool | None = None
    """Rerank with the cross-encoder: more precise, slower. Omit for the vault's setting."""
    # named → applies unconditionally
    reranker: Annotated[str, constraints.Field(max_length=constraints.MAX_PATH_CHARS)] | None = None
    mmr: bool | None = None
    """Diversify results (MMR) so one note does not fill the list. Omit for the vault's setting."""
    mmr_lambda: constraints.Unit | None = None
    """MMR balance: 1 = relevance only, 0 = diversity only."""
    mmr_same_doc_penalty: Annotated[float, constraints.Field(ge=0)] | None = None
    """Extra MMR penalty for another passage of a note already picked."""
    parent_retriever: bool | None = None
    """Return the surrounding section (or the whole short note) instead of the bare passage."""
    path_globs: Annotated[tuple[constraints.Glob, ...], constraints.Field(max_length=constraints.MAX_FILTER_ITEMS)] = ()
    """Only notes whose vault-relative path matches one of these globs, e.g. ['Projects/**']."""
    tags_any: Annotated[tuple[constraints.Tag, ...], constraints.Field(max_length=constraints.MAX_FILTER_ITEMS)] = ()
    """Only notes with at least one of these tags."""
    tags_all: Annotated[tuple[constraints.Tag, ...], constraints.Field(max_length=constraints.MAX_FILTER_ITEMS)] = ()
    """Only notes with all of these tags (no '#')."""
    date_from: constraints.Date | None = None
    """Only notes dated on/after this day (YYYY-MM-DD): a daily note's day from its file name, else the
    frontmatter date or created, else the file's modification day."""
    date_to: constraints.Date | None = None
    """Only notes dated on/before this day (YYYY-MM-DD)."""
    where: Annotated[tuple[constraints.Where, ...], constraints.Field(max_length=constraints.MAX_FILTER_ITEMS)] = ()
    """Only notes whose frontmatter properties satisfy all of these: ``key=value``, ``key!=value``,
    ``key<value``, ``key>value``, ``key<=value``, ``key>=value`` (a list property: contains; ``<`` and ``>``
    order numbers and YYYY-MM-DD days), e.g. ``status=done``, ``priority>2``"""
    answer_spans: bool | None = None
    """Mark each hit's sentence(s) answering the query by meaning (`answer_spans`). On unless false."""
    min_confidence_ratio: constraints.Unit | None = None
    """Threshold for low_confidence (advanced; omit)."""
    explain: bool | None = None
    """Give each result an `explain` object: which retrieval legs found it (vector, full text, note, named
    note) with its rank and RRF contribution in each, the fused score, and what reranking, MMR and the parent
    retriever did; and the response a `confidence` object saying why low_confidence is what it is. For
    debugging a ranking; omit otherwise."""
    # Development knob used by eval: which stage-1 legs run. Not on the wire.
    legs: constraints.SkipJsonSchema[str] = "hybrid"  # "hybrid" | "vector" | "fts"

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SearchParams:
        """The protocol's search params (validated by the surface) -> SearchParams;
        missing or null fields fall back to groove.toml."""
        kw: dict[str, Any] = {f.name: d[f.name] for f in dataclasses.fields(cls)
                              if f.name != "legs" and d.get(f.name) is not None}
        args: dict[str, Any] = {k: tuple(v) if k in _TUPLES else v for k, v in kw.items()}
        return cls(**args)

    def to_json(self) -> dict[str, Any]:
        """SearchParams -> the protocol's search params (unset fields left out)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name == "legs" or v is None or v == () or (f.name == "explain" and not v):
                continue
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out


_TUPLES = frozenset(f.name for f in dataclasses.fields(SearchParams) if f.default == ())  # lists on the wire
