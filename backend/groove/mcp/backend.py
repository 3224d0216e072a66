"""Where the MCP tools' calls go: ``Backend.call(method, params)`` runs the
operation from the table in this process (``operations.call`` on a Runtime),
or sends it to the vault's running daemon (ADR 0053), which serves the same
table. A daemon that goes away mid-session is replaced by a Runtime here,
and the call is made again."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__, operations
from ..daemon import protocol
from ..daemon.client import ConnectError, DaemonClient, RpcError, find_daemon
from ..errors import VaultError
from ..runtime import Runtime, open_runtime

log = logging.getLogger("groove.mcp")

Progress = Callable[[dict], None]
CALL_TIMEOUT_S = 120.0


@dataclass
class ServerOptions:
    vault: Path
    index_path: Path | None = None
    model: str | None = None
    attach: bool = True  # route through a running `groove serve` for this vault
    warm: bool = True  # load the model at startup, in the background


class Backend:
    def __init__(self, opts: ServerOptions) -> None:
        self.opts = opts
        self._lock = threading.Lock()
        self.rt: Runtime | None = None
        self.conn: DaemonClient | None = None

    def open(self) -> None:
        """Attach to the vault's daemon, else open a Runtime. A vault folder
        that is missing raises ``VaultError`` here, on every call until it
        exists: the server still answers, each tool with that error (ADR 0253)."""
        with self._lock:
            if self.rt is not None or self.conn is not None:
                return
            missing = vault_problem(self.opts.vault)
            if missing:
                raise VaultError(missing)
            if self.opts.attach:
                self.conn = find_daemon(self.opts.vault, client=f"groove-mcp/{__version__}")
            if self.conn is None:
                self.rt = self._runtime()

    def _runtime(self) -> Runtime:
        rt = open_runtime(self.opts.vault, index_path=self.opts.index_path, model=self.opts.model)
        rt.index.keep_word_index(rt.config.index.word_index)  # a session lives long: ADR 0132
        rt.index.keep_vectors(rt.config.index.vector_copy)
        return rt

    @property
    def mode(self) -> str:
        return "daemon" if self.conn is not None else "standalone"

    def call(self, method: str, params: dict[str, Any], *, progress: Progress | None = None) -> Any:
        """Operation ``method`` with the protocol's params; groove's errors
        raise as themselves whichever side ran it."""
        self.open()
        conn, rt = self.conn, self.rt
        if conn is None:
            assert rt is not None
            return operations.call(rt, method, params, **({"progress": progress} if progress else {}))
        try:
            return _remote(conn, method, {k: v for k, v in params.items() if v is not None}, progress)
        except ConnectError as e:
            log.warning("groove daemon connection lost (%s); continuing standalone", e)
            with self._lock:
                if self.conn is conn:
                    conn.close()
                    self.conn, self.rt = None, self._runtime()
            return self.call(method, params, progress=progress)

    def status_extras(self) -> dict[str, Any]:
        """What index_status adds about this process."""
        if self.conn is not None:
            return {"daemon_pid": self.conn.hello.get("pid")}
        return {"model_loaded": self.rt is not None and self.rt._embedder is not None}

    def warm(self) -> None:
        """Load the embedder now, so the first search does not pay for it
        (a daemon keeps its own model warm)."""
        self.open()
        if self.rt is not None:
            self.rt.embedder  # noqa: B018

    def close(self) -> None:
        with self._lock:
            if self.conn is not None:
                self.conn.close()
            if self.rt is not None:
                self.rt.close()
            self.conn = self.rt = None


def vault_problem(vault: Path) -> str | None:
    """What is wrong with the served vault folder, said for an MCP client's
    user (who fixes it in the client's configuration), or None."""
    path = Path(vault).expanduser()
    if path.is_dir():
        return None
    what = "is not a folder" if path.exists() else "does not exist"
    return (f"the vault folder {path} {what}: this MCP server was started with --vault {path}. Fix that path in "
            "the MCP client's configuration (or create or mount the folder); every tool answers with this error "
            "until it exists")


def _remote(conn: DaemonClient, method: str, params: dict[str, Any], progress: Progress | None) -> Any:
    try:
        if method != "reindex":
            return conn.call(method, params, timeout=CALL_TIMEOUT_S)
        # A reindex takes as long as it takes; its progress arrives as notifications.
        if progress is not None:
            conn.call("subscribe", {"events": ["index.progress"]}, timeout=CALL_TIMEOUT_S)
        pending = conn.request("reindex", params)
        while not pending.done():
            for name, ev in conn.notifications(timeout=0.2):
                if name == "index.progress" and progress is not None:
                    progress(ev)
                if pending.done():
                    break
        return pending.result(0)
    except RpcError as e:
        raise protocol.exception_from(e) from e
