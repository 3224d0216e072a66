"""The wire shapes of every operation, as pydantic models: the params each
socket method accepts and the result it returns, the notifications, and
MCP's output schemas. ``wire/protocol.json`` is generated from them
(``generate.py``); a test keeps the committed file equal to the output.

A search is not restated here: ``pipeline.params.SearchParams`` is the one
definition of its params, ``types.SearchResponse`` and ``types.SearchHit`` of
its result, and pydantic reads those dataclasses as they are; nor are the
operations' results: ``status_types`` (index_status, reindex) and
``note_types`` (the note and browse operations) are TypedDicts, the objects
the operations build and return (ADR 0172). Params are
closed (an unknown name is a mistake the caller should hear about); results
are open, so a newer server may add fields.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .bounds import MAX_RELATED
from .constraints import MAX_INT, MAX_PATH_CHARS, Date, Glob, NonNeg, Tag
from .note_types import Document, NotePage, NoteText, Related, ResolvedLink, TagList, UnlinkedConnections
from .search import SearchParams, SearchResponse
from .status_types import IndexProgress, IndexStatus, ReindexSummary

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


class Subscribed(Result):
    subscribed: list[EventName]


class IndexChanged(Result):
    paths: list[str]
    deleted: list[str]
    documents: NonNeg
    chunks: NonNeg


# ----------------------------------------------------------------------------- the tables

# Every socket method: (params, result). The operations among them are
# operations.OPERATIONS; hello, cancel and subscribe belong to the connection.
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
