"""The MCP tools and the note resource: one operation each, called through
``Backend.call``; their descriptions are written for an LLM. groove's errors
become tool errors carrying the message as is (it names what to fix);
anything else is a bug, logged with its traceback and reported as internal."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from .. import __version__
from ..errors import GrooveError
from ..schemas.models import Document, Related, ResolvedLink
from ..service import MAX_LIMIT
from ..types import SearchResponse
from .backend import Backend, ServerOptions
from .render import json_text, render_document, render_search

log = logging.getLogger("groove.mcp")

INSTRUCTIONS = """\
groove searches the user's Markdown notes (an Obsidian-style vault) by meaning and by exact words.
Workflow: `search` with a natural-language query -> read a hit in context with `get_document`
(pass the hit's `path`, and its `line_range` as line_start/line_end, or a heading) -> follow
[[wikilinks]] with `resolve_link`, or explore neighbours with `related_notes`.
Paths are vault-relative ('Folder/Note.md'). `index_status` tells whether the index is fresh;
`reindex` updates it after notes changed."""


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a blocking call in a worker thread, groove's errors as tool errors."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except GrooveError as e:
        raise ToolError(str(e)) from e
    except Exception as e:
        log.exception("tool call failed")
        raise ToolError(f"internal error: {type(e).__name__}: {e}") from e


@dataclass
class _Session:
    backend: Backend
    first_search_seconds: float | None = None
    warm_error: str | None = None


def build_server(opts: ServerOptions) -> MCPServer:
    state = _Session(Backend(opts))
    backend = state.backend

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[_Session]:
        # Open now (fail fast on a missing vault); load the model in the
        # background so the handshake does not wait for it.
        backend.open()
        if opts.warm:
            def warm() -> None:
                try:
                    backend.warm()
                except Exception as e:  # reported by index_status; search raises it again
                    state.warm_error = str(e)
                    log.warning("model warm-up failed: %s", e)

            threading.Thread(target=warm, name="groove-warm", daemon=True).start()
        try:
            yield state
        finally:
            backend.close()

    mcp = MCPServer(
        name="groove",
        title="groove — semantic search over your Markdown notes",
        instructions=INSTRUCTIONS,
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",
    )
    read_only = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                                open_world_hint=False)

    @mcp.tool(
        name="search",
        title="Search the notes",
        annotations=read_only,
        description=(
            "Search the user's Markdown notes by meaning and by words (hybrid semantic + full-text). "
            "Returns the best-matching passages with their note path, heading path, line range and a "
            "relevance score. Write the query in natural language (any language): a question, or a "
            "description of the content you want. Query syntax: put words in \"double quotes\" to "
            "require that exact phrase; put '-' before a word to exclude passages containing it "
            "(e.g. `sync conflicts -mobile`, `\"daily review\" -draft`). A query made only of "
            "exclusions is rejected. If low_confidence is true, nothing matched well: rephrase or "
            "say so rather than relying on the results. Read more around a hit with get_document."
        ),
    )
    async def search(
        query: Annotated[str, Field(description=(
            "What to find, in natural language. \"quoted phrase\" = exact phrase; -word = exclude "
            "passages containing word. Not only exclusions."))],
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Number of results (1-50).")] = 10,
        path_globs: Annotated[list[str] | None, Field(description=(
            "Only notes whose vault-relative path matches one of these globs, e.g. ['Projects/**', "
            "'Daily/2024-*']."))] = None,
        tags_any: Annotated[list[str] | None, Field(description=(
            "Only notes with at least one of these tags (no '#')."))] = None,
        tags_all: Annotated[list[str] | None, Field(description="Only notes with all of these tags (no '#').")] = None,
        date_from: Annotated[str | None, Field(description=(
            "Only notes dated on/after this day (YYYY-MM-DD, frontmatter date)."))] = None,
        date_to: Annotated[str | None, Field(description="Only notes dated on/before this day (YYYY-MM-DD).")] = None,
        rerank: Annotated[bool | None, Field(description=(
            "Rerank with the cross-encoder: more precise, slower. Omit for the vault's setting."))] = None,
        mmr: Annotated[bool | None, Field(description=(
            "Diversify results (MMR) so one note does not fill the list. Omit for the vault's setting."))] = None,
        mmr_lambda: Annotated[float | None, Field(ge=0, le=1, description=(
            "MMR balance: 1 = relevance only, 0 = diversity only."))] = None,
        mmr_same_doc_penalty: Annotated[float | None, Field(ge=0, description=(
            "Extra MMR penalty for another passage of a note already picked."))] = None,
        parent_retriever: Annotated[bool | None, Field(description=(
            "Return the surrounding section (or the whole short note) instead of the bare passage."))] = None,
        min_confidence_ratio: Annotated[float | None, Field(ge=0, le=1, description=(
            "Threshold for low_confidence (advanced; omit)."))] = None,
    ) -> Annotated[CallToolResult, SearchResponse]:
        params = {
            "query": query, "limit": limit, "path_globs": path_globs or [], "tags_any": tags_any or [],
            "tags_all": tags_all or [], "date_from": date_from, "date_to": date_to, "rerank": rerank,
            "mmr": mmr, "mmr_lambda": mmr_lambda, "mmr_same_doc_penalty": mmr_same_doc_penalty,
            "parent_retriever": parent_retriever, "min_confidence_ratio": min_confidence_ratio,
        }
        t0 = time.perf_counter()
        resp = await _call(backend.call, "search", params)
        if state.first_search_seconds is None:
            state.first_search_seconds = time.perf_counter() - t0
        return CallToolResult(content=[TextContent(type="text", text=render_search(query, resp))],
                              structured_content=resp)

    @mcp.tool(
        name="get_document",
        title="Read a note",
        annotations=read_only,
        description=(
            "Read a note: its text (whole, a line range, or one heading's section), frontmatter and "
            "outgoing links (each resolved to a note path when it exists). Use the `path` from search "
            "results; to read around a hit pass its line_range as line_start/line_end (widen it for "
            "more context). Long notes are cut at ~40,000 characters with a marker saying which lines "
            "were returned: ask for the rest with line_start/line_end. Lines are 1-based, inclusive."
        ),
    )
    async def get_document(
        path: Annotated[str, Field(description=(
            "Vault-relative note path, e.g. 'Projects/Plan.md' ('.md' may be omitted)."))],
        line_start: Annotated[int | None, Field(ge=1, description="First line to return (1-based).")] = None,
        line_end: Annotated[int | None, Field(ge=1, description="Last line to return (inclusive).")] = None,
        heading: Annotated[str | None, Field(description=(
            "Return only this heading's section (with its sub-sections); 'Parent#Child' for a nested one."))] = None,
    ) -> Annotated[CallToolResult, Document]:
        d = await _call(backend.call, "get_document",
                        {"path": path, "line_start": line_start, "line_end": line_end, "heading": heading})
        return CallToolResult(content=[TextContent(type="text", text=render_document(d))], structured_content=d)

    @mcp.tool(
        name="related_notes",
        title="Related notes",
        annotations=read_only,
        description=(
            "Notes related to one note: the most similar notes by meaning (embedding neighbours, "
            "score = cosine similarity), the notes that link to it (backlinks, with the line of the "
            "link) and the wikilinks it contains (resolved to paths; path null = the target does not "
            "exist). Pass a note `path`, or the `chunk_id` of a search hit to find notes similar to "
            "that passage only."
        ),
    )
    async def related_notes(
        path: Annotated[str | None, Field(description="Vault-relative note path.")] = None,
        chunk_id: Annotated[int | None, Field(description="A search hit's chunk_id, instead of path.")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Number of similar notes (1-50).")] = 10,
    ) -> Annotated[CallToolResult, Related]:
        d = await _call(backend.call, "related_notes", {"path": path, "limit": limit, "chunk_id": chunk_id})
        return CallToolResult(content=[TextContent(type="text", text=json_text(d))], structured_content=d)

    @mcp.tool(
        name="resolve_link",
        title="Resolve a wikilink",
        annotations=read_only,
        description=(
            "Find where an Obsidian wikilink points, with Obsidian's rules: case-insensitive note "
            "names, a note in the linking note's folder first, else the shortest matching path; "
            "frontmatter aliases; '[[Note#Heading]]' and '[[Note#H1#H2]]' give the heading's section "
            "lines, '[[Note^block-id]]' the block's lines. Returns path (null if no such note), "
            "line_range (then read it with get_document) and exists."
        ),
    )
    async def resolve_link(
        link: Annotated[str, Field(description=(
            "The link as written, e.g. '[[Sync#Conflicts|fixing conflicts]]', '[[Note^abc123]]', or 'Note#Heading'."))],
        from_path: Annotated[str | None, Field(description=(
            "Vault-relative path of the note containing the link (decides ambiguous names)."))] = None,
    ) -> Annotated[CallToolResult, ResolvedLink]:
        d = await _call(backend.call, "resolve_link", {"link": link, "from_path": from_path})
        return CallToolResult(content=[TextContent(type="text", text=json_text(d))], structured_content=d)

    @mcp.tool(
        name="index_status",
        title="Index status",
        annotations=read_only,
        description=(
            "State of the search index: number of notes and chunks, embedding model, last indexing "
            "time, how many files changed since (stale_files; run reindex if > 0), whether a reindex "
            "is running, and latencies (model load, first search)."
        ),
    )
    async def index_status() -> dict[str, Any]:
        st = await _call(backend.call, "index_status", {})
        st.update(backend.status_extras())
        st["mode"] = backend.mode
        st["first_search_seconds"] = state.first_search_seconds
        st["warm_error"] = state.warm_error
        return st

    @mcp.tool(
        name="reindex",
        title="Update the index",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                    open_world_hint=False),
        description=(
            "Bring the index up to date with the notes on disk: only new, changed, renamed and deleted "
            "notes are processed (fast). force=true re-embeds every note (slow; only after changing "
            "the model). Reports progress notifications while it runs; returns counts and skipped files."
        ),
    )
    async def reindex(
        ctx: Context,
        force: Annotated[bool, Field(description="Rebuild everything instead of updating.")] = False,
    ) -> dict[str, Any]:
        last = [0.0]

        def progress(ev: dict) -> None:
            # Called on the indexer's thread: hop to the event loop, at most ~10 per second.
            now = time.monotonic()
            if ev.get("phase") == "embed" and ev.get("done") != ev.get("total") and now - last[0] < 0.1:
                return
            last[0] = now
            msg = f'{ev.get("phase")}: {ev.get("path", "")}'.rstrip(": ")
            try:
                anyio.from_thread.run(ctx.report_progress, float(ev.get("done", 0)),
                                      float(ev.get("total") or 0) or None, msg)
            except Exception:  # a client that went away must not abort the indexing
                pass

        return await _call(lambda: backend.call("reindex", {"force": force}, progress=progress))

    @mcp.resource(
        "groove://note/{+path}",
        name="note",
        title="A note in the vault",
        description="The full Markdown text of a note; path is vault-relative, e.g. groove://note/Projects/Plan.md",
        mime_type="text/markdown",
    )
    async def note_resource(path: str) -> str:
        try:
            note = await anyio.to_thread.run_sync(backend.call, "read_note", {"path": path})
        except GrooveError as e:
            raise ResourceNotFoundError(str(e)) from e
        return note["text"]

    return mcp
