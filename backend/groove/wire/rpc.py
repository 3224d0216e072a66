"""The protocol's version and its JSON-RPC error codes, by name.

``generate.py`` writes them into ``protocol.json`` and ``typescript.py``
into the plugins' ``protocol.ts`` (``ErrorCode``): the TypeScript client no
longer restates them by hand (ADR 0277). Plain constants, no typing
imports: the CLI's daemon path reads them (``daemon/protocol.py``); the
envelope's types are ``envelope.py``.
"""

from __future__ import annotations

PROTOCOL_VERSION = 1

# JSON-RPC 2.0 codes, then groove's own (-32000..-32099 are "server errors").
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL = -32000
BAD_QUERY = -32001
PATH_NOT_FOUND = -32002
INDEX_MISSING = -32003
CANCELLED = -32800
# Each code by the name clients spell it with (protocol.ts' ErrorCode).
ERROR_NAMES: dict[str, int] = {
    "ParseError": PARSE_ERROR, "InvalidRequest": INVALID_REQUEST, "MethodNotFound": METHOD_NOT_FOUND,
    "InvalidParams": INVALID_PARAMS, "Internal": INTERNAL, "BadQuery": BAD_QUERY, "PathNotFound": PATH_NOT_FOUND,
    "IndexMissing": INDEX_MISSING, "Cancelled": CANCELLED,
}
ERROR_CODES = tuple(ERROR_NAMES.values())
