"""The MCP search tool's arguments, generated from ``pipeline.params.SearchParams``
(the one definition of a search request): each field the tool offers keeps
its wire bounds and its docstring as description, optional (omitted = the
vault's setting). A new search parameter reaches MCP with no edit here.

What the tool does differently is all below: it pages the best
``MAX_LIMIT`` hits (its own ``limit`` and ``offset``) under a token budget
(``max_tokens``), and it narrows a few fields for a model's sake."""

from __future__ import annotations

import dataclasses
import inspect
import typing
from functools import cache
from typing import Annotated, Any

from pydantic import Field, TypeAdapter

from ..bounds import MAX_QUERY_CHARS
from ..pipeline.params import SearchParams
from ..service import MAX_LIMIT
from .budget import DEFAULT_MAX_TOKENS
from .session import MaxTokens

_REQUIRED = inspect.Parameter.empty
# Not offered: the tool pages by its own limit and offset; a reranker model
# is the user's configuration, not a model's choice; legs is eval's.
NOT_OFFERED = frozenset({"limit", "reranker", "legs"})
# Narrower than the wire, and why: an empty query is a mistake worth a schema
# error; a date is any string, so a malformed one gets the pipeline's
# message naming the format; explain is plainly on or off.
NARROWED: dict[str, tuple[Any, Any]] = {
    "query": (Annotated[str, Field(min_length=1, max_length=MAX_QUERY_CHARS)], _REQUIRED),
    "date_from": (str | None, None),
    "date_to": (str | None, None),
    "explain": (bool, False),
}
PAGING = [
    inspect.Parameter("limit", inspect.Parameter.KEYWORD_ONLY, default=10, annotation=Annotated[
        int, Field(ge=1, le=MAX_LIMIT, description=f"Number of results (1-{MAX_LIMIT}).")]),
    inspect.Parameter("offset", inspect.Parameter.KEYWORD_ONLY, default=0, annotation=Annotated[
        int, Field(ge=0, lt=MAX_LIMIT, description=(
            "Skip this many results (paging: pass the previous response's next_offset). "
            f"offset + limit is at most {MAX_LIMIT}."))]),
]
BUDGET = inspect.Parameter("max_tokens", inspect.Parameter.KEYWORD_ONLY, default=DEFAULT_MAX_TOKENS,
                           annotation=MaxTokens)


def _optional(hint: Any) -> Any:
    """The wire's annotation as an optional tool argument: a tuple is a list
    (JSON has no tuple), and None means the vault's setting."""
    if typing.get_origin(hint) is Annotated:
        base, *meta = typing.get_args(hint)
        if typing.get_origin(base) is tuple:
            hint = Annotated[(list[typing.get_args(base)[0]], *meta)]
    return hint if type(None) in typing.get_args(hint) else hint | None


@cache
def parameters() -> list[inspect.Parameter]:
    """The tool's arguments, in SearchParams' order, paging after the query."""
    hints = typing.get_type_hints(SearchParams, include_extras=True)
    described = TypeAdapter(SearchParams).json_schema()["properties"]
    out: list[inspect.Parameter] = []
    for f in dataclasses.fields(SearchParams):
        if f.name in NOT_OFFERED:
            continue
        ann, default = NARROWED.get(f.name, (_optional(hints[f.name]), None))
        text = " ".join(described.get(f.name, {}).get("description", "").split())
        out.append(inspect.Parameter(f.name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                     annotation=Annotated[ann, Field(description=text or None)]))
        if f.name == "query":
            out += PAGING
    return [*out, BUDGET]


def request(args: dict[str, Any], *, limit: int) -> dict[str, Any]:
    """The search operation's params for the tool's ``args`` (the paging and
    budget arguments taken out), asking for the first ``limit`` hits."""
    offered = {f.name for f in dataclasses.fields(SearchParams)} - NOT_OFFERED
    return SearchParams.from_json({**{k: v for k, v in args.items() if k in offered}, "limit": limit}).to_json()
