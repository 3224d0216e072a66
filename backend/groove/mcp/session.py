"""What every tool module shares: the per-server state, the call into the
backend (blocking, so on a worker thread) with groove's errors as tool
errors, the freshness check, and the ``max_tokens`` argument."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

import anyio.to_thread
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from ..errors import GrooveError
from .backend import Backend
from .budget import MAX_MAX_TOKENS, MIN_MAX_TOKENS
from .freshness import Freshness

log = logging.getLogger("groove.mcp")

# destructiveHint and idempotentHint mean something only when readOnlyHint is false (MCP's ToolAnnotations).
READ_ONLY = ToolAnnotations(read_only_hint=True, open_world_hint=False)

MaxTokens = Annotated[int, Field(ge=MIN_MAX_TOKENS, le=MAX_MAX_TOKENS, description=(
    "Response budget in tokens (beyond it, content is cut: `truncated`)."))]


@dataclass
class Session:
    backend: Backend
    name: str | None = None  # the vault's name when the server serves several (vaults.py)
    freshness: Freshness = field(init=False)
    first_search_seconds: float | None = None
    warm_error: str | None = None

    def __post_init__(self) -> None:
        self.freshness = Freshness(self.backend)


async def call(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a blocking call in a worker thread, groove's errors as tool errors."""
    try:
        return await anyio.to_thread.run_sync(fn, *args)
    except GrooveError as e:
        raise ToolError(str(e)) from e
    except Exception as e:
        log.exception("tool call failed")
        raise ToolError(f"internal error: {type(e).__name__}: {e}") from e


async def fresh(state: Session) -> list[str]:
    """The index's warnings for this response (NotIndexed as a tool error)."""
    return await call(state.freshness.check)


def result(text: str, structured: dict[str, Any]) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)
