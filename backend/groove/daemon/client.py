"""Python client for `groove serve` (docs/protocol.md).

    from groove.daemon.client import find_daemon
    with find_daemon(vault) as c:          # None when no daemon runs
        resp = c.search("sync conflicts", limit=5)

A ``DaemonClient`` is thread-safe: one reader thread matches responses to
calls by id, so several threads (an MCP server's tool calls) can share it.
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from . import discovery
from .admission import PEER_UID_READABLE
from .discovery import ConnectError, open_socket
from .protocol import MAX_REQUEST_BYTES, RpcError

__all__ = ["DaemonClient", "ConnectError", "RpcError", "PendingCall", "find_daemon", "connect", "get_connect_info"]


class _Reply:
    """One answer, set once by the reader thread and waited for by the caller.
    (concurrent.futures.Future would do, but it imports logging: 3.5 ms of a
    cold `groove search`, issue 16.)"""

    __slots__ = ("_event", "_value", "_error")

    def __init__(self) -> None:
        self._event = threading.Event()
        self._value: Any = None
        self._error: BaseException | None = None

    def set_result(self, value: Any) -> None:
        self._value = value
        self._event.set()

    def set_exception(self, error: BaseException) -> None:
        self._error = error
        self._event.set()

    def done(self) -> bool:
        return self._event.is_set()

    def result(self, timeout: float | None = None) -> Any:
        if not self._event.wait(timeout):
            raise TimeoutError
        if self._error is not None:
            raise self._error
        return self._value


class PendingCall:
    """A request in flight: ``result()`` waits, ``cancel()`` asks the daemon
    to drop it (the result then raises RpcError(-32800))."""

    def __init__(self, client: DaemonClient, rid: int, method: str, fut: _Reply) -> None:
        self.client, self.id, self.method, self._fut = client, rid, method, fut

    def result(self, timeout: float | None = None) -> Any:
        try:
            return self._fut.result(timeout)
        except TimeoutError:
            raise TimeoutError(f"{self.method} (id {self.id}) got no answer within {timeout}s") from None

    def done(self) -> bool:
        return self._fut.done()

    def cancel(self) -> bool:
        """True if the daemon still had the request pending."""
        return bool(self.client.call("cancel", {"id": self.id})["cancelled"])


class DaemonClient:
    _ids = itertools.count(1)

    def __init__(self, sock: socket.socket, info: dict[str, Any]) -> None:
        self.sock = sock
        self.info = info
        self.hello: dict[str, Any] = {}
        self._wlock = threading.Lock()
        self._pending: dict[int, _Reply] = {}
        self._plock = threading.Lock()
        self._notes: queue.Queue = queue.Queue()
        self._closed = threading.Event()
        self._close_reason = "connection closed"
        self._reader = threading.Thread(target=self._read_loop, name="groove-client-reader", daemon=True)

    # -- connecting ---------------------------------------------------------------
    @classmethod
    def connect(cls, info: dict[str, Any], *, client: str = "groove-python", timeout: float = 10.0) -> DaemonClient:
        """Connect to ``info`` (the connect-info JSON) and authenticate."""
        sock = open_socket(info, timeout=timeout)
        c = cls(sock, info)
        c._reader.start()
        try:
            c.hello = c.call("hello", {"token": info.get("token", ""), "client": client}, timeout=timeout)
        except (RpcError, ConnectError, TimeoutError) as e:
            c.close()
            raise ConnectError(f"groove daemon refused the connection: {e}") from e
        return c

    def __enter__(self) -> DaemonClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._closed.is_set():
            return
        self._closed.set()
        for how in (socket.SHUT_RDWR,):
            try:
                self.sock.shutdown(how)
            except OSError:
                pass
        try:
            self.sock.close()
        except OSError:
            pass

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # -- calls ----------------------------------------------------------------------
    def send_raw(self, data: bytes) -> None:
        """Write bytes as they are (tests of malformed input)."""
        with self._wlock:
            self.sock.sendall(data)

    def request(self, method: str, params: dict[str, Any] | None = None) -> PendingCall:
        rid = next(self._ids)
        fut = _Reply()
        with self._plock:
            if self._closed.is_set():
                raise ConnectError(self._close_reason)
            self._pending[rid] = fut
        line = json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}},
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
        if len(line) > MAX_REQUEST_BYTES:
            with self._plock:
                self._pending.pop(rid, None)
            raise ValueError(f"request of {len(line)} bytes exceeds the protocol's {MAX_REQUEST_BYTES}")
        try:
            self.send_raw(line)
        except OSError as e:
            with self._plock:
                self._pending.pop(rid, None)
            raise ConnectError(f"groove daemon connection lost: {e}") from e
        return PendingCall(self, rid, method, fut)

    def call(self, method: str, params: dict[str, Any] | None = None, *, timeout: float | None = 120.0) -> Any:
        return self.request(method, params).result(timeout)

    def search(self, query: str, **params: Any) -> dict[str, Any]:
        return self.call("search", {"query": query, **params})

    def get_document(self, path: str, **params: Any) -> dict[str, Any]:
        return self.call("get_document", {"path": path, **params})

    def related_notes(self, path: str, limit: int | None = None) -> dict[str, Any]:
        return self.call("related_notes", {"path": path, **({"limit": limit} if limit else {})})

    def resolve_link(self, link: str, from_path: str | None = None) -> dict[str, Any]:
        return self.call("resolve_link", {"link": link, **({"from_path": from_path} if from_path else {})})

    def index_status(self) -> dict[str, Any]:
        return self.call("index_status", {})

    def reindex(self, force: bool = False, *, timeout: float | None = None) -> dict[str, Any]:
        return self.call("reindex", {"force": force}, timeout=timeout)

    def subscribe(self, *events: str) -> list[str]:
        return self.call("subscribe", {"events": list(events or ("index.progress", "index.changed"))})["subscribed"]

    # -- notifications ---------------------------------------------------------------
    def notifications(self, timeout: float | None = None) -> Iterator[tuple[str, dict[str, Any]]]:
        """(method, params) as they arrive; ends after ``timeout`` seconds of
        silence (None = until the connection closes)."""
        while True:
            try:
                item = self._notes.get(timeout=timeout)
            except queue.Empty:
                return
            if item is None:
                return
            yield item

    def wait_notification(self, method: str, timeout: float, match: Any = None) -> dict[str, Any]:
        """The next ``method`` notification (for which ``match(params)`` holds)."""
        import time

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {method} notification within {timeout}s")
            try:
                item = self._notes.get(timeout=left)
            except queue.Empty:
                continue
            if item is None:
                raise ConnectError(self._close_reason)
            if item[0] == method and (match is None or match(item[1])):
                return item[1]

    # -- reader ---------------------------------------------------------------------
    def _read_loop(self) -> None:
        f = self.sock.makefile("rb")
        try:
            for line in f:
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                if "id" not in msg and "method" in msg:
                    self._notes.put((msg["method"], msg.get("params") or {}))
                    continue
                rid = msg.get("id")
                with self._plock:
                    fut = self._pending.pop(rid, None) if rid is not None else None
                if fut is None:
                    if rid is None and "error" in msg:
                        # An error the daemon could not tie to a request (parse error).
                        self._notes.put(("$error", msg["error"]))
                    continue
                if "error" in msg:
                    e = msg["error"]
                    fut.set_exception(RpcError(int(e.get("code", 0)), str(e.get("message", "")), e.get("data")))
                else:
                    fut.set_result(msg.get("result"))
        except (OSError, ValueError) as e:
            self._close_reason = f"connection closed ({e})"
        finally:
            self._closed.set()
            with self._plock:
                pend, self._pending = list(self._pending.values()), {}
            for fut in pend:
                if not fut.done():
                    fut.set_exception(ConnectError(self._close_reason))
            self._notes.put(None)


def get_connect_info(vault: Path | str, *, start: bool = False, model: str | None = None,
                     index_path: Path | None = None, timeout: float = 120.0,
                     with_token: bool = True) -> dict[str, Any]:
    """The connect-info JSON for ``vault`` (starting a daemon when ``start``)."""
    if start:
        return discovery.start_detached(Path(vault), model=model, index_path=index_path, timeout=timeout)
    return discovery.connect_info(Path(vault), with_token=with_token)


def connect(vault: Path | str, *, start: bool = False, client: str = "groove-python",
            model: str | None = None, timeout: float = 120.0) -> DaemonClient:
    """Connect to the vault's daemon (starting one when ``start``); raises
    ConnectError when none runs."""
    info = get_connect_info(vault, start=start, model=model, timeout=timeout, with_token=False)
    if not info.get("running"):
        raise ConnectError(f"no groove daemon is running for {info['vault']} (start one: groove serve)")
    return _authenticate(info, client=client, timeout=10.0)


def find_daemon(vault: Path | str, *, client: str = "groove-python", must_exist: bool = True) -> DaemonClient | None:
    """An authenticated client for the vault's running daemon, or None (no
    daemon, or it does not answer) — never starts one. ``must_exist=False``
    also finds the daemon of a vault folder that was moved away."""
    try:
        info = discovery.connect_info(Path(vault), with_token=False, must_exist=must_exist)
        if not info.get("running"):
            return None
        return _authenticate(info, client=client, timeout=5.0)
    except (ConnectError, OSError):
        return None
    except Exception:  # noqa: BLE001 - e.g. the vault path vanished: "no daemon"
        return None


def _authenticate(info: dict[str, Any], *, client: str, timeout: float) -> DaemonClient:
    """Connect and say hello. On a unix socket, first without the token: the
    daemon reads this process's uid from the kernel, and reading the token
    from the OS keyring would cost ~100 ms of a ~90 ms CLI search (ADR 0126).
    A daemon that refuses that (one from before, or a platform where the uid
    cannot be read) gets the token on a second connection."""
    if not info.get("token") and info.get("transport") == "unix" and PEER_UID_READABLE:
        try:
            return DaemonClient.connect(info, client=client, timeout=timeout)
        except ConnectError:
            pass
    if not info.get("token"):
        info = dict(info, token=discovery.token_for(Path(info["vault"])) or "")
        if not info["token"]:
            raise ConnectError(f"no token stored for {info['vault']}; restart the daemon (groove serve)")
    return DaemonClient.connect(info, client=client, timeout=timeout)
