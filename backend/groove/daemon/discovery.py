"""Finding a vault's daemon, and starting one: its files, whether one runs,
the connect-info JSON, the socket address, and a detached start that waits
until the daemon answers an authenticated hello.

The client (client.py), the CLI and the daemon's own lifecycle
(lifecycle.py) import this module; it imports neither of them.

Files in the private runtime dir (0700), per vault key:

* ``<key>.lock``  — held with an exclusive fcntl lock for the daemon's
  lifetime (the kernel drops it when the process dies, even on kill -9), so
  "is a daemon running" never trusts a stale pid.
* ``<key>.sock``  — the unix socket, mode 0600 (Linux/macOS).
* ``<key>.json``  — state: transport, address, pid, token store; 0600.
  On Windows the address is ``127.0.0.1:<random port>``.
* ``<key>.token`` — only with the file token store (see auth.py).

Logs go to ``log_dir()/<key>.log``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..errors import DaemonStartFailed
from ..paths import check_vault, log_dir, runtime_dir, tighten_file, vault_key
from ..wire.rpc import PROTOCOL_VERSION
from . import auth

IS_WINDOWS = sys.platform == "win32"
LOG_ROTATE_BYTES = 5 << 20
MODEL_EXIT_STATUS = 3  # the daemon's exit status when it cannot load its model (`python -m groove.daemon`)


class ConnectError(OSError):
    """No daemon at the address, or it closed the connection (wrong token)."""


@dataclass(frozen=True)
class DaemonFiles:
    key: str
    lock: Path
    socket: Path
    state: Path
    log: Path


def files_for(vault: Path) -> DaemonFiles:
    key = vault_key(vault)
    run = runtime_dir()
    return DaemonFiles(key, run / f"{key}.lock", run / f"{key}.sock", run / f"{key}.json", log_dir() / f"{key}.log")


class VaultLock:
    """An exclusive, non-blocking lock on the vault's lock file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: IO[str] | None = None

    def try_acquire(self) -> bool:
        fh = open(self.path, "a+", encoding="utf-8")
        try:
            if sys.platform == "win32":  # pragma: no cover - exercised only on Windows
                import msvcrt

                fh.seek(0)
                msvcrt.locking(fh.fileno(), msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.close()
            return False
        self._fh = fh
        with contextlib.suppress(OSError):
            os.chmod(self.path, 0o600)
        return True

    def acquire_within(self, seconds: float) -> bool:
        """``try_acquire``, retried for a moment: ``is_locked`` probes the lock
        by taking it for a few microseconds, so a daemon starting while a
        client polls (``wait_ready``) could find it taken and exit as if
        another daemon ran (seen in a test run under load). A daemon that
        really holds it holds it throughout."""
        deadline = time.monotonic() + seconds
        while not self.try_acquire():
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)
        return True

    def write_pid(self) -> None:
        assert self._fh is not None
        self._fh.seek(0)
        self._fh.truncate()
        self._fh.write(f"{os.getpid()}\n")
        self._fh.flush()

    def release(self) -> None:
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None


def is_locked(vault: Path) -> bool:
    """True while some process (a daemon) holds the vault's lock."""
    lk = VaultLock(files_for(vault).lock)
    if lk.try_acquire():
        lk.release()
        return False
    return True


# ----------------------------------------------------------------------------- state


def read_state(vault: Path) -> dict[str, Any] | None:
    try:
        return json.loads(files_for(vault).state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def running_state(vault: Path) -> dict[str, Any] | None:
    """The state of the daemon that holds the lock now, or None."""
    if not is_locked(vault):
        return None
    st = read_state(vault)
    if st is None:
        return {"pid": None, "starting": True}
    return st


def connect_info(vault: Path, *, with_token: bool = True, must_exist: bool = True) -> dict[str, Any]:
    """What `groove connect-info` prints (protocol.md, "Finding the daemon").
    ``with_token=False`` leaves the token empty and unread: reading it from
    the OS keyring costs ~100 ms, and on a unix socket the daemon knows its
    own user without it (``token_for``, ADR 0126). ``must_exist=False``: a
    vault folder that is gone still names its daemon (keyed by the path)."""
    vault = check_vault(vault) if must_exist else Path(vault).expanduser().resolve()
    st = running_state(vault)
    running = bool(st and st.get("address"))
    token = token_for(vault, st) if with_token else None
    f = files_for(vault)
    return {
        "vault": str(vault),
        "transport": (st or {}).get("transport") or ("tcp" if IS_WINDOWS else "unix"),
        "address": (st or {}).get("address") or ("" if IS_WINDOWS else str(f.socket)),
        "token": token or "",
        "pid": (st or {}).get("pid"),
        "running": running,
        "protocol_version": PROTOCOL_VERSION,
    }


def token_for(vault: Path, state: dict[str, Any] | None = None) -> str | None:
    """The vault's token, from the store the running daemon reported in its
    state file (``state``, read here when not given)."""
    st = read_state(vault) if state is None else state
    token, _ = auth.load_token(vault, st.get("token_store") if st else None)
    return token


def open_socket(info: dict[str, Any], *, timeout: float = 10.0) -> socket.socket:
    """A connected (unauthenticated) socket to the connect-info address."""
    addr = info.get("address") or ""
    try:
        if info.get("transport") == "tcp":
            host, _, port = addr.rpartition(":")
            sock = socket.create_connection((host or "127.0.0.1", int(port)), timeout=timeout)
        else:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.settimeout(timeout)
            sock.connect(addr)
    except (OSError, ValueError) as e:
        raise ConnectError(f"cannot connect to groove daemon at {addr!r}: {e}") from e
    sock.settimeout(None)  # the reader blocks; call timeouts are per request
    return sock


def answers_hello(info: dict[str, Any], *, timeout: float) -> None:
    """Raise ConnectError unless the daemon at ``info`` accepts its token."""
    sock = open_socket(info, timeout=timeout)
    try:
        sock.settimeout(timeout)
        hello = {"jsonrpc": "2.0", "id": 1, "method": "hello",
                 "params": {"token": info.get("token", ""), "client": "groove-discovery"}}
        sock.sendall(json.dumps(hello).encode("utf-8") + b"\n")
        buf = b""
        while b"\n" not in buf:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectError("groove daemon closed the connection (wrong token?)")
            buf += chunk
        reply = json.loads(buf.split(b"\n", 1)[0])
        if "result" not in reply:
            raise ConnectError(f"groove daemon refused the connection: {reply.get('error')}")
    except (OSError, ValueError) as e:
        if isinstance(e, ConnectError):
            raise
        raise ConnectError(f"groove daemon did not answer hello: {e}") from e
    finally:
        with contextlib.suppress(OSError):
            sock.close()


# ----------------------------------------------------------------------------- starting


def _rotate(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))


def open_log(path: Path) -> IO[bytes]:
    """The daemon's log, created 0600: it names notes and clients."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    tighten_file(path)
    return os.fdopen(fd, "ab")


def _child_cmd(vault: Path, index_path: Path | None, model: str | None, verbose: bool = False) -> list[str]:
    cmd = [sys.executable, "-m", "groove.daemon", "--vault", str(vault)]
    if index_path:
        cmd += ["--index", str(index_path)]
    if model:
        cmd += ["--model", str(model)]
    if verbose:
        cmd.append("--verbose")
    return cmd


def start_detached(
    vault: Path,
    *,
    index_path: Path | None = None,
    model: str | None = None,
    timeout: float = 120.0,
    verbose: bool = False,
) -> dict[str, Any]:
    """Start a daemon in the background (if none runs) and wait until it
    answers an authenticated hello; ``verbose``: it logs every request.
    Returns connect_info()."""
    vault = check_vault(vault)
    files = files_for(vault)
    if is_locked(vault):
        return wait_ready(vault, timeout=timeout)
    _rotate(files.log)
    logf = open_log(files.log)
    kwargs: dict[str, Any] = {"stdin": subprocess.DEVNULL, "stdout": logf, "stderr": logf, "close_fds": True}
    if sys.platform == "win32":  # pragma: no cover
        kwargs["creationflags"] = subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP
    else:
        kwargs["start_new_session"] = True  # survives the terminal / the editor that started it
    proc = subprocess.Popen(_child_cmd(vault, index_path, model, verbose), **kwargs)
    logf.close()
    return wait_ready(vault, timeout=timeout, proc=proc)


def wait_ready(vault: Path, *, timeout: float, proc: subprocess.Popen | None = None) -> dict[str, Any]:
    files = files_for(vault)
    deadline = time.monotonic() + timeout
    last_err = "not started"
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            if is_locked(vault):
                proc = None  # lost a start race: another daemon serves the vault; use it
            else:
                tail = _tail(files.log)
                raise DaemonStartFailed(
                    f"groove serve exited with code {proc.returncode} before accepting connections; "
                    f"see {files.log}:\n{tail}",
                    code="model-missing" if proc.returncode == MODEL_EXIT_STATUS else "daemon-exited",
                    log=str(files.log), log_tail=tail, exit_status=proc.returncode,
                )
        info = connect_info(vault)
        if info["running"] and info["token"]:
            try:
                answers_hello(info, timeout=5.0)
                return info
            except (ConnectError, OSError) as e:
                last_err = str(e)
        time.sleep(0.05)
    raise DaemonStartFailed(f"groove serve did not accept connections within {timeout:.0f}s ({last_err}); "
                            f"see {files.log}", code="start-timeout", log=str(files.log), log_tail=_tail(files.log))


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return ""
