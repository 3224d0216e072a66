"""What a caller may send, in one table for every surface (issue 15 D10/D11,
issue 35 F4, ADR 0153).

The socket daemon checks params against ``wire/protocol.json``, which
``wire/models.py`` builds from these numbers; the MCP tools publish them
in their input schemas (``maxLength``, ``maxItems``), which ``mcp/strict.py``
enforces before a call runs; and the core checks them again
(``pipeline/params.py``, ``vault/gate.py``), so the CLI and a standalone MCP
server, which call the core directly, are bounded the same. Generous for
any real vault (a path component is at most 255 bytes on every OS), small
enough that no argument costs more than its handling is worth.
"""

from __future__ import annotations

MAX_REQUEST_BYTES = 1 << 20  # one JSON-RPC request line (socket and MCP stdio), newline excluded
MAX_QUERY_CHARS = 10_000  # a search query
MAX_PATH_CHARS = 4_096  # a note path, link, heading or folder
MAX_PATTERN_CHARS = 1_000  # one path glob or tag
MAX_FILTER_ITEMS = 100  # path_globs, tags_any, tags_all: items each
MAX_LIMIT = 50  # search hits per request, on every surface; a larger limit is clamped with a warning
MAX_KNN_K = 4_096  # sqlite-vec refuses a KNN deeper than this ("k value in knn query too large")
MAX_RELATED = 50  # related_notes and unlinked_connections: notes per request
