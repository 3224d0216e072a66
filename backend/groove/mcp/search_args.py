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

from ..wire.bounds import MAX_LIMIT, MAX_QUERY_CHARS
from ..wire.search import SearchParams
from .budget import DEFAULT_MAX_TOKENS
from .session import MaxTokens

_REQUIRED = inspect.Parameter.empty
# Not offered: the tool pages by its own limit and offset; a reranker model,
# MMR's balance and the low-confidence threshold are the user's
# configuration, not a model's choice (each costs the model's context in
# every conversation, ADR 0252); legs is eval's.
NOT_OFFERED = frozenset({"limit", "reranker", "legs", "mmr_lambda", "mmr_same_doc_penalty", "min_confidence_ratio"})
# What a caller that sends one anyway is told.
HINTS = {name: f"`{name}` is the vault's setting, not a search argument here: set it under [search] in the "
               "vault's groove.toml" for name in ("mmr_lambda", "mmr_same_doc_penalty", "min_confidence_ratio")}
# Shorter than the wire's description, for a model's context (ADR 0252);
# every other argument keeps the wire's.
SHORTER = {
    "date_from": "Only notes dated on/after this day (YYYY-MM-DD; a daily note's day, else its frontmatter date, "
                 "else its modification day).",
    "where": "Frontmatter conditions, all must hold: key=value, key!=value, key<value, key>value, key<=value, "
             "key>=value (a list property: contains), e.g. status=done, priority>2.",
    "explain": "Say which retrieval legs found each hit and why low_confidence is what it is. For debugging a "
               "ranking; omit otherwise.",
}
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
        int, Field(ge=1, description=f"Results (at most {MAX_LIMIT}; more is clamped).")]),
    inspect.Parameter("offset", inspect.Parameter.KEYWORD_ONLY, default=0, annotation=Annotated[
        int, Field(ge=0, lt=MAX_LIMIT, description=(
            f"Skip this many results: the previous response's next_offset (offset + limit <= {MAX_LIMIT})."))]),
]
BUDGET = inspect.Parameter("max_tokens", inspect.Parameter.KEYWORD_ONLY, default=DEFAULT_MAX_TOKENS,
                           annotation=MaxTokens)


def _optional(hint: Any) -> Any:
    """The wire's annotation as an optional tool argument: a tuple is a list
    (JSON has no tuple), and None means the vault's setting."""
    if typing.get_origin(hint) is Annotated:
        base, *meta = typing.get_args(hint)
        if typing.get_origin(base) is tuple:
            # Annotated built from values at run time (the checker reads only literal forms).
            listed = typing.cast(Any, list)[typing.get_args(base)[0]]
            hint = typing.cast(Any, Annotated)[(listed, *meta)]
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
        text = SHORTER.get(f.name) or " ".join(described.get(f.name, {}).get("description", "").split())
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
