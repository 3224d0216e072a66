"""The wire shapes of every socket method: the params each accepts and the
result it returns (``METHODS``), and the notifications. ``wire/protocol.json`` is generated from them
(``generate.py``); a test keeps the committed file equal to the output.

TypedDicts, as every wire type but a search's (ADR 0277): pydantic reads
them for the schema, nothing at run time does. A search is not restated
here: ``search.py`` holds its params and result; nor are the operations'
results: ``status_types`` (index_status, reindex) and ``note_types`` (the
note and browse operations), the objects the operations build and return
(ADR 0172). Params are closed (an unknown name is a mistake the caller
should hear about); results are open, so a newer server may add fields.
"""

from __future__ import annotations

from typing import Annotated, Literal

from typing_extensions import NotRequired, TypedDict

from .bounds import MAX_RELATED
from .constraints import MAX_INT, MAX_PATH_CHARS, Date, Field, Glob, NonNeg, Tag
from .note_types import Document, NotePage, NoteText, Related, ResolvedLink, TagList, UnlinkedConnections
from .search import SearchParams, SearchResponse
from .status_types import IndexProgress, IndexStatus, ReindexSummary

EventName = Literal["index.progress", "index.changed"]


# ----------------------------------------------------------------------------- params


class HelloParams(TypedDict):  # open: older and newer clients send more
    token: str
    client: NotRequired[Annotated[str, Field(max_length=200)]]
    protocol_version: NotRequired[int]


class CancelParams(TypedDict):
    id: Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)] | str


class GetDocumentParams(TypedDict):
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
    line_start: NotRequired[Annotated[int, Field(ge=1, le=MAX_INT)] | None]
    line_end: NotRequired[Annotated[int, Field(ge=1, le=MAX_INT)] | None]
    heading: NotRequired[Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None]
    max_chars: NotRequired[Annotated[int, Field(ge=100, le=MAX_INT)] | None]
    """Cut the text at a line boundary above this many characters (default 40,000)"""


class RelatedNotesParams(TypedDict):
    """``path``, or ``chunk_id`` (a search hit's) for the notes near that passage."""

    path: NotRequired[Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)] | None]
    limit: NotRequired[Annotated[int, Field(ge=1, le=MAX_RELATED)] | None]
    chunk_id: NotRequired[Annotated[int, Field(ge=-MAX_INT, le=MAX_INT)] | None]
    unlinked_only: NotRequired[bool | None]
    """Leave out the similar notes a link already joins to this one (either way), before ``limit`` applies"""


class UnlinkedConnectionsParams(TypedDict):
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
    limit: NotRequired[Annotated[int, Field(ge=1, le=MAX_RELATED)] | None]


class ResolveLinkParams(TypedDict):
    link: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]
    from_path: NotRequired[Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None]


class ReadNoteParams(TypedDict):
    path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS)]


class IndexStatusParams(TypedDict):
    why: NotRequired[str | None]
    """A vault-relative path: the answer's ``why`` says which rule, if any, leaves it out (ADR 0190)"""


class ReindexParams(TypedDict):
    force: NotRequired[bool | None]


class ListNotesParams(TypedDict):
    folder: NotRequired[Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None]
    glob: NotRequired[Glob | None]
    tag: NotRequired[Tag | None]
    date_from: NotRequired[Date | None]
    date_to: NotRequired[Date | None]
    sort: NotRequired[Literal["path", "title", "modified", "date"] | None]
    offset: NotRequired[NonNeg | None]
    limit: NotRequired[Annotated[int, Field(ge=1, le=200)] | None]


class RecentNotesParams(TypedDict):
    days: NotRequired[Annotated[float, Field(gt=0, le=36500)] | None]
    folder: NotRequired[Annotated[str, Field(max_length=MAX_PATH_CHARS)] | None]
    offset: NotRequired[NonNeg | None]
    limit: NotRequired[Annotated[int, Field(ge=1, le=200)] | None]


class ListTagsParams(TypedDict):
    prefix: NotRequired[Tag | None]
    limit: NotRequired[Annotated[int, Field(ge=1, le=1000)] | None]


class SubscribeParams(TypedDict):
    events: Annotated[list[EventName], Field(json_schema_extra={"uniqueItems": True})]


# ----------------------------------------------------------------------------- results


class Hello(TypedDict):
    protocol_version: Literal[1]
    server_version: str
    vault: str
    capabilities: list[str]
    pid: NotRequired[int]


class Cancelled(TypedDict):
    cancelled: bool


class Subscribed(TypedDict):
    subscribed: list[EventName]


class IndexChanged(TypedDict):
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

# Params are closed (an unknown name is a mistake the caller should hear
# about), hello's excepted: older and newer clients send more; results are
# open. A TypedDict class takes no attributes in its type, hence setattr.
_DOCS = {"use_attribute_docstrings": True}
_OPEN: tuple[type, ...] = (HelloParams, Hello, Cancelled, Subscribed, IndexChanged)
for _t in _OPEN:
    setattr(_t, "__pydantic_config__", _DOCS)  # noqa: B010
_CLOSED: tuple[type, ...] = (CancelParams, GetDocumentParams, RelatedNotesParams, UnlinkedConnectionsParams,
                             ResolveLinkParams, ReadNoteParams, IndexStatusParams, ReindexParams, ListNotesParams,
                             RecentNotesParams, ListTagsParams, SubscribeParams)
for _t in _CLOSED:
    setattr(_t, "__pydantic_config__", {**_DOCS, "extra": "forbid"})  # noqa: B010
