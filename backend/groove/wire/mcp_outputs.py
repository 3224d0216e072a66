"""The MCP tools' output schemas where they add to the protocol's shapes:
what the response budget adds to a search (ADR 0114) and what this process
adds to index_status. Open like every result: a newer server may add fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Literal

from annotated_types import Ge
from typing_extensions import NotRequired, TypedDict

from .note_types import Document
from .search import SearchHit, SearchResponse
from .status_types import IndexStatus


@dataclass
class BudgetedHit(SearchHit):
    content_truncated: bool = False
    """True when content was cut to fit the response budget (around the first match);
    read the whole passage with get_document(path, line_start, line_end) from line_range"""


@dataclass
class BudgetedSearch(SearchResponse):
    # The MCP output schema shows the hits with content_truncated. A subclass may not narrow
    # a list field (list is invariant), but no code puts a plain SearchHit here: fit_search builds these.
    results: list[BudgetedHit]  # type: ignore[assignment]
    offset: Annotated[int, Ge(0)] = 0
    """Rank of the first result minus one (the search's `offset` argument)"""
    next_offset: Annotated[int, Ge(0)] | None = None
    """Pass as `offset` to get the next results; null when there are no more"""
    truncated: bool = False
    """True when hits were left out or cut to keep the response under max_tokens"""
    approx_tokens: Annotated[int, Ge(0)] = 0
    """Estimated size of this response (text + structured content) in tokens"""
    warnings: list[str] = field(default_factory=list)


class BudgetedDocument(Document):
    next_line_start: NotRequired[int | None]
    """When truncated: the line to pass as line_start to read on"""
    links_truncated: NotRequired[bool]
    approx_tokens: NotRequired[int]


class DocumentsBatch(TypedDict):
    documents: list[BudgetedDocument]
    errors: NotRequired[list[dict[str, str]]]
    """[{path, error}] for paths that could not be read (the others are still returned)"""
    not_returned: NotRequired[list[str]]
    """Paths left out because the response budget was spent: ask for them in another call"""
    truncated: NotRequired[bool]
    approx_tokens: NotRequired[int]


class McpIndexStatus(IndexStatus):
    """index_status as the tool returns it: the operation's, and this process's"""

    mode: Literal["standalone", "daemon"]
    first_search_seconds: NotRequired[float | None]
    warm_error: NotRequired[str | None]
    model_loaded: NotRequired[bool | None]
    daemon_pid: NotRequired[int | None]
    auto_reindex_max: NotRequired[int]
    """standalone: up to this many changed notes are re-indexed before a search; more are reported in warnings"""


for _t in (BudgetedDocument, DocumentsBatch, McpIndexStatus):
    # A TypedDict class takes no attributes in its type, hence setattr.
    setattr(_t, "__pydantic_config__", {"use_attribute_docstrings": True})  # noqa: B010
