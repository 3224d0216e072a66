"""The socket protocol's constants and checks: version, framing limit,
notification names, how groove's errors map onto the error codes
(``wire/rpc.py`` declares the codes), and
validation against ``wire/protocol.json`` (generated from
``wire/models.py``: params on the server, results in the tests).
docs/protocol.md is the narrative of the same contract; the methods are
``operations.OPERATIONS`` plus the connection's own hello, cancel and subscribe.
"""

from __future__ import annotations

import json
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import (
    BadQuery,
    EmbedderMismatch,
    GrooveError,
    IndexMissing,
    InvalidArgument,
    NoteNotFound,
    PathOutsideVault,
    clip,
    lone_surrogate_at,
)
from ..wire.bounds import MAX_REQUEST_BYTES as MAX_REQUEST_BYTES  # one request line, newline excluded
from ..wire.rpc import (  # the codes are the wire's
    BAD_QUERY,
    INDEX_MISSING,
    INTERNAL,
    INVALID_PARAMS,
    INVALID_REQUEST,
    PATH_NOT_FOUND,
)

if TYPE_CHECKING:
    from ..wire.envelope import JsonRpcError

EVENTS: tuple[str, ...] = ("index.progress", "index.changed")


MAX_QUOTED_CHARS = 200  # an error quotes at most this much of a caller's value


class RpcError(Exception):
    """A JSON-RPC error object as an exception (server side: raised by
    handlers; client side: raised by calls that got an error). The message
    is clipped: a caller's 100 KB argument never comes back whole."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        message = clip(message)
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> JsonRpcError:
        err: JsonRpcError = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err

    def __repr__(self) -> str:
        return f"RpcError({self.code}, {self.message!r})"


def error_for(exc: BaseException) -> RpcError:
    """Map an exception from the core to the protocol's error object, by type."""
    if isinstance(exc, RpcError):
        return exc
    msg = str(exc) or type(exc).__name__
    if isinstance(exc, BadQuery):
        return RpcError(BAD_QUERY, msg)
    if isinstance(exc, InvalidArgument):
        return RpcError(INVALID_PARAMS, msg, {"parameter": exc.param} if exc.param else None)
    if isinstance(exc, (PathOutsideVault, NoteNotFound)):
        return RpcError(PATH_NOT_FOUND, msg)
    if isinstance(exc, (IndexMissing, EmbedderMismatch)):
        return RpcError(INDEX_MISSING, msg)
    if isinstance(exc, GrooveError):
        return RpcError(INTERNAL, msg)
    return RpcError(INTERNAL, f"internal error: {type(exc).__name__}: {msg}")


def exception_from(err: RpcError) -> GrooveError:
    """A client's view of an error object: the groove error it stands for
    (the inverse of ``error_for``), so a surface that called the daemon maps
    it exactly as it maps its own."""
    param = err.data.get("parameter") if isinstance(err.data, dict) else None
    if err.code == BAD_QUERY:
        return BadQuery(err.message)
    if err.code == INVALID_PARAMS:
        return InvalidArgument(err.message, param=param)
    if err.code == PATH_NOT_FOUND:
        return NoteNotFound(err.message)
    if err.code == INDEX_MISSING:
        return IndexMissing(err.message)
    return GrooveError(err.message)


def is_bug(exc: BaseException) -> bool:
    """True for a failure no message was written for: worth a traceback in
    the log. A caller's mistake or a reported condition is not."""
    return not isinstance(exc, (GrooveError, RpcError))


# ----------------------------------------------------------------------------- schemas

SCHEMA_PATH = Path(__file__).parents[1] / "wire" / "protocol.json"


@lru_cache(maxsize=1)
def schemas() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))


@cache
def validator(kind: str, name: str) -> Any:
    """A compiled jsonschema validator for ``kind`` in {"params", "result",
    "notification"} of method/notification ``name``."""
    import jsonschema

    doc = schemas()
    if kind == "notification":
        sub = doc["notifications"][name]
    else:
        sub = doc["methods"][name][kind]
    # Resolve "#/$defs/..." against the whole document.
    schema = {"$schema": doc["$schema"], "$defs": doc["$defs"], **sub}
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def check_params(method: str, params: Any) -> None:
    """Raise RpcError(-32602) naming the offending parameter."""
    v = validator("params", method)
    errors = sorted(v.iter_errors(params), key=lambda e: (len(e.absolute_path), e.message))
    if not errors:
        return
    e = errors[0]
    where = clip(_parameter_of(e), MAX_QUOTED_CHARS)
    label = f"'{where}'" if where else "params"
    message = e.message  # jsonschema quotes the whole value: quote a piece of it
    quoted = repr(e.instance)
    if len(quoted) > MAX_QUOTED_CHARS and quoted in message:
        message = message.replace(quoted, clip(quoted, MAX_QUOTED_CHARS))
    raise RpcError(INVALID_PARAMS, f"invalid {label}: {message}", {"parameter": where or None})



def _parameter_of(e: Any) -> str:
    """The parameter a jsonschema error is about, from the error's own fields."""
    if e.absolute_path:
        return ".".join(str(p) for p in e.absolute_path)
    if isinstance(e.instance, dict):
        if e.validator == "required":
            return next((str(r) for r in e.validator_value if r not in e.instance), "")
        if e.validator == "additionalProperties":
            known = e.schema.get("properties", {})
            return next((str(k) for k in e.instance if k not in known), "")
    return ""


def surrogate_reply(msg: Any) -> tuple[Any, RpcError | None] | None:
    """None when the request holds no lone surrogate; else (id, error) to
    answer it with — id None when the id itself cannot be echoed, error None
    for a notification (nothing is answered)."""
    bad = lone_surrogate_at(msg)
    if bad is None:
        return None
    rid = msg.get("id") if isinstance(msg, dict) else None
    if (bad.startswith("key") or not isinstance(rid, (int, str)) or isinstance(rid, bool)
            or lone_surrogate_at(rid) is not None):
        return None, RpcError(INVALID_REQUEST, f"the request's {bad} holds a lone UTF-16 surrogate (not text)")
    if "id" not in msg:
        return None, None
    param = bad.removeprefix("params.")
    return rid, RpcError(INVALID_PARAMS,
                         f"invalid '{param}': holds a lone UTF-16 surrogate, which no note name or text can contain",
                         {"parameter": param.split(".")[0]})
