"""The dataclasses the stages share inside the process: a note as parsed
(``ParsedNote``, its ``Chunk``s and ``WikiLink``s) and a search candidate as
it moves through the stages (``Candidate``). None of them is on the wire;
what a search returns is ``wire.search`` (``SearchHit``, ``SearchResponse``).

Offsets: every ``byte_*`` field is a UTF-8 byte offset into the note's text
without a byte-order mark (ADR 0094).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


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
