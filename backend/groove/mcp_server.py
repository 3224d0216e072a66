"""The vault as MCP tools, on the official SDK's high-level server (MCPServer).

One process = one vault. The model is loaded once (in the background at
startup, so `initialize` is instant) and kept warm; when a `groove serve`
daemon already runs for the vault, calls go through it instead and this
process loads no model at all (ADR 0053).

Transports: stdio, and Streamable HTTP bound to loopback with the SDK's
Host/Origin validation and an optional bearer token (ADR 0052).
"""

from __future__ import annotations

import hmac
import json
import logging
import socket
import sys
import threading
import time
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, AsyncIterator, Callable, Literal, Protocol

import anyio
import anyio.from_thread
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from . import __version__
from . import notes, service
from .pipeline import SearchParams
from .errors import GrooveError, InvalidArgument
from .runtime import Runtime, open_runtime

log = logging.getLogger("groove.mcp")

MAX_LIMIT = service.MAX_LIMIT
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
SNIPPET_CHARS = 700  # per hit in the text rendering

INSTRUCTIONS = """\
groove searches the user's Markdown notes (an Obsidian-style vault) by meaning and by exact words.
Workflow: `search` with a natural-language query -> read a hit in context with `get_document`
(pass the hit's `path`, and its `line_range` as line_start/line_end, or a heading) -> follow
[[wikilinks]] with `resolve_link`, or explore neighbours with `related_notes`.
Paths are vault-relative ('Folder/Note.md'). `index_status` tells whether the index is fresh;
`reindex` updates it after notes changed."""


# ----------------------------------------------------------------------------- output schemas


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ExpandedRangeOut(_Out):
    chunk_id: int
    byte_range: list[int]
    line_range: list[int]


class SearchHitOut(_Out):
    path: str = Field(description="Vault-relative path of the note")
    title: str
    heading_path: list[str] = Field(description="Headings from the top of the note down to this passage")
    level: int
    content: str = Field(description="The passage text")
    score: float
    rank: int
    # Typed loosely on purpose: clients validate structured content against
    # this schema, and per-pair item schemas tripled that cost (bench).
    match_spans: list[Any] = Field(description="[start, end) UTF-8 byte offset pairs of matches in content")
    expanded_from: list[ExpandedRangeOut]
    byte_range: list[int]
    line_range: list[int] = Field(description="[first, last] 1-based lines of the passage in the note")
    chunk_id: int


class SearchOut(_Out):
    results: list[SearchHitOut]
    low_confidence: bool = Field(description="True when nothing matched well: results are only the closest notes")
    filter_applied: dict[str, Any]
    warnings: list[str]


class LinkOut(_Out):
    target: str
    path: str | None
    heading: str | None
    block: str | None
    alias: str | None
    embed: bool
    line: int


class DocumentOut(_Out):
    path: str
    title: str
    content: str
    frontmatter: dict[str, Any]
    links: list[LinkOut]
    line_range: list[int]
    truncated: bool


class SimilarOut(_Out):
    path: str
    title: str
    score: float


class BacklinkOut(_Out):
    path: str
    title: str
    line: int


class OutgoingOut(_Out):
    target: str
    path: str | None
    heading: str | None
    line: int


class RelatedOut(_Out):
    path: str
    similar: list[SimilarOut]
    backlinks: list[BacklinkOut]
    outgoing: list[OutgoingOut]


class ResolvedLinkOut(_Out):
    path: str | None
    heading: str | None
    block: str | None
    line_range: list[int] | None
    exists: bool


# ----------------------------------------------------------------------------- backends


Progress = Callable[[dict], None]


class Backend(Protocol):
    """What the tools call: in-process (a Runtime) or a running daemon."""

    mode: str

    def search(self, params: dict[str, Any]) -> dict[str, Any]: ...
    def get_document(self, path: str, line_start: int | None, line_end: int | None,
                     heading: str | None) -> dict[str, Any]: ...
    def related_notes(self, path: str | None, limit: int, chunk_id: int | None) -> dict[str, Any]: ...
    def resolve_link(self, link: str, from_path: str | None) -> dict[str, Any]: ...
    def index_status(self) -> dict[str, Any]: ...
    def reindex(self, force: bool, progress: Progress | None) -> dict[str, Any]: ...
    def read_note(self, path: str) -> str: ...
    def warm(self) -> None: ...
    def close(self) -> None: ...


def _search_params(p: dict[str, Any]) -> SearchParams:
    return SearchParams(
        query=p["query"], limit=p.get("limit"), rerank=p.get("rerank"), reranker=p.get("reranker"),
        mmr=p.get("mmr"), mmr_lambda=p.get("mmr_lambda"), mmr_same_doc_penalty=p.get("mmr_same_doc_penalty"),
        parent_retriever=p.get("parent_retriever"), path_globs=tuple(p.get("path_globs") or ()),
        tags_any=tuple(p.get("tags_any") or ()), tags_all=tuple(p.get("tags_all") or ()),
        date_from=p.get("date_from"), date_to=p.get("date_to"), min_confidence_ratio=p.get("min_confidence_ratio"),
    )


class LocalBackend:
    """This process owns a Runtime: the index, and the model kept warm."""

    mode = "standalone"

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    def search(self, params: dict[str, Any]) -> dict[str, Any]:
        return service.search(self.rt, _search_params(params), max_limit=MAX_LIMIT).to_json()

    def get_document(self, path, line_start, line_end, heading):
        return notes.get_document(self.rt, path, line_start, line_end, heading)

    def related_notes(self, path, limit, chunk_id):
        return notes.related_notes(self.rt, path or "", limit, chunk_id=chunk_id)

    def resolve_link(self, link, from_path):
        return notes.resolve_link(self.rt, link, from_path)

    def index_status(self) -> dict[str, Any]:
        st = service.index_status(self.rt)
        st["model_loaded"] = self.rt._embedder is not None
        return st

    def reindex(self, force: bool, progress: Progress | None) -> dict[str, Any]:
        return service.reindex(self.rt, force=force, progress=progress).to_json()

    def read_note(self, path: str) -> str:
        return notes.read_note_text(self.rt, path)

    def warm(self) -> None:
        # Loads the embedder now so the first search does not pay for it.
        self.rt.embedder  # noqa: B018

    def close(self) -> None:
        self.rt.close()


@dataclass
class ServerOptions:
    vault: Path
    index_path: Path | None = None
    model: str | None = None
    attach: bool = True  # route through a running `groove serve` for this vault
    warm: bool = True  # load the model at startup, in the background


@dataclass
class State:
    opts: ServerOptions
    backend: Backend | None = None
    started: float = field(default_factory=time.perf_counter)
    first_search_seconds: float | None = None
    warm_error: str | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def get(self) -> Backend:
        with self.lock:
            if self.backend is None:
                self.backend = open_backend(self.opts)
            return self.backend

    def run(self, fn: Callable[[Backend], Any]) -> Any:
        """``fn(backend)``; if the daemon went away, once more standalone."""
        b = self.get()
        try:
            return fn(b)
        except DaemonGone as e:
            log.warning("groove daemon connection lost (%s); continuing standalone", e)
            with self.lock:
                if self.backend is b:
                    b.close()
                    self.backend = LocalBackend(open_runtime(self.opts.vault, index_path=self.opts.index_path,
                                                             model=self.opts.model))
            return fn(self.get())


def open_backend(opts: ServerOptions) -> Backend:
    if opts.attach:
        daemon = _daemon_backend(opts.vault)
        if daemon is not None:
            return daemon
    rt = open_runtime(opts.vault, index_path=opts.index_path, model=opts.model)
    return LocalBackend(rt)


def _daemon_backend(vault: Path) -> Backend | None:
    """A backend over the vault's running `groove serve`, or None (none runs)."""
    from .daemon.client import find_daemon

    conn = find_daemon(vault, client=f"groove-mcp/{__version__}")
    return DaemonBackend(conn) if conn is not None else None


class DaemonGone(Exception):
    """The daemon connection broke; the server falls back to standalone."""


class DaemonBackend:
    """Calls go to the vault's daemon over its socket: no model in this process."""

    mode = "daemon"

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def _call(self, method: str, params: dict[str, Any], timeout: float | None = 120.0) -> Any:
        from .daemon.client import ConnectError, RpcError

        try:
            return self.conn.call(method, {k: v for k, v in params.items() if v is not None}, timeout=timeout)
        except RpcError as e:
            raise GrooveError(e.message if hasattr(e, "message") else str(e)) from e
        except ConnectError as e:
            raise DaemonGone(str(e)) from e

    def search(self, params):
        return self._call("search", params)

    def get_document(self, path, line_start, line_end, heading):
        return self._call("get_document", {"path": path, "line_start": line_start, "line_end": line_end,
                                           "heading": heading})

    def related_notes(self, path, limit, chunk_id):
        if not path:  # the socket protocol requires the path, chunk_id or not
            raise InvalidArgument("pass the hit's 'path' together with 'chunk_id' (served by the groove daemon)")
        return self._call("related_notes", {"path": path, "limit": limit, "chunk_id": chunk_id})

    def resolve_link(self, link, from_path):
        return self._call("resolve_link", {"link": link, "from_path": from_path})

    def index_status(self) -> dict[str, Any]:
        st = self._call("index_status", {})
        st["daemon_pid"] = self.conn.hello.get("pid")
        return st

    def reindex(self, force: bool, progress: Progress | None) -> dict[str, Any]:
        if progress is not None:
            self._call("subscribe", {"events": ["index.progress"]})
        pending = self.conn.request("reindex", {"force": force})
        while not pending.done():
            for method, ev in self.conn.notifications(timeout=0.2):
                if method == "index.progress" and progress is not None:
                    progress(ev)
                if pending.done():
                    break
        from .daemon.client import ConnectError, RpcError

        try:
            return pending.result(0)
        except RpcError as e:
            raise GrooveError(str(e)) from e
        except ConnectError as e:
            raise DaemonGone(str(e)) from e

    def read_note(self, path: str) -> str:
        return self.get_document(path, None, None, None)["content"]

    def warm(self) -> None:
        pass  # the daemon keeps its model warm

    def close(self) -> None:
        self.conn.close()


# ----------------------------------------------------------------------------- rendering


def _one_line(s: str) -> str:
    return " ".join(s.split())


def render_search(query: str, resp: dict[str, Any]) -> str:
    hits = resp["results"]
    head = f'{len(hits)} result{"s" if len(hits) != 1 else ""} for "{query}"'
    if resp.get("low_confidence"):
        head += " (low confidence: no strong match; these are only the closest passages)"
    out = [head]
    if resp.get("filter_applied"):
        out.append("filters: " + json.dumps(resp["filter_applied"], ensure_ascii=False))
    out.extend(f"warning: {w}" for w in resp.get("warnings", []))
    for h in hits:
        where = " > ".join(h["heading_path"]) or h["title"]
        a, b = h["line_range"]
        out.append(f'\n{h["rank"]}. {h["path"]} | {where} | lines {a}-{b} | score {h["score"]:.4f}')
        text = _one_line(h["content"])
        out.append("   " + (text[:SNIPPET_CHARS] + " …" if len(text) > SNIPPET_CHARS else text))
    if hits:
        out.append("\nRead more with get_document(path, line_start, line_end).")
    return "\n".join(out)


def render_document(d: dict[str, Any]) -> str:
    a, b = d["line_range"]
    return f'{d["path"]} ({d["title"]}), lines {a}-{b}{" [truncated]" if d["truncated"] else ""}\n\n{d["content"]}'


def _json_text(d: Any) -> str:
    return json.dumps(d, ensure_ascii=False, indent=1)


# ----------------------------------------------------------------------------- server


def _tool_error(e: Exception) -> ToolError:
    return ToolError(str(e))


async def _call(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a blocking backend call in a worker thread; groove's errors become
    MCP tool errors (isError results) with the message as is."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except GrooveError as e:
        raise _tool_error(e) from e


def build_server(opts: ServerOptions) -> MCPServer:
    state = State(opts)

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[State]:
        # Open now (fail fast on a missing vault); load the model in the
        # background so the handshake does not wait for it.
        state.get()
        if opts.warm:
            def warm() -> None:
                try:
                    state.get().warm()
                except Exception as e:  # reported by index_status; search raises it again
                    state.warm_error = str(e)
                    log.warning("model warm-up failed: %s", e)

            threading.Thread(target=warm, name="groove-warm", daemon=True).start()
        try:
            yield state
        finally:
            if state.backend is not None:
                state.backend.close()

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
        tags_any: Annotated[list[str] | None, Field(description="Only notes with at least one of these tags (no '#').")] = None,
        tags_all: Annotated[list[str] | None, Field(description="Only notes with all of these tags (no '#').")] = None,
        date_from: Annotated[str | None, Field(description="Only notes dated on/after this day (YYYY-MM-DD, frontmatter date).")] = None,
        date_to: Annotated[str | None, Field(description="Only notes dated on/before this day (YYYY-MM-DD).")] = None,
        rerank: Annotated[bool | None, Field(description="Rerank with the cross-encoder: more precise, slower. Omit for the vault's setting.")] = None,
        mmr: Annotated[bool | None, Field(description="Diversify results (MMR) so one note does not fill the list. Omit for the vault's setting.")] = None,
        mmr_lambda: Annotated[float | None, Field(ge=0, le=1, description="MMR balance: 1 = relevance only, 0 = diversity only.")] = None,
        mmr_same_doc_penalty: Annotated[float | None, Field(ge=0, description="Extra MMR penalty for another passage of a note already picked.")] = None,
        parent_retriever: Annotated[bool | None, Field(description="Return the surrounding section (or the whole short note) instead of the bare passage.")] = None,
        min_confidence_ratio: Annotated[float | None, Field(ge=0, le=1, description="Threshold for low_confidence (advanced; omit).")] = None,
    ) -> Annotated[CallToolResult, SearchOut]:
        params = {
            "query": query, "limit": limit, "path_globs": path_globs or [], "tags_any": tags_any or [],
            "tags_all": tags_all or [], "date_from": date_from, "date_to": date_to, "rerank": rerank,
            "mmr": mmr, "mmr_lambda": mmr_lambda, "mmr_same_doc_penalty": mmr_same_doc_penalty,
            "parent_retriever": parent_retriever, "min_confidence_ratio": min_confidence_ratio,
        }
        t0 = time.perf_counter()
        resp = await _call(lambda: state.run(lambda b: b.search(params)))
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
        path: Annotated[str, Field(description="Vault-relative note path, e.g. 'Projects/Plan.md' ('.md' may be omitted).")],
        line_start: Annotated[int | None, Field(ge=1, description="First line to return (1-based).")] = None,
        line_end: Annotated[int | None, Field(ge=1, description="Last line to return (inclusive).")] = None,
        heading: Annotated[str | None, Field(description="Return only this heading's section (with its sub-sections); 'Parent#Child' for a nested one.")] = None,
    ) -> Annotated[CallToolResult, DocumentOut]:
        d = await _call(lambda: state.run(lambda b: b.get_document(path, line_start, line_end, heading)))
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
    ) -> Annotated[CallToolResult, RelatedOut]:
        if not path and chunk_id is None:
            raise ToolError("pass 'path' (a vault-relative note path) or 'chunk_id' (from a search hit)")
        d = await _call(lambda: state.run(lambda b: b.related_notes(path, limit, chunk_id)))
        return CallToolResult(content=[TextContent(type="text", text=_json_text(d))], structured_content=d)

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
        link: Annotated[str, Field(description="The link as written, e.g. '[[Sync#Conflicts|fixing conflicts]]', '[[Note^abc123]]', or 'Note#Heading'.")],
        from_path: Annotated[str | None, Field(description="Vault-relative path of the note containing the link (decides ambiguous names).")] = None,
    ) -> Annotated[CallToolResult, ResolvedLinkOut]:
        d = await _call(lambda: state.run(lambda b: b.resolve_link(link, from_path)))
        return CallToolResult(content=[TextContent(type="text", text=_json_text(d))], structured_content=d)

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
        st = await _call(lambda: state.run(lambda b: b.index_status()))
        st["mode"] = state.get().mode
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

        return await _call(lambda: state.run(lambda b: b.reindex(force, progress)))

    @mcp.resource(
        "groove://note/{+path}",
        name="note",
        title="A note in the vault",
        description="The full Markdown text of a note; path is vault-relative, e.g. groove://note/Projects/Plan.md",
        mime_type="text/markdown",
    )
    async def note_resource(path: str) -> str:
        try:
            return await anyio.to_thread.run_sync(lambda: state.run(lambda b: b.read_note(path)))
        except GrooveError as e:
            raise ResourceNotFoundError(str(e)) from e

    return mcp


# ----------------------------------------------------------------------------- HTTP


def transport_security(host: str, extra_hosts: list[str] | None = None) -> TransportSecuritySettings:
    """Host/Origin allow-lists against DNS rebinding: only loopback names (and
    an explicitly bound remote host) may appear in Host; browsers may only call
    from a loopback origin."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    h = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if h not in names:
        names.append(h)
    names += list(extra_hosts or [])
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[x for n in names for x in (n, f"{n}:*")],
        allowed_origins=[x for n in names for s in ("http", "https") for x in (f"{s}://{n}", f"{s}://{n}:*")],
    )


class BearerAuth:
    """ASGI middleware: every request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            auth = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, given = auth.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self.token):
                body = b'{"error": "missing or wrong bearer token"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="groove"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(mcp: MCPServer, host: str, token: str | None) -> Any:
    app = mcp.streamable_http_app(transport_security=transport_security(host), host=host)
    return BearerAuth(app, token) if token else app


def serve_http(mcp: MCPServer, host: str, port: int, token: str | None,
               on_ready: Callable[[str], None] | None = None) -> None:
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this: without it Nagle + delayed ACK add ~40 ms
    # to every response (headers and SSE body go out as separate writes).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))  # bound here so port 0 gets a real port we can print
    sock.listen(2048)  # connections queue from now on, even before uvicorn accepts
    real_port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{real_port}/mcp"
    config = uvicorn.Config(http_app(mcp, host, token), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    if on_ready:
        on_ready(url)
    server.run(sockets=[sock])


def serve_stdio(mcp: MCPServer) -> None:
    anyio.run(mcp.run_stdio_async)
