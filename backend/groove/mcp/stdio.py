"""MCP over stdio with JSON-RPC's framing rules (ADR 0154).

The SDK's stdio reader drops a line it cannot read without a word (it
hands the parse error to the session, which logs it at debug level), so a
client waiting on that request's id waits forever. Here every line is read
first by ``_Lines``, which answers what the SDK would drop:

* not JSON: -32700 (id null);
* JSON nested too deep, a batch (MCP has none since 2025-06-18), or a
  message that is not a JSON-RPC 2.0 request, notification or response:
  -32600, with the request's id when it can be read;
* a line over ``MAX_REQUEST_BYTES`` (the socket's bound, bounds.py): -32600,
  and the rest of the line is skipped without being held in memory;
* a lone UTF-16 surrogate (which no UTF-8 reply could echo) becomes
  U+FFFD, so the call is answered (issue 15 D7).

Replies written here and the SDK's own share one writer, a whole line at a
time under a lock, so they never interleave. When the client closes stdin
the session ends; a call still running (a search cannot be interrupted
mid-way) gets ``EOF_GRACE_S`` to finish, then the process exits: a server
whose client has gone does no more work (issue 35 F4).
"""

from __future__ import annotations

import io
import json
import logging
import os
import re
import sys
import threading
import time
from typing import IO, Any, cast

import anyio
from mcp.server.mcpserver import MCPServer

from ..errors import lone_surrogate_at
from ..wire.bounds import MAX_QUERY_CHARS, MAX_REQUEST_BYTES

log = logging.getLogger("groove.mcp")

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
EOF_GRACE_S = 2.0


class _Wire:
    """The client's end of stdout: whole lines, one writer at a time."""

    def __init__(self, fd: int) -> None:
        self._out = os.fdopen(fd, "wb", buffering=0, closefd=False)
        self._lock = threading.Lock()

    def write(self, text: str) -> int:
        data = text.encode("utf-8", errors="replace")
        with self._lock:
            view = memoryview(data)
            while view:
                view = view[self._out.write(view) or 0:]
        return len(text)

    def flush(self) -> None:
        pass  # unbuffered: each write is on the wire when it returns

    def reply_error(self, rid: Any, code: int, message: str) -> None:
        self.write(json.dumps(_error(rid, code, message), ensure_ascii=False) + "\n")


def _error(rid: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}


def _readable_id(msg: Any) -> Any:
    """The message's id if it is one JSON-RPC allows (a string or an integer), else None."""
    rid = msg.get("id") if isinstance(msg, dict) else None
    if isinstance(rid, bool) or not isinstance(rid, (int, str)) or lone_surrogate_at(rid) is not None:
        return None
    return rid


def id_in_prefix(text: str) -> Any:
    """The top-level "id" of a JSON object whose start is ``text`` (a line
    too long to parse whole), or None: keys are read at depth 1 only, so an
    "id" inside params is not taken for the request's."""
    depth, i, n = 0, 0, len(text)
    key: str | None = None
    while i < n:
        ch = text[i]
        if ch == '"':
            m = _STRING.match(text, i)
            if m is None:
                return None
            colon = _COLON.match(text, m.end()) if depth == 1 and key is None else None
            if colon:
                key = m.group(1)
                i = colon.end()
                if key == "id":
                    v = _ID_VALUE.match(text, i)
                    return json.loads(v.group(0)) if v else None
                key = None
                continue
            i = m.end()
            continue
        if ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        i += 1
    return None


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
_COLON = re.compile(r"\s*:\s*")
_ID_VALUE = re.compile(r'-?\d{1,16}(?![.\deE])|"(?:[^"\\]|\\.){0,200}"')


def screen(line: str) -> tuple[str | None, list[dict[str, Any]]]:
    """(the line to hand to the SDK, or None; the error replies to send instead)."""
    import mcp_types

    try:
        msg = json.loads(line)
    except RecursionError:
        return None, [_error(None, INVALID_REQUEST, "invalid request: JSON nested too deeply to read")]
    except ValueError as e:  # bad JSON or UTF-8, an int past 4,300 digits
        return None, [_error(None, PARSE_ERROR, f"parse error: {str(e)[:200]}")]
    if isinstance(msg, list):
        ids = [_readable_id(m) for m in msg]
        why = "batch requests are not supported (MCP sends one message per line)"
        return None, [_error(rid, INVALID_REQUEST, why) for rid in ids if rid is not None] or [
            _error(None, INVALID_REQUEST, why)]
    if not isinstance(msg, dict):
        return None, [_error(None, INVALID_REQUEST, "invalid request: not a JSON-RPC message object")]
    rid = _readable_id(msg)
    if "id" in msg and rid is None and msg.get("id") is not None:
        return None, [_error(None, INVALID_REQUEST, "invalid request: 'id' must be a string or an integer")]
    if lone_surrogate_at(msg) is not None:
        msg = _replace_lone_surrogates(msg)
        line = json.dumps(msg, ensure_ascii=False) + "\n"
    try:
        mcp_types.jsonrpc_message_adapter.validate_python(msg, by_name=False)
    except Exception as e:  # noqa: BLE001 - pydantic's ValidationError, or anything the SDK would refuse
        first = str(e).splitlines()
        detail = "; ".join(x.strip() for x in first[1:3]) if len(first) > 1 else first[0] if first else ""
        return None, [_error(rid, INVALID_REQUEST, f"invalid request: not a JSON-RPC 2.0 message ({detail[:200]})")]
    return line, []


class _Lines:
    """stdin, a line at a time, as ``screen`` lets through (see the module's docstring)."""

    def __init__(self, text: io.TextIOWrapper, wire: _Wire, on_eof: Any) -> None:
        self._text = text
        self._wire = wire
        self._on_eof = on_eof

    def readline(self) -> str:
        while True:
            line = self._text.readline(MAX_REQUEST_BYTES + 1)
            if not line:
                self._on_eof()
                return ""
            if len(line) > MAX_REQUEST_BYTES and not line.endswith("\n"):
                rid = id_in_prefix(line[:1 << 16])
                while (rest := self._text.readline(1 << 16)) and not rest.endswith("\n"):
                    pass  # skipped unread: a line this long is refused whole
                self._wire.reply_error(rid, INVALID_REQUEST,
                                       f"request larger than {MAX_REQUEST_BYTES:,} bytes refused (a search query is "
                                       f"at most {MAX_QUERY_CHARS:,} characters)")
                if not rest:
                    self._on_eof()
                    return ""
                continue
            if not line.strip():
                continue
            passed, errors = screen(line)
            for e in errors:
                self._wire.write(json.dumps(e, ensure_ascii=False) + "\n")
            if passed is not None:
                return passed

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = self.readline()
        if not line:
            raise StopIteration
        return line


def _replace_lone_surrogates(v: Any) -> Any:
    if isinstance(v, str):
        return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in v)
    if isinstance(v, dict):
        return {_replace_lone_surrogates(k): _replace_lone_surrogates(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_replace_lone_surrogates(x) for x in v]
    return v


def _exit_after_grace() -> None:
    """The client closed stdin: let a running call finish for a moment, then end the process."""

    def later() -> None:
        time.sleep(EOF_GRACE_S)
        log.warning("the MCP client closed stdin %.0fs ago and a call is still running; exiting", EOF_GRACE_S)
        for h in logging.getLogger().handlers + logging.getLogger("groove").handlers:
            h.flush()
        sys.stderr.flush()
        os._exit(0)

    threading.Thread(target=later, name="groove-eof", daemon=True).start()


def serve_stdio(mcp: MCPServer) -> None:
    """The SDK's stdio transport on ``_Lines`` and ``_Wire``. fd 1 is pointed
    at stderr while serving (as the SDK does), so a stray print from a
    library cannot corrupt the wire."""
    from mcp.server.stdio import stdio_server

    wire_fd = os.dup(1)
    os.dup2(2, 1)
    wire = _Wire(wire_fd)
    eof = threading.Event()

    def on_eof() -> None:
        if not eof.is_set():
            eof.set()
            _exit_after_grace()

    async def run() -> None:
        text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", errors="replace")
        # Each wraps the file-like methods the SDK's transport calls (readline, iteration; write, flush).
        stdin = anyio.wrap_file(cast("IO[str]", _Lines(text, wire, on_eof)))
        async with stdio_server(stdin=stdin, stdout=anyio.wrap_file(cast("IO[str]", wire))) as (read, write):
            low = mcp._lowlevel_server  # what MCPServer.run_stdio_async runs
            await low.run(read, write, low.create_initialization_options())

    try:
        anyio.run(run)
    finally:
        os.dup2(wire_fd, 1)
