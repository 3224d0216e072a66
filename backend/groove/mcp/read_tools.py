"""The tools that return note text: search, get_document, get_documents.
Each keeps its response under ``max_tokens`` (budget.py, ADR 0114)."""

from __future__ import annotations

import inspect
import time
from typing import Annotated, Any, cast

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult
from pydantic import Field

from ..tokens import json_tokens
from ..wire.bounds import MAX_LIMIT, MAX_PATH_CHARS
from ..wire.mcp_outputs import BudgetedDocument, BudgetedSearch, DocumentsBatch
from ..wire.models import MAX_INT
from . import search_args
from .budget import (
    DEFAULT_MAX_TOKENS,
    chars_budget,
    cut_links,
    document_extras,
    fit_search,
    rescale,
    response_tokens,
)
from .render import render_document, render_documents, render_search
from .session import READ_ONLY, MaxTokens, call, fresh, result
from .strict import GrooveMCP
from .vaults import VaultArg, VaultSet, search_vaults, with_vault

MAX_BATCH = 20
NotePath = Annotated[str, Field(max_length=MAX_PATH_CHARS)]


def register(mcp: GrooveMCP, vaults: VaultSet) -> None:
    _register_search(mcp, vaults)
    _register_reading(mcp, vaults)


def _register_search(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """search, paged by offset and kept under max_tokens (budget.fit_search);
    across vaults when the server serves several (vaults.search_vaults)."""

    async def search(query: str, limit: int, offset: int, max_tokens: int, vault: str | None = None,
                     **args: Any) -> CallToolResult:
        # One limit everywhere (issue 48): clamped with the words the CLI and the daemon use.
        clamped: list[str] = []
        if offset + limit > MAX_LIMIT:
            room = MAX_LIMIT - offset
            clamped.append(f"limit {limit} is above the maximum {room}; using {room}"
                           + (f" (offset {offset} + limit is at most {MAX_LIMIT})" if offset else ""))
            limit = room
        chosen = vaults.chosen(vault)
        state = chosen[0]
        params = search_args.request({"query": query, **args}, limit=offset + limit)
        t0 = time.perf_counter()
        if vaults.multi:
            resp = await search_vaults(vaults, vault, params)
        else:
            warnings = await fresh(state)
            resp = await call(state.backend.call, "search", params)
            resp = {**resp, "warnings": warnings + list(resp.get("warnings", []))}
        for s in chosen:
            if s.first_search_seconds is None:
                s.first_search_seconds = time.perf_counter() - t0
        full = len(resp["results"]) == offset + limit and offset + limit < MAX_LIMIT
        resp = {**resp, "results": resp["results"][offset:], "offset": offset,
                "next_offset": offset + limit if full else None,
                "warnings": clamped + list(resp.get("warnings", []))}
        # Off the event loop: cutting a huge hit is linear but not free, and
        # every other request of this session waits while the loop is busy.
        out, text = await anyio.to_thread.run_sync(fit_search, resp, lambda r: render_search(query, r),
                                                   max_tokens, offset)
        return result(text, out)

    # The arguments are SearchParams' (search_args.py), so the signature is
    # generated; the SDK reads it as it reads any tool's. ``vault`` is the
    # server's own (ADR 0205), taken out again when it serves one vault.
    cast(Any, search).__signature__ = inspect.Signature(  # a function's attribute, which mypy does not model
        [*search_args.parameters(),
         inspect.Parameter("vault", inspect.Parameter.KEYWORD_ONLY, default=None, annotation=VaultArg)],
        return_annotation=Annotated[CallToolResult, BudgetedSearch])
    mcp.tool(
        name="search",
        title="Search the notes",
        annotations=READ_ONLY,
        description=(
            "Search the user's Markdown notes by meaning and words (any language): ask a question or "
            "describe the content. Syntax: \"double quotes\" match words as one phrase (favoured; "
            "+\"...\" requires it); put '-' before a word to leave out every note containing it (whole notes). "
            "If low_confidence is true, the notes probably do not answer this: say so or rephrase, "
            "not answer from the hits. False means the notes are about the topic, not that a hit "
            "answers the question: check that a hit says it. Under max_tokens; next_offset pages on. Read "
            "around a hit: get_document(path, line_start, line_end) from its line_range."
        ),
    )(search)
    mcp.argument_hints.update(search_args.HINTS)


def _register_reading(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """get_document and get_documents: note text under max_tokens, asked again smaller while over."""

    async def read_one(path: str, line_start: int | None, line_end: int | None, heading: str | None,
                       max_tokens: int, vault: str | None) -> dict[str, Any]:
        """One note under ``max_tokens``: asked at a first guess of characters,
        then again smaller while the answer (text + structured) is over."""
        state = vaults.pick(vault)
        max_chars = chars_budget(max_tokens)
        p = {"path": path, "line_start": line_start, "line_end": line_end, "heading": heading}
        for _ in range(4):
            d = await call(state.backend.call, "get_document", {**p, "max_chars": max_chars})
            d = with_vault(document_extras(cut_links(d, max_tokens // 5)), state)
            n = response_tokens(render_document(d), d)
            d["approx_tokens"] = n
            if n <= max_tokens or max_chars <= 100:
                return d
            max_chars = rescale(max_chars, n, max_tokens)
        return d

    @mcp.tool(
        name="get_document",
        title="Read a note",
        annotations=READ_ONLY,
        description=(
            "Read a note: its text (whole, lines line_start-line_end, or one heading's section), frontmatter "
            "and outgoing links. To read around a search hit pass its path and line_range. A long note is "
            "cut at a line (truncated; read on from next_line_start). A wrong path gets did-you-mean "
            "suggestions. A .canvas reads as its cards' text under '## Group' headings."
        ),
    )
    async def get_document(
        path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS, description=(
            "Vault-relative note path, e.g. 'Projects/Plan.md' ('.md' optional) or 'Boards/Plan.canvas'."))],
        line_start: Annotated[int | None, Field(ge=1, le=MAX_INT,
                                                description="First line to return (1-based).")] = None,
        line_end: Annotated[int | None, Field(ge=1, le=MAX_INT, description="Last line to return (inclusive).")] = None,
        heading: Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description=(
            "Only this heading's section; 'Parent#Child' for a nested one."))] = None,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, BudgetedDocument]:
        d = await read_one(path, line_start, line_end, heading, max_tokens, vault)
        return result(render_document(d), d)

    @mcp.tool(
        name="get_documents",
        title="Read several notes",
        annotations=READ_ONLY,
        description=(
            "Read up to 20 whole notes in one call, in order, under one shared max_tokens. A path that cannot "
            "be read is listed in `errors`; notes over the budget in `not_returned` (ask for them again)."
        ),
    )
    async def get_documents(
        paths: Annotated[list[NotePath], Field(min_length=1, max_length=MAX_BATCH, description=(
            "Vault-relative note paths, as returned by search or list_notes."))],
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, DocumentsBatch]:
        state = vaults.pick(vault)  # an unknown vault is the call's error, not each path's
        await call(state.backend.open)  # and so is a vault folder that is missing (ADR 0253)
        docs: list[dict[str, Any]] = []
        errors: list[dict[str, str]] = []
        left = max_tokens - 200  # the envelope: keys, counts, the text's header lines
        not_returned: list[str] = []
        for i, p in enumerate(paths):
            if left < 300:
                not_returned = list(paths[i:])
                break
            try:
                d = await read_one(p, None, None, None, max(left, 300), vault)
            except ToolError as e:
                errors.append({"path": p, "error": str(e)})
                left -= json_tokens(errors[-1]) * 2
                continue
            docs.append(d)
            left -= d["approx_tokens"]
        out: dict[str, Any] = {"documents": docs, "errors": errors, "not_returned": not_returned,
                               "truncated": bool(not_returned) or any(d["truncated"] for d in docs)}
        with_vault(out, state)
        text = render_documents(out)
        out["approx_tokens"] = response_tokens(text, out)
        return result(text, out)


__all__ = ["register"]
