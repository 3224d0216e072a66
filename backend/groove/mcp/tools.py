"""The MCP server: its instructions (built from the index: how many notes,
how fresh), the tools (read_tools.py, browse_tools.py), the prompts, and
the lifespan that opens the backend and warms the model. Every tool is one
operation of the table (``operations.OPERATIONS``), called through
``Backend.call`` by ``session.call``, where groove's errors become tool
errors carrying the message as is (it names what to fix); anything else is a
bug, logged with its traceback and reported as internal."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from pydantic import Field

from .. import __version__
from ..config import load_config
from ..errors import VaultError
from . import browse_tools, link_tools, read_tools
from .backend import Backend, ServerOptions
from .budget import DEFAULT_MAX_TOKENS
from .freshness import not_indexed_summary
from .session import Session
from .strict import GrooveMCP
from .vaults import VaultSet, notes_page, publish_vault_argument, register_list_vaults, vault_names

log = logging.getLogger("groove.mcp")

WORKFLOW = """\
groove searches the user's Markdown notes (an Obsidian-style vault) by meaning and by exact words.
Workflow: `search` with a natural-language query -> read a hit in context with `get_document`
(pass the hit's `path`, and its `line_range` as line_start/line_end, or a heading) -> follow
[[wikilinks]] with `resolve_link`, or explore neighbours with `related_notes` (`unlinked_connections`: similar
notes not linked yet, with the [[link]] to write). Browse without a
query with `list_notes`, `recent_notes` and `list_tags`; read several notes with `get_documents`.
Every result stays under `max_tokens` (default {budget:,}); cut content is flagged `truncated`
with how to read the rest. Paths are vault-relative ('Folder/Note.md'). `index_status` tells
whether the index is fresh; `reindex` updates it after notes changed."""

NO_RERANKER = ("`rerank` is not offered: no reranker is configured for this vault. Set `reranker = \"<model>\"` "
               "under [search] in the vault's groove.toml (see `groove models`), then restart the MCP server.")


def instructions(backend: Backend) -> str:
    """The workflow, plus what the index holds and how fresh it is (read once, at start)."""
    summary = index_summary(backend)
    return WORKFLOW.format(budget=DEFAULT_MAX_TOKENS) + (f"\n{summary}" if summary else "")


def index_summary(backend: Backend, who: str = "This vault") -> str:
    """What the vault's index holds and how fresh it is, or "" when it cannot be read."""
    try:
        st = backend.call("index_status", {})
    except VaultError as e:  # a missing folder: say so first thing (ADR 0253)
        return f"{who} cannot be read: {e}. Tell the user."
    except Exception as e:  # noqa: BLE001 - the server still starts; index_status will say what is wrong
        log.warning("could not read the index for the server instructions: %s", e)
        return ""
    if not st.get("documents"):
        return not_indexed_summary(st, backend.mode, "The vault" if who == "This vault" else who)
    when = st.get("last_indexed_iso") or "an unknown time"
    fresh = ("all notes are up to date" if st.get("stale_files") == 0
             else f"{st.get('stale_files')} notes changed since (searches re-index a few, or call `reindex`)")
    return f"{who}: {st['documents']:,} notes in {st['chunks']:,} passages, last indexed {when}; {fresh}."


def _register_prompts(mcp: MCPServer) -> None:
    @mcp.prompt(name="answer_from_notes", title="Answer from my notes, with citations",
                description="Answer a question only from the vault's notes, citing each claim.")
    def answer_from_notes(question: Annotated[str, Field(description="The question to answer.")]) -> str:
        return (
            f"Answer this question using only my notes: {question}\n\n"
            "1. Call `search` with the question (and, if the first results are thin, once more with other words).\n"
            "2. If `low_confidence` is true or nothing relevant comes back, say that my notes do not answer it; "
            "do not answer from general knowledge unless I ask. `low_confidence: false` means my notes are "
            "about the topic, not that they answer the question: if no hit actually says it, say so.\n"
            "3. Read the best hits in context with `get_document` (the hit's path and line_range).\n"
            "4. Answer concisely. Cite every claim as [[path#heading]] with the line range, e.g. "
            "[[Projects/Plan.md#Goals]] (lines 5-9). Quote short phrases when wording matters.")

    @mcp.prompt(name="summarize_recent", title="What changed in my notes",
                description="Summarize the notes changed in the last days.")
    def summarize_recent(days: Annotated[str, Field(description="How many days back, e.g. 7.")] = "7") -> str:
        return (
            f"Summarize what I worked on in my notes over the last {days} days.\n"
            f"1. Call `recent_notes` with days={days} (page with offset while next_offset is set).\n"
            "2. Read the notes with `get_documents` (batches under the budget).\n"
            "3. Group by project or topic; one line per note with its [[path]]; end with open questions or todos.")

    @mcp.prompt(name="explore_topic", title="Map a topic across my notes",
                description="Find every note about a topic and how they link together.")
    def explore_topic(topic: Annotated[str, Field(description="The topic.")]) -> str:
        return (
            f"Map what my notes say about: {topic}\n"
            "1. `search` for it (limit 20); `list_tags` may show a matching tag to use with `list_notes`.\n"
            "2. For the central notes, `related_notes` gives similar notes, backlinks and outgoing links.\n"
            "3. Give an outline of the topic with each point's [[path]], and name notes that contradict each other.")


SEVERAL = """\
This server serves {n} vaults: {names}. `search` looks in all of them unless you pass `vault`; each
hit names its `vault`: pass it as `vault` to get_document and every other tool (they need it)."""


def several_instructions(vaults: VaultSet) -> str:
    lines = [WORKFLOW.format(budget=DEFAULT_MAX_TOKENS),
             SEVERAL.format(n=len(vaults.sessions), names=vaults.listing())]
    lines += [index_summary(s.backend, f"Vault {s.name!r}") for s in vaults.sessions]
    return "\n".join(x for x in lines if x)


def open_vaults(opts: ServerOptions | Sequence[ServerOptions]) -> VaultSet:
    """A Session per vault (its own Backend), named when there are several."""
    many = [opts] if isinstance(opts, ServerOptions) else list(opts)
    paths = [Path(o.vault).resolve() for o in many]
    dup = next((p for i, p in enumerate(paths) if p in paths[:i]), None)
    if dup is not None:
        raise ValueError(f"the vault {dup} is given twice")
    names = vault_names(paths) if len(many) > 1 else [None]
    return VaultSet([Session(Backend(o), name=n) for o, n in zip(many, names)], paths)


def build_server(opts: ServerOptions | Sequence[ServerOptions]) -> MCPServer:
    """The server for one vault, or for several (``vaults.py``, ADR 0205)."""
    vaults = open_vaults(opts)
    for s in vaults.sessions:
        _open(s.backend)  # read the index for the instructions
    first = vaults.sessions[0]

    @asynccontextmanager
    async def lifespan(_server: MCPServer) -> AsyncIterator[None]:
        # The tools hold ``state`` (they are registered with it below); the
        # lifespan only opens the backend, warms the model and closes.
        # Load the model in the background so the handshake does not wait for it.
        for state in vaults.sessions:
            if not _open(state.backend):
                continue
            if state.backend.opts.warm:
                def warm(state: Session = state) -> None:
                    try:
                        state.backend.warm()
                    except Exception as e:  # reported by index_status; search raises it again
                        state.warm_error = str(e)
                        log.warning("model warm-up failed: %s", e)

                threading.Thread(target=warm, name="groove-warm", daemon=True).start()
        try:
            yield
        finally:
            for state in vaults.sessions:
                state.backend.close()

    t0 = time.perf_counter()
    mcp = GrooveMCP(
        name="groove",
        title="groove — semantic search over your Markdown notes",
        instructions=several_instructions(vaults) if vaults.multi else instructions(first.backend),
        version=__version__,
        lifespan=lifespan,
        log_level="WARNING",
        notes_page=(lambda offset, limit: notes_page(vaults, offset, limit)) if vaults.multi
        else lambda offset, limit: _notes_page(first.backend, offset, limit),
    )
    log.debug("instructions read in %.3f s", time.perf_counter() - t0)
    read_tools.register(mcp, vaults)
    browse_tools.register(mcp, vaults)
    link_tools.register(mcp, vaults)
    _register_prompts(mcp)
    if not any(load_config(s.backend.opts.vault).search.reranker for s in vaults.sessions):
        mcp.remove_argument("search", "rerank", NO_RERANKER)
    if vaults.multi:
        register_list_vaults(mcp, vaults)
    publish_vault_argument(mcp, vaults)
    mcp.compact_schemas()
    return mcp


def _open(backend: Backend) -> bool:
    """Open the backend; False when its vault folder is missing. The server
    still starts: its instructions and every tool say so (ADR 0253)."""
    try:
        backend.open()
    except VaultError as e:
        log.warning("%s", e)
        return False
    return True


def _notes_page(backend: Backend, offset: int, limit: int) -> dict[str, Any]:
    return backend.call("list_notes", {"offset": offset, "limit": limit})
