"""One line of a connection read as a JSON-RPC request, before any method
runs: parse it, read its envelope, check the call. Pure functions of the
line (no socket, no daemon), so each step is tested on its own; the
server's ``Connection`` answers, authenticates and schedules."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..wire import rpc
from . import protocol
from .protocol import RpcError


@dataclass(frozen=True)
class Refused:
    """A line answered before it is read as a request: with ``error`` to the
    id ``rid`` (None when it cannot be echoed), or not at all (``error``
    None: a notification). Before hello, the connection just closes."""

    rid: Any
    error: RpcError | None


@dataclass(frozen=True)
class Request:
    """A parsed message and what its envelope says."""

    msg: Any
    rid: Any  # the "id" member, whatever its type (None when absent)
    method: Any

    @classmethod
    def of(cls, msg: Any) -> Request:
        if not isinstance(msg, dict):
            return cls(msg, None, None)
        return cls(msg, msg.get("id"), msg.get("method"))

    @property
    def valid(self) -> bool:
        """A JSON-RPC 2.0 request: a method name and an id that is absent,
        null, a number or a string."""
        rid = self.rid
        return (isinstance(self.msg, dict) and self.msg.get("jsonrpc") == "2.0" and isinstance(self.method, str)
                and (rid is None or (isinstance(rid, (int, str)) and not isinstance(rid, bool))))

    @property
    def is_call(self) -> bool:
        """A call expects an answer; a notification (no id, or id null) does not."""
        return isinstance(self.msg, dict) and "id" in self.msg and self.rid is not None

    @property
    def params(self) -> Any:
        """The params as sent; absent or null is an empty object."""
        params = self.msg.get("params", {}) if isinstance(self.msg, dict) else {}
        return {} if params is None else params


def parse_line(line: bytes) -> Request | Refused:
    """JSON, and no lone surrogate anywhere (a reply holding one could not
    be written as UTF-8)."""
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as e:  # ValueError: bad JSON or UTF-8, an int past 4,300 digits
        return Refused(None, RpcError(rpc.PARSE_ERROR, f"parse error: {e}"))
    bad = protocol.surrogate_reply(msg)
    if bad is not None:
        return Refused(*bad)
    return Request.of(msg)


def envelope_error(req: Request) -> tuple[Any, RpcError]:
    """The (id, error) answering a message that is not a valid request."""
    why = "batch requests are not supported" if isinstance(req.msg, list) else "not a JSON-RPC 2.0 request"
    return (req.rid if isinstance(req.rid, (int, str)) else None), RpcError(rpc.INVALID_REQUEST, why)


def check_call(req: Request, methods: frozenset[str]) -> None:
    """Raise RpcError unless a valid request names a known method with
    by-name params that match its schema."""
    if req.method not in methods:
        raise RpcError(rpc.METHOD_NOT_FOUND, f"unknown method {req.method!r}", {"methods": sorted(methods)})
    if not isinstance(req.params, dict):
        raise RpcError(rpc.INVALID_PARAMS, "params must be an object (by-name parameters)")
    protocol.check_params(req.method, req.params)
