"""Running and stopping a vault's daemon: the listening socket, logging,
the run loop (lock, token, warm model, watcher, state file) and stop.

Finding a running daemon and starting one detached is discovery.py.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .. import __version__
from ..errors import GrooveError
from ..paths import check_vault
from ..printable import escape_controls
from ..wire.rpc import PROTOCOL_VERSION
from . import auth
from .discovery import IS_WINDOWS, DaemonFiles, VaultLock, files_for, is_locked, open_log, read_state, running_state

log = logging.getLogger("groove.daemon")

UNIX_PATH_MAX = 104  # macOS sun_path is 104 bytes, Linux 108: use the smaller


class AlreadyRunning(GrooveError):
    """A daemon already serves this vault."""

    code = "already-running"


# ----------------------------------------------------------------------------- listening


def bind_listener(files: DaemonFiles) -> tuple[socket.socket, str, str]:
    """(listening socket, transport, address). The unix socket is created
    0600 (umask) and checked, inside the 0700 runtime dir."""
    if IS_WINDOWS or not hasattr(socket, "AF_UNIX"):  # pragma: no cover - Windows
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        host, port = s.getsockname()[:2]
        return s, "tcp", f"{host}:{port}"
    path = files.socket
    if len(os.fsencode(str(path))) >= UNIX_PATH_MAX:
        raise GrooveError(
            f"socket path too long for a unix socket ({len(str(path))} bytes): {path}; "
            "set GROOVE_HOME or XDG_RUNTIME_DIR to a shorter folder"
        )
    run = path.parent
    st = os.lstat(run)
    if st.st_uid != os.getuid() or not os.path.isdir(run) or os.path.islink(run):
        # e.g. /tmp/runtime-<uid> pre-created by someone else: never put the socket there.
        raise GrooveError(f"runtime dir {run} is not a folder owned by you; remove it or set XDG_RUNTIME_DIR")
    if st.st_mode & 0o077:
        os.chmod(run, 0o700)
    with contextlib.suppress(FileNotFoundError):
        path.unlink()  # stale: we hold the lock, so no live daemon owns it
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        s.bind(str(path))
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    s.listen(64)
    return s, "unix", str(path)


def refuse_folders_in_place(files: DaemonFiles) -> None:
    """A folder where the daemon's socket, lock, state or log file goes (made
    by hand, by a tool, by another program) is a message, before anything
    starts, not an IsADirectoryError later (issue 50 R13)."""
    for what, path in (("socket", files.socket), ("lock file", files.lock), ("state file", files.state),
                       ("log", files.log)):
        if path.is_dir() and not path.is_symlink():
            raise GrooveError(f"a folder is where groove's {what} goes: {path}; remove it (rmdir) if it is "
                              "empty and not yours, then start groove serve again")


# ----------------------------------------------------------------------------- logging


class OneLineFormatter(logging.Formatter):
    """Each record's message on one line, control characters escaped: a
    client's name, a query or a note path cannot forge log lines or send
    terminal escapes to whoever tails the log (issue 15 D14). Tracebacks,
    appended after the message, keep their lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 - logging's name
        record.message = escape_controls(record.message)
        return super().formatMessage(record)


LOCK_PATIENCE = 0.5  # seconds a starting daemon retries the vault lock (clients probe it in passing)


def setup_logging(*, foreground: bool, log_file: Path | None, verbose: bool = False) -> None:
    root = logging.getLogger("groove")
    root.setLevel(logging.DEBUG if verbose else logging.INFO)
    for old in list(root.handlers):
        root.removeHandler(old)
    if foreground or log_file is None:
        h: logging.Handler = logging.StreamHandler(sys.stderr)
    else:
        open_log(log_file).close()  # created 0600: the log names notes and clients
        h = logging.FileHandler(log_file, encoding="utf-8")
    h.setFormatter(OneLineFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(h)
    root.propagate = False


# ----------------------------------------------------------------------------- the daemon


def _write_private_json(path: Path, data: dict) -> None:
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.write(fd, json.dumps(data, indent=2).encode("utf-8"))
    finally:
        os.close(fd)
    os.replace(tmp, path)




def run_daemon(
    vault: Path,
    *,
    index_path: Path | None = None,
    model: str | None = None,
    foreground: bool = True,
    verbose: bool = False,
) -> int:
    """Run the daemon in this process until SIGTERM/SIGINT. Returns an exit code."""
    from ..runtime import open_runtime
    from .index_worker import IndexWorker
    from .server import Daemon
    from .watcher import VaultWatcher

    vault = check_vault(vault)
    files = files_for(vault)
    refuse_folders_in_place(files)
    lock = VaultLock(files.lock)
    if not lock.acquire_within(LOCK_PATIENCE):
        st = read_state(vault) or {}
        raise AlreadyRunning(
            f"groove serve is already running for {vault} (pid {st.get('pid', '?')}, "
            f"{st.get('transport', 'unix')} {st.get('address', files.socket)}); "
            "stop it with `groove serve --stop`"
        )
    lock.write_pid()
    setup_logging(foreground=foreground, log_file=None if foreground else files.log, verbose=verbose)
    stop = threading.Event()

    def on_signal(signum: int, _frame: Any) -> None:
        log.info("signal %d: shutting down", signum)
        stop.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, on_signal)
    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # detached from a terminal that may close

    listener = None
    daemon = None
    watcher = None
    clean = True
    try:
        token, info = auth.get_or_create_token(vault)
        log.info("groove %s serving %s (pid %d); token store: %s %s", __version__, vault, os.getpid(),
                 info.store, info.reason and f"({info.reason})")
        rt = open_runtime(vault, index_path=index_path, model=model)
        rt.index.keep_word_index(rt.config.index.word_index)
        rt.index.keep_vectors(rt.config.index.vector_copy)
        for w in rt.config.warnings:
            log.warning("%s", w)
        t0 = time.perf_counter()
        # Load now: the first search must not pay for it, and a daemon that
        # cannot embed should fail its start (connect-info --start shows why)
        # rather than run broken.
        rt.embedder.embed_query("warm up")
        log.info("model %s loaded in %.2fs", rt.embedder.model_id, time.perf_counter() - t0)
        worker = IndexWorker(rt)
        watcher = VaultWatcher(rt, worker)
        daemon = Daemon(rt, token, worker=worker, watcher=watcher, token_store=info.store)
        worker.start()
        watcher.start()  # edits during the startup pass have events; those before its watch was up: startup_gap
        worker.submit_full()  # catch up with edits made while no daemon ran
        listener, transport, address = bind_listener(files)
        _write_private_json(files.state, {
            "vault": str(vault), "pid": os.getpid(), "transport": transport, "address": address,
            "token_store": info.store, "protocol_version": PROTOCOL_VERSION,
            "server_version": __version__, "started_at": time.time(), "log": str(files.log),
            "index_path": str(rt.index.path),
        })
        log.info("listening on %s %s", transport, address)
        server = threading.Thread(target=daemon.serve_forever, args=(listener,), name="groove-accept", daemon=True)
        server.start()
        while not stop.wait(0.5):
            if not server.is_alive():
                log.error("accept loop ended unexpectedly")
                break
        watcher.stop()
        daemon.stop()
        clean = worker.stop(timeout=5.0)
        if not clean:
            log.warning("an index job is still running; exiting anyway (each note is its own transaction)")
        if not daemon.in_flight.wait_idle(5.0):
            # Python's exit would wait for the pool's threads: a request must not hold the stop.
            log.warning("a request is still running; exiting anyway (requests only read)")
            clean = False
    finally:
        if listener is not None:
            with contextlib.suppress(OSError):
                listener.close()
        last_state = read_state(vault)
        if last_state and last_state.get("pid") == os.getpid():
            with contextlib.suppress(OSError):
                files.state.unlink()
            if st.get("transport") == "unix":
                with contextlib.suppress(OSError):
                    files.socket.unlink()
        log.info("stopped")
        for h in logging.getLogger("groove").handlers:
            h.flush()
        lock.release()
    if not clean:
        os._exit(0)  # the indexer thread holds no partial note: safe to leave it
    return 0


# ----------------------------------------------------------------------------- control


def stop_daemon(vault: Path, *, timeout: float = 20.0) -> int | None:
    """SIGTERM the vault's daemon and wait for it to release its lock.
    Returns its pid, or None if none was running."""
    vault = check_vault(vault)
    files = files_for(vault)
    st = running_state(vault)
    if st is None:
        _cleanup_stale(vault)
        return None
    pid = st.get("pid")
    if not pid:
        with contextlib.suppress(OSError, ValueError):
            pid = int(files.lock.read_text().strip())
    if not pid:
        raise GrooveError(f"a daemon holds {files.lock} but its pid is unknown")
    with contextlib.suppress(ProcessLookupError):
        os.kill(int(pid), signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while is_locked(vault):
        if time.monotonic() > deadline:
            raise GrooveError(f"groove serve (pid {pid}) did not stop within {timeout:.0f}s")
        time.sleep(0.05)
    _cleanup_stale(vault)
    return int(pid)


def _cleanup_stale(vault: Path) -> None:
    """Remove the state and socket files a killed daemon left behind."""
    if is_locked(vault):
        return
    f = files_for(vault)
    for p in (f.state, f.socket):
        with contextlib.suppress(OSError):
            p.unlink()


