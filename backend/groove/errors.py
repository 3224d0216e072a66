"""Exceptions with messages a user can act on. Each surface maps them once,
by type: the CLI to exit codes and usage errors (cli/__init__.py), MCP to
tool errors (mcp/tools.py), the socket to JSON-RPC error codes
(daemon/protocol.py). Anything else is a bug and is reported as internal.
"""

from __future__ import annotations

from typing import Any

MAX_ERROR_CHARS = 500  # what a surface sends back for one error (issue 15 D11)


def clip(text: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``text`` cut in the middle to ``limit`` characters: the start says
    what failed, the end often says why ("... is too long"). Every surface
    clips what it sends, so a caller's 100 KB argument never comes back whole."""
    if len(text) <= limit:
        return text
    tail = limit // 5
    return f"{text[: limit - tail - 1]}…{text[-tail:]}"


def lone_surrogate_at(msg: Any, where: str = "") -> str | None:
    """Where a parsed request holds a lone UTF-16 surrogate (JSON may escape
    one; no file name, note or UTF-8 reply can hold it): "id", a parameter
    name, or None."""
    if isinstance(msg, str):
        try:
            msg.encode("utf-8")
        except UnicodeEncodeError:
            return where or "value"
        return None
    if isinstance(msg, dict):
        for k, v in msg.items():
            at = lone_surrogate_at(k, where or "key") or lone_surrogate_at(v, f"{where}.{k}" if where else str(k))
            if at:
                return at
    elif isinstance(msg, list):
        for i, v in enumerate(msg):
            at = lone_surrogate_at(v, f"{where}.{i}" if where else str(i))
            if at:
                return at
    return None


class GrooveError(Exception):
    """Base class: the message is shown to the user as is. ``code`` is what a
    program tells failures apart by (the CLI's ``--json`` error object, the
    editor plugins): stable, never reworded, unlike the message."""

    code: str = "error"

    def to_json(self) -> dict[str, Any]:
        """The ``--json`` error object: ``{code, message}`` plus what a caller acts on."""
        return {"code": self.code, "message": str(self)}


class InvalidArgument(GrooveError, ValueError):
    """The caller passed a wrong value (a request parameter, a CLI flag);
    ``param`` names it, and the message says what is expected."""

    code = "invalid-argument"

    def __init__(self, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "param": self.param}


class BadQuery(InvalidArgument):
    """The query cannot be run (e.g. exclusions only)."""

    code = "bad-query"

    def __init__(self, message: str) -> None:
        super().__init__(message, param="query")


class ConfigError(GrooveError):
    """groove.toml has a wrong type or value; the message names the key."""

    code = "config"


class VaultError(GrooveError):
    """The vault path does not exist or is not a folder."""

    code = "vault"


class IndexMissing(GrooveError):
    """No index for this vault yet."""

    code = "index-missing"


class EmbedderMismatch(GrooveError):
    """The index was built with another embedding model or dimension."""

    code = "embedder-mismatch"


class PathOutsideVault(GrooveError):
    """A path argument escapes the vault root."""

    code = "path-outside-vault"


class NoteNotFound(GrooveError):
    """A path inside the vault that is not a note a client may read."""

    code = "note-not-found"


class ModelError(GrooveError):
    """A model file is missing, corrupt, or of the wrong kind; the message names the path."""

    code = "model-missing"


class IndexWriteFailed(GrooveError):
    """The index file cannot be written (disk full, I/O error, damaged,
    read-only): the run stops; every note committed so far is kept."""

    code = "index-write-failed"


class ModelFailed(GrooveError):
    """The embedding model fails even on a trivial text: the run stops."""

    code = "model-failed"


class ModelNotDownloaded(ModelError):
    """The default model must be downloaded first and nobody agreed to it here
    (no terminal to ask, no --yes): the message names the pull command."""

    code = "model-download-needed"


class DaemonStartFailed(GrooveError):
    """`groove serve` started in the background did not come up: it exited
    (``daemon-exited``; ``model-missing`` when it could not load its model)
    or did not accept connections in time (``start-timeout``)."""

    def __init__(self, message: str, *, code: str, log: str, log_tail: str = "",
                 exit_status: int | None = None) -> None:
        super().__init__(message)
        self.code = code  # per instance: one class, three outcomes
        self.log, self.log_tail, self.exit_status = log, log_tail, exit_status

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "log": self.log, "log_tail": self.log_tail, "exit_status": self.exit_status}


class IndexUnusable(GrooveError):
    """The index file cannot be used as it is: damaged, written by a newer
    groove, or read-only and too old to read; the message names the file and
    what to do (issue 50 R13, R14)."""

    code = "index-unusable"
