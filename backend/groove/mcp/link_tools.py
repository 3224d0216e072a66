"""unlinked_connections: the notes most like one note that no link joins to
it yet, each with the wikilink to write (``notes.unlinked_connections``,
ADR 0200), so Claude can propose links. Its own module: the other tool
modules are registered from their own argument lists."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp_types import CallToolResult
from pydantic import Field

from ..wire.bounds import MAX_PATH_CHARS, MAX_RELATED
from ..wire.note_types import UnlinkedConnections
from .session import READ_ONLY, call, fresh, result
from .vaults import VaultArg, VaultSet, with_vault


def _text(d: dict[str, Any]) -> str:
    rows = d["connections"]
    if not rows:
        return f"No unlinked connections for {d['path']}: its nearest notes are all linked to it (or it has none)."
    lines = [f"{len(rows)} notes like {d['path']} that no link joins to it (nearest first); "
             "to link one, write its `link` in the note:"]
    for c in rows:
        alias = f" | aliases: {', '.join(c['aliases'])}" if c["aliases"] else ""
        lines.append(f"- {c['link']} | {c['title']} | {c['path']} | score {c['score']:.3f}{alias}")
    lines += [f"warning: {w}" for w in d.get("warnings", [])]
    return "\n".join(lines)


def register(mcp: MCPServer, vaults: VaultSet) -> None:
    @mcp.tool(name="unlinked_connections", title="Unlinked connections", annotations=READ_ONLY, description=(
        "Notes similar in meaning to one note that no link joins to it either way: candidates for new links, "
        "each with `link`, the wikilink to write (write '[[Name|alias]]' to show an alias). Read both notes "
        "before proposing a link, and say why they belong together."))
    async def unlinked_connections(
        path: Annotated[str, Field(min_length=1, max_length=MAX_PATH_CHARS, description=(
            "Vault-relative note path, e.g. 'Projects/Plan.md'."))],
        limit: Annotated[int, Field(ge=1, le=MAX_RELATED, description="Number of notes.")] = 10,
        vault: VaultArg = None,
    ) -> Annotated[CallToolResult, UnlinkedConnections]:
        state = vaults.pick(vault)
        warnings = await fresh(state)
        d = await call(state.backend.call, "unlinked_connections", {"path": path, "limit": limit})
        if warnings:
            d["warnings"] = warnings
        return result(_text(d), with_vault(d, state))  # at most 50 short rows: well under any max_tokens
