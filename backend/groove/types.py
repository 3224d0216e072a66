"""Plain dataclasses shared by the stages and the surfaces (CLI, MCP, socket).

Offsets: every ``byte_*`` field and every ``MatchSpan`` is a UTF-8 byte offset
(``byte_*`` into the note's text without a byte-order mark: the file's bytes
for a UTF-8 note, the UTF-8 form of a UTF-16 one; ADR 0094).
Editors must convert to their own units (UTF-16 code units in JS/VS Code)
before selecting text; see docs/protocol.md.

``SearchHit`` and ``SearchResponse`` are the one definition of a search
result: ``to_json``/``from_json`` are the wire form, and the JSON Schemas
(MCP's output schema, ``schemas/protocol.json``) are derived from these
classes by pydantic, field docstrings included (``__pydantic_config__``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Annotated, Any

if TYPE_CHECKING:
    from . import constraints
else:
    from .lazy_constraints import constraints

_DOCSTRINGS = {"use_attribute_docstrings": True}  # pydantic reads field descriptions from them


@dataclass(frozen=True)
class WikiLink:
    """A wikilink or embed found in a note."""

    target: str  # the raw target before '#', '^' or '|', e.g. "Sync"
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool
    line: int  # 1-based line of the link in the source file


@dataclass(frozen=True)
class Chunk:
    """One heading section (or a piece of a long one) of a note."""

    ordinal: int  # position of the chunk in its note, 0-based
    level: int  # heading level 1..6; 0 for text before the first heading
    heading: str  # the chunk's own heading text ("" for the preamble)
    heading_path: list[str]  # headings from the top down to this chunk's own
    context: str  # contextual prefix: "Title > H1 > H2"
    content: str  # the section text as it appears in the file
    byte_start: int
    byte_end: int
    line_start: int  # 1-based, inclusive
    line_end: int  # 1-based, inclusive
    token_count: int


@dataclass
class ParsedNote:
    """Everything the indexer stores about one note, parsed from its bytes."""

    path: str  # vault-relative, '/' separators
    title: str
    aliases: list[str]
    tags: list[str]
    description: str
    date: str | None  # ISO day: a daily note's from its name (set by the indexer), else frontmatter date/created
    frontmatter: dict[str, Any]
    chunks: list[Chunk]
    links: list[WikiLink]
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MatchSpan:
    start: int  # UTF-8 byte offset into SearchHit.content, inclusive
    end: int  # exclusive

    def to_json(self) -> list[int]:
        return [self.start, self.end]

    # On the wire a span is a [start, end] pair. Its schema is left loose:
    # MCP clients validate every hit against it, and a per-pair item schema
    # tripled that cost; schemas/generate.py pins ByteSpan in protocol.json.
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
class Candidate:
    """A chunk as it moves through the stages; ``score`` is the current stage's."""

    chunk_id: int
    doc_id: int
    path: str
    title: str
    heading_path: list[str]
    level: int
    context: str
    content: str
    byte_range: tuple[int, int]
    line_range: tuple[int, int]
    token_count: int | None
    score: float
    vec_rank: int | None = None  # 1-based rank in the vector leg, None if absent
    fts_rank: int | None = None  # 1-based rank in the FTS leg, None if absent
    explain: dict[str, Any] | None = None  # filled only when the search asked for it


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
    the query by meaning: the best sentence, with an adjacent one that scores nearly as well; on the
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
