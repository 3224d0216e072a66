"""The wire shapes of every operation, as pydantic models: the params each
socket method accepts and the result it returns, the notifications, and
MCP's output schemas. ``schemas/protocol.json`` is generated from them
(``generate.py``); a test keeps the committed file equal to the output.

A search is not restated here: ``pipeline.params.SearchParams`` is the one
definition of its params, ``types.SearchResponse`` and ``types.SearchHit`` of
its result, and pydantic reads those dataclasses as they are; nor is the
index status: ``status_types.IndexStatus`` (TypedDicts) is the object
``index_status`` builds and returns (ADR 0172). Params are
closed (an unknown name is a mistake the caller should hear about); results
are open, so a newer server may add fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..constraints import MAX_INT, MAX_PATH_CHARS, Date, Glob, LineRange, NonNeg, Tag
from ..notes import MAX_RELATED
from ..pipeline.params import SearchParams
from ..status_types import IndexProgress, IndexStatus, SkippedNote
from ..types import SearchResponse

EventName = Literal["index.progress", "index.changed"]


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Result(BaseModel):
    model_config = ConfigDict(use_attribute_docstrings=True)


# ----------------------------------------------------------------------------- params


class HelloParams(BaseModel):  # open: older and newer clients send more
    token: str
    client: Annotated[str, Field(max_length=200)] = ""
    protocol_version: int = 1


class CancelParams(Params):
    id: Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)] | str


class GetDocumentParams(Params):
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
    line_start: Annotated[int, Field(ge=1, le=MAX_INT)] | None = None
    line_end: Annotated[int, Field(ge=1, le=MAX_INT)] | None = None
    heading: Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None = None
    max_chars: Annotated[int, Field(ge=100, le=MAX_INT)] | None = None
    """Cut the text at a line boundary above this many characters (default 40,000)"""


class RelatedNotesParams(Params):
    """``path``, or ``chunk_id`` (a search hit's) for the notes near that passage."""

    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)] | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_RELATED)] | None = None
    chunk_id: Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)] | None = None
    unlinked_only: bool | None = None
    """Leave out the similar notes a link already joins to this one (either way), before ``limit`` applies"""


class UnlinkedConnectionsParams(Params):
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
    limit: Annotated[int, Field(ge=1, le=MAX_RELATED)] | None = None


class ResolveLinkParams(Params):
    link: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
    from_path: Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None = None


class ReadNoteParams(Params):
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]


class IndexStatusParams(Params):
    why: str | None = None
    """A vault-relative path: the answer's ``why`` says which rule, if any, leaves it out (ADR 0190)"""


class ReindexParams(Params):
    force: bool | None = None


class ListNotesParams(Params):
    folder: Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None = None
    glob: Glob | None = None
    tag: Tag | None = None
    date_from: Date | None = None
    date_to: Date | None = None
    sort: Literal["path", "title", "modified", "date"] | None = None
    offset: NonNeg | None = None
    limit: Annotated[int, Field(ge=1, le=200)] | None = None


class RecentNotesParams(Params):
    days: Annotated[float, Field(gt=0, le=36500)] | None = None
    folder: Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None = None
    offset: NonNeg | None = None
    limit: Annotated[int, Field(ge=1, le=200)] | None = None


class ListTagsParams(Params):
    prefix: Tag | None = None
    limit: Annotated[int, Field(ge=1, le=1000)] | None = None


class SubscribeParams(Params):
    events: Annotated[list[EventName], Field(json_schema_extra={"uniqueItems": True})]


# ----------------------------------------------------------------------------- results


class Hello(Result):
    protocol_version: Literal[1]
    server_version: str
    vault: str
    capabilities: list[str]
    pid: int = 0


class Cancelled(Result):
    cancelled: bool


class Link(Result):
    target: str
    path: str | None
    """The note or attachment the link resolves to; null when none exists"""
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool
    line: int


class Document(Result):
    path: str
    title: str
    content: str
    frontmatter: dict[str, Any]
    links: list[Link]
    line_range: tuple[Annotated[int, Field(ge=1)], NonNeg]
    """[first, last] lines returned, 1-based; [1, 0] for an empty note"""
    truncated: bool


class Similar(Result):
    path: str
    title: str
    score: float
    linked: bool = False
    """A link joins the two notes, in either direction (resolved as backlinks and outgoing links are)"""


class Backlink(Result):
    path: str
    title: str
    line: int
    """The first line of the note that links here"""
    occurrences: Annotated[int, Field(ge=1)] = 1


class Outgoing(Result):
    target: str
    path: str | None
    heading: str | None
    line: int
    """The first line with this link"""
    occurrences: Annotated[int, Field(ge=1)] = 1


class Related(Result):
    path: str
    similar: list[Similar]
    backlinks: list[Backlink]
    outgoing: list[Outgoing]


class Connection(Result):
    path: str
    title: str
    score: float
    link: str
    """The wikilink to write in the note: '[[Name]]', or '[[Folder/Name]]' when another note has that name"""
    aliases: list[str] = []
    """The target's frontmatter aliases: display text for '[[Name|alias]]', never a link target"""


class UnlinkedConnections(Result):
    path: str
    connections: list[Connection]
    """The most similar notes no link joins to this one, nearest first"""


class ResolvedLink(Result):
    path: str | None
    heading: str | None
    block: str | None
    line_range: LineRange | None
    exists: bool
    anchor_found: bool | None = None
    """False when the note exists but the heading or block the link names does not; null when it names none"""
    warning: str | None = None


class NoteText(Result):
    path: str
    text: str
    """The note's whole text as stored"""


class ReindexSummary(Result):
    indexed: NonNeg
    unchanged: NonNeg
    deleted: NonNeg
    skipped: list[SkippedNote]


class NoteEntry(Result):
    path: str
    title: str
    tags: list[str]
    date: str | None
    """The note's day, if it has one: a daily note's from its file name, else the frontmatter date or created"""
    modified: float
    """The file's modification time when indexed, seconds since the epoch"""
    size: NonNeg


class NotePage(Result):
    notes: list[NoteEntry]
    total: NonNeg
    """How many notes match in all"""
    offset: NonNeg
    next_offset: NonNeg | None
    """Pass as offset for the next page; null on the last page"""


class TagCount(Result):
    tag: str
    count: NonNeg


class TagList(Result):
    tags: list[TagCount]
    total: NonNeg


class Subscribed(Result):
    subscribed: list[EventName]


class IndexChanged(Result):
    paths: list[str]
    deleted: list[str]
    documents: NonNeg
    chunks: NonNeg


# ----------------------------------------------------------------------------- the tables

# Every socket method: (params, result). The operations among them are
# service.OPERATIONS; hello, cancel and subscribe belong to the connection.
METHODS: dict[str, tuple[type, type]] = {
    "hello": (HelloParams, Hello),
    "search": (SearchParams, SearchResponse),
    "cancel": (CancelParams, Cancelled),
    "get_document": (GetDocumentParams, Document),
    "related_notes": (RelatedNotesParams, Related),
    "unlinked_connections": (UnlinkedConnectionsParams, UnlinkedConnections),
    "resolve_link": (ResolveLinkParams, ResolvedLink),
    "read_note": (ReadNoteParams, NoteText),
    "index_status": (IndexStatusParams, IndexStatus),
    "reindex": (ReindexParams, ReindexSummary),
    "list_notes": (ListNotesParams, NotePage),
    "recent_notes": (RecentNotesParams, NotePage),
    "list_tags": (ListTagsParams, TagList),
    "subscribe": (SubscribeParams, Subscribed),
}

NOTIFICATIONS: dict[str, type] = {
    "index.progress": IndexProgress,
    "index.changed": IndexChanged,
}
