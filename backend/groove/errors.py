"""Exceptions with messages a user can act on. Surfaces map them to exit codes
(CLI), tool errors (MCP) and JSON-RPC error codes (socket)."""


class GrooveError(Exception):
    """Base class: the message is shown to the user as is."""


class BadQuery(GrooveError, ValueError):
    """The query cannot be run (e.g. exclusions only)."""


class ConfigError(GrooveError):
    """groove.toml has a wrong type or value; the message names the key."""


class VaultError(GrooveError):
    """The vault path does not exist or is not a folder."""


class IndexMissing(GrooveError):
    """No index for this vault yet."""


class EmbedderMismatch(GrooveError):
    """The index was built with another embedding model or dimension."""


class PathOutsideVault(GrooveError):
    """A path argument escapes the vault root."""


class NoteNotFound(GrooveError):
    """A path inside the vault that is not an indexed note."""


class InvalidArgument(GrooveError, ValueError):
    """A tool/method argument has a wrong type or value; the message names it."""


class IndexWriteFailed(GrooveError):
    """The index file cannot be written (disk full, I/O error, damaged,
    read-only): the run stops; every note committed so far is kept."""


class ModelFailed(GrooveError):
    """The embedding model fails even on a trivial text: the run stops."""
