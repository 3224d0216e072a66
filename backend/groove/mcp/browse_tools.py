"""The tools that navigate rather than read: related_notes
(``related.py``), resolve_link (``notes.py``), list_notes, recent_notes, list_tags
(``browse.py``); the index tools (index_status, reindex); the note resource
(``notes.read_note``). The prompts are in ``tools.py``. Lists stay under
max_tokens by ending the page early (next_offset says where to go on)."""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp_types import CallToolResult, ToolAnnotations
from pydantic import Field

from ..errors import GrooveError
from ..wire.bounds import MAX_LIMIT, MAX_PATH_CHARS, MAX_PATTERN_CHARS
from ..wire.constraints import MAX_INT
from ..wire.mcp_outputs import McpIndexStatus
from ..wire.note_types import NotePage, Related, ResolvedLink, TagList
from ..wire.status_types import ReindexSummary
from .budget import DEFAULT_MAX_TOKENS, compact, response_tokens
from .freshness import AUTO_REINDEX_MAX
from .session import READ_ONLY, MaxTokens, call, fresh, result
from .strict import GrooveMCP
from .vaults import VaultArg, VaultSet, split_note_uri, with_vault

Day = Annotated[str | None, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
PageLimit = Annotated[int, Field(ge=1, le=200, description="Notes per page.")]


def _fit_page(page: dict[str, Any], key: str, max_tokens: int) -> tuple[dict[str, Any], str]:
    """End the page early while the answer is over budget."""
    items = page[key]
    while True:
        out = {**page, key: items}
        if len(items) < len(page[key]):
            out["next_offset"] = page.get("offset", 0) + len(items)
            out["truncated"] = True
        text = compact(out)
        if response_tokens(text, out) <= max_tokens or len(items) <= 1:
            return out, text
        items = items[: max(1, len(items) * 3 // 4)]


def _page_text(page: dict[str, Any]) -> str:
    lines = [f'{page["total"]} notes; showing {len(page["notes"])} from {page["offset"] + 1}']
    lines += [f'- {n["path"]} | {n["title"]}' + (f' | {n["date"]}' if n["date"] else "")
              + (f' | #{" #".join(n["tags"])}' if n["tags"] else "") for n in page["notes"]]
    lines += [f"warning: {w}" for w in page.get("warnings", [])]
    if page.get("next_offset") is not None:
        lines.append(f'(more: offset={page["next_offset"]})')
    return "\n".join(lines)


# Their text is the structured result as JSON (``compact``): no output schema is published.
JSON_TEXT = ("related_notes", "resolve_link", "index_status", "reindex")


def register(mcp: GrooveMCP, vaults: VaultSet) -> None:
    _register_links(mcp, vaults)
    _register_listings(mcp, vaults)
    _register_index_tools(mcp, vaults)
    _register_note_resource(mcp, vaults)
    mcp.json_text_tools.update(JSON_TEXT)


def _register_links(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """related_notes (related.py) and resolve_link (notes.py)."""

    @mcp.tool(name="related_notes", title="Related notes", annotations=READ_ONLY, description=(
        "Notes related to one note (`path`), or to one passage (a search hit's `chunk_id`): the most similar "
        "by meaning (score = cosine), its backlinks (each note once, with a count) and its outgoing "
        "wikilinks (path null = no such note)."))
    async def related_notes(
        path: Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description="Vault-relative note path.")] = None,
        chunk_id: Annotated[int | None, Field(ge=-MAX_INT, le=MAX_INT,
                                              description="A search hit's chunk_id, instead of path.")] = None,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="Number of similar notes.")] = 10,
        unlinked_only: Annotated[bool, Field(description="Only similar notes not linked to it either way.")] = False,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, Related]:
        state = vaults.pick(vault)
        warnings = await fresh(state)
        args: dict[str, Any] = {"path": path, "limit": limit, "chunk_id": chunk_id}
        if unlinked_only:
            args["unlinked_only"] = True
        d = await call(state.backend.call, "related_notes", args)
        if warnings:
            d["warnings"] = warnings
        with_vault(d, state)
        return result(compact(d), d)

    @mcp.tool(name="resolve_link", title="Resolve a wikilink", annotations=READ_ONLY, description=(
        "Where an Obsidian wikilink points, by Obsidian's rules (aliases are not link targets). "
        "'[[Note#Heading]]' and '[[Note#^block-id]]' give that part's line_range for get_document. Returns "
        "path (null: no such note), exists, anchor_found (false: no such heading or block)."))
    async def resolve_link(
        link: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS, description=(
            "The link as written, e.g. '[[Sync#Conflicts|fixing conflicts]]' or 'Note#Heading'."))],
        from_path: Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description=(
            "Vault-relative path of the note containing the link (decides ambiguous names)."))] = None,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, ResolvedLink]:
        state = vaults.pick(vault)
        await fresh(state)
        d = with_vault(await call(state.backend.call, "resolve_link", {"link": link, "from_path": from_path}), state)
        return result(compact(d), d)


def _register_listings(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """list_notes, recent_notes, list_tags (browse.py): pages ended early to stay under max_tokens."""

    async def listing(method: str, params: dict[str, Any], max_tokens: int, vault: str | None) -> CallToolResult:
        state = vaults.pick(vault)
        warnings = await fresh(state)
        page = with_vault(await call(state.backend.call, method, params), state)
        page["warnings"] = warnings
        out, _ = _fit_page(page, "notes", max_tokens)
        return result(_page_text(out), out)

    @mcp.tool(name="list_notes", title="List notes", annotations=READ_ONLY, description=(
        "Browse the notes without a query: filter by folder, path glob, tag (a parent tag includes its "
        "children) or date range; sort by path, title, modified or date (newest first). Paged: total says "
        "how many match; pass next_offset as offset."))
    async def list_notes(
        folder: Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description=(
            "Only notes in this folder, e.g. 'Projects'."))] = None,
        glob: Annotated[str | None, Field(max_length=MAX_PATTERN_CHARS, description=(
            "Only paths matching this glob (gitignore style)."))] = None,
        tag: Annotated[str | None, Field(max_length=MAX_PATTERN_CHARS, description=(
            "Only notes with this tag ('#' optional)."))] = None,
        date_from: Day = None,
        date_to: Day = None,
        sort: Annotated[Literal["path", "title", "modified", "date"], Field(description="Order.")] = "path",
        offset: Annotated[int, Field(ge=0, le=MAX_INT, description="Skip this many notes.")] = 0,
        limit: PageLimit = 50,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, NotePage]:
        return await listing("list_notes", {"folder": folder, "glob": glob, "tag": tag, "date_from": date_from,
                                            "date_to": date_to, "sort": sort, "offset": offset, "limit": limit},
                             max_tokens, vault)

    @mcp.tool(name="recent_notes", title="Recently changed notes", annotations=READ_ONLY, description=(
        "Notes modified in the last `days` days, newest first; optionally in one folder. Paged like list_notes."))
    async def recent_notes(
        days: Annotated[float, Field(gt=0, le=36500, description="How far back, in days.")] = 7,
        folder: Annotated[str | None, Field(max_length=MAX_PATH_CHARS,
                                            description="Only notes in this folder.")] = None,
        offset: Annotated[int, Field(ge=0, le=MAX_INT, description="Skip this many notes.")] = 0,
        limit: PageLimit = 20,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, NotePage]:
        return await listing("recent_notes", {"days": days, "folder": folder, "offset": offset, "limit": limit},
                             max_tokens, vault)

    @mcp.tool(name="list_tags", title="List tags", annotations=READ_ONLY, description=(
        "The vault's tags with how many notes carry each, most used first. Use one with list_notes(tag=...) "
        "or search(tags_any=[...])."))
    async def list_tags(
        prefix: Annotated[str | None, Field(max_length=MAX_PATTERN_CHARS, description=(
            "Only tags starting with this, e.g. 'project/'."))] = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="At most this many tags.")] = 100,
        max_tokens: MaxTokens = DEFAULT_MAX_TOKENS,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, TagList]:
        state = vaults.pick(vault)
        warnings = await fresh(state)
        d = with_vault(await call(state.backend.call, "list_tags", {"prefix": prefix, "limit": limit}), state)
        d["warnings"] = warnings
        out, _ = _fit_page({**d, "offset": 0}, "tags", max_tokens)
        text = f'{d["total"]} tags\n' + "\n".join(f'#{t["tag"]} ({t["count"]})' for t in out["tags"])
        return result(text, out)


def _register_index_tools(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """index_status (with this process's latencies) and reindex (with progress notifications)."""

    @mcp.tool(name="index_status", title="Index status", annotations=READ_ONLY, description=(
        "State of the search index: notes and chunks, model, when last indexed, notes changed since "
        "(stale_files; call reindex if > 0), whether a reindex runs, and the rules that leave notes out. "
        "why='Folder/Note.md' names the rule that leaves that note out."))
    async def index_status(
        why: Annotated[str | None, Field(max_length=MAX_PATH_CHARS, description=(
            "A vault-relative note path: the answer's `why` names the rule that leaves it out, or null."))] = None,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, McpIndexStatus]:
        state = vaults.pick(vault)
        backend = state.backend
        st = await call(backend.call, "index_status", {"why": why} if why is not None else {})
        st.update(backend.status_extras())
        st["mode"] = backend.mode
        st["first_search_seconds"] = state.first_search_seconds
        st["warm_error"] = state.warm_error
        st["auto_reindex_max"] = AUTO_REINDEX_MAX if backend.mode == "standalone" else 0
        with_vault(st, state)
        return result(compact(st), st)

    @mcp.tool(
        name="reindex", title="Update the index",
        annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                    open_world_hint=False),
        description=(
            "Update the index from the notes on disk: only new, changed, renamed and deleted notes (fast). "
            "force=true re-embeds every note (slow; only after changing the model). Sends progress "
            "notifications; returns counts and skipped files."))
    async def reindex(
        ctx: Context,
        force: Annotated[bool, Field(description="Rebuild everything instead of updating.")] = False,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, ReindexSummary]:
        state = vaults.pick(vault)
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

        d = await call(lambda: state.backend.call("reindex", {"force": force}, progress=progress))
        state.freshness.forget()
        with_vault(d, state)
        return result(compact(d), d)


def _register_note_resource(mcp: GrooveMCP, vaults: VaultSet) -> None:
    """groove://note/{path}: a note's whole text (notes.read_note), through
    the read gate; with several vaults the path starts with the vault's name."""

    @mcp.resource(
        "groove://note/{+path}", name="note", title="A note in the vault",
        description="The full Markdown text of a note; path is vault-relative, e.g. groove://note/Projects/Plan.md",
        mime_type="text/markdown",
    )
    async def note_resource(path: str) -> str:
        try:
            state, path = split_note_uri(vaults, path) if vaults.multi else (vaults.sessions[0], path)
            note = await anyio.to_thread.run_sync(state.backend.call, "read_note", {"path": path})
        except (GrooveError, ToolError) as e:
            raise ResourceNotFoundError(str(e)) from e
        return note["text"]
