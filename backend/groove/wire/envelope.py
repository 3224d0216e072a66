"""The socket's frame and what a client reads before its first call, as
types: the JSON-RPC envelope and connect-info (what `groove connect-info
--json` prints).

Declared here, as every wire type, for ``protocol.json`` and the plugins'
``protocol.ts`` to be generated from (``generate.py``, ``typescript.py``):
the TypeScript client no longer restates them by hand. TypedDicts: the
daemon builds each of these as the JSON object itself (ADR 0277). Kept apart
from ``rpc.py``'s constants: typing_extensions stays off the CLI's daemon path.
"""

from __future__ import annotations

from typing import Any, Literal

from typing_extensions import NotRequired, TypedDict


class ProtocolVersion(TypedDict):
    major: int
    minor: int


class ConnectInfo(TypedDict):
    """Output of `groove connect-info [--vault PATH] [--start] --json` on success"""

    vault: str
    transport: Literal["unix", "tcp"]
    address: str
    """Socket path (unix) or "127.0.0.1:PORT" (tcp)"""
    token: str
    pid: int | None
    running: bool
    protocol_version: int | str | ProtocolVersion
    """1, "1.2" or {major, minor}: see `parseProtocolVersion`"""
    protocol: NotRequired[ProtocolVersion]


class JsonRpcError(TypedDict):
    code: int
    message: str
    data: NotRequired[Any]


class JsonRpcRequest(TypedDict):
    jsonrpc: Literal["2.0"]
    id: int | str
    method: str
    params: NotRequired[Any]


class JsonRpcResponse(TypedDict):
    jsonrpc: Literal["2.0"]
    id: int | None
    result: NotRequired[Any]
    error: NotRequired[JsonRpcError]


class JsonRpcNotification(TypedDict):
    jsonrpc: Literal["2.0"]
    method: str
    params: NotRequired[Any]


ENVELOPE = (ProtocolVersion, ConnectInfo, JsonRpcError, JsonRpcRequest, JsonRpcResponse, JsonRpcNotification)
for _t in ENVELOPE:
    # A TypedDict class takes no attributes in its type, hence setattr.
    setattr(_t, "__pydantic_config__", {"use_attribute_docstrings": True})  # noqa: B010
