"""The operations, once: what every surface (the CLI, the socket daemon, MCP)
can ask of a vault.

``table.OPERATIONS`` maps each name to ``fn(runtime, **params) -> result``,
with the wire's JSON shapes in and out (``groove.wire``); the socket daemon
serves this table (overriding only what needs its index worker) and MCP
calls it, in this process or through the daemon. ``search``, ``reindex``
and ``index_status`` are also typed Python functions (``table.py``) for the
CLI, eval and tests. The others live one module each: reading notes and
resolving links ``notes.py``, related notes ``related.py``, unlinked
connections ``unlinked.py``, listing notes and tags ``browse.py``.

Adding an operation: a function in one of these modules (or a new one), an
entry in ``table.OPERATIONS``, and its params and result types in
``groove.wire`` (``wire/models.py``'s ``METHODS``); then regenerate the
protocol (``make protocol``).
"""

from __future__ import annotations

from .table import MAX_LIMIT, OPERATIONS, Operation, call, index_status, reindex, search

__all__ = ["MAX_LIMIT", "OPERATIONS", "Operation", "call", "index_status", "reindex", "search"]
