"""Plain dataclasses shared by the stages and the surfaces (CLI, MCP, socket).

Offsets: every ``byte_*`` field and every ``MatchSpan`` is a UTF-8 byte offset
(``byte_*`` into the note's text without a byte-order mark: the file's bytes
for a UTF-8 note, the UTF-8 form of a UTF-16 one; ADR 0094).
Editors must convert to their own units (UTF-16 code units in JS/VS Code)
before selecting text; see docs/protocol.md.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Link:
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
    date: str | None  # ISO date from frontmatter, if any
    frontmatter: dict[str, Any]
    chunks: list[Chunk]
    links: list[Link]
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class MatchSpan:
    start: int  # UTF-8 byte offset into SearchHit.content, inclusive
    end: int  # exclusive

    def to_json(self) -> list[int]:
        return [self.start, self.end]


@dataclass(frozen=True)
class ExpandedRange:
    """A source range that the parent retriever merged into a hit's content."""

    chunk_id: int
    byte_range: tuple[int, int]
    line_range: tuple[int, int]


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


@dataclass
class SearchHit:
    path: str
    title: str
    heading_path: list[str]
    level: int
    content: str
    score: float
    rank: int
    match_spans: list[MatchSpan]
    expanded_from: list[ExpandedRange]
    byte_range: tuple[int, int]
    line_range: tuple[int, int]
    chunk_id: int

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["match_spans"] = [s.to_json() for s in self.match_spans]
        d["expanded_from"] = [
            {
                "chunk_id": r.chunk_id,
                "byte_range": list(r.byte_range),
                "line_range": list(r.line_range),
            }
            for r in self.expanded_from
        ]
        d["byte_range"] = list(self.byte_range)
        d["line_range"] = list(self.line_range)
        return d


@dataclass
class SearchResponse:
    results: list[SearchHit]
    low_confidence: bool
    filter_applied: dict[str, Any]
    warnings: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "results": [h.to_json() for h in self.results],
            "low_confidence": self.low_confidence,
            "filter_applied": self.filter_applied,
            "warnings": list(self.warnings),
        }
