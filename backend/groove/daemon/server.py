"""The socket JSON-RPC server (docs/protocol.md).

Threading model (ADR 0041): one reader thread and one writer thread per
connection, a shared pool for the requests themselves, and the single
IndexWorker thread for every index write. Searches run on pool threads with
their own SQLite connections (WAL readers), so they keep answering from the
last committed state while a batch is indexed. Nothing but a connection's
own writer thread waits on its socket (outbox.py), so a slow client never
blocks the indexer's notifications or another client.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from .. import __version__, operations
from ..errors import clip
from ..runtime import Runtime
from ..wire import rpc
from ..wire.status_types import IndexStatus
from . import admission, protocol, requests
from .admission import MAX_CONNECTIONS
from .index_worker import IndexWorker
from .outbox import Outbox
from .protocol import RpcError

log = logging.getLogger("groove.daemon.server")

HELLO_TIMEOUT_S = 10.0  # an unauthenticated connection gets this long to say hello
POOL_WORKERS = 16
MAX_RUNNING_PER_CONNECTION = 4  # one client's pipeline leaves the rest of the pool to the others


@dataclass
class _Pending:
    method: str
    cancelled: bool = False
    started: bool = False


class Connection:
    def __init__(self, daemon: Daemon, sock: socket.socket, peer: str) -> None:
        self.daemon = daemon
        self.sock = sock
        self.peer = peer
        self.peer_is_owner = admission.peer_is_owner(sock)
        self.authenticated = False
        self.client_name = ""
        self.subscriptions: frozenset[str] = frozenset()
        self.pending: dict[Any, _Pending] = {}
        self._lock = threading.Lock()
        self.out = Outbox(sock, peer, self._shutdown)
        self._running = 0  # its requests on the pool
        self._waiting: deque[tuple[Any, str, dict, _Pending]] = deque()  # and those waiting for a turn there
        self._eof = False
        self._buf = bytearray()  # bytes read but not yet handled
        self.last_active = time.monotonic()  # the last bytes read; the idlest goes first when full
        self._writer = threading.Thread(target=self.out.run, name=f"groove-w-{peer}", daemon=True)

    # -- writing -----------------------------------------------------------------
    # Replies and notifications alike go out through the outbox, which never
    # makes the caller wait on the socket (outbox.py): a client that stops
    # reading holds only its own connection.
    def send(self, obj: dict) -> None:
        self.out.put((json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8"))

    def reply(self, rid: Any, result: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def reply_error(self, rid: Any, err: RpcError) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": err.to_json()})

    def notify(self, method: str, params: dict) -> None:
        if method in self.subscriptions:
            self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def close_silently(self) -> None:
        """Drop the connection without a byte (failed authentication)."""
        self._shutdown()

    def close_when_drained(self) -> None:
        self.out.close_when_drained()

    def _shutdown(self) -> None:
        self.out.abort()  # the writer thread ends (no-op if it already has)
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
        self.daemon._forget(self)

    # -- reading -----------------------------------------------------------------
    def run(self) -> None:
        try:
            self._run()
        finally:
            # This reader thread ends with its connection: close the SQLite
            # connection it opened, or a long-running daemon leaks one per
            # editor reconnect.
            self.daemon.rt.index.release_thread()

    def _run(self) -> None:
        self._writer.start()
        buf = self._buf
        discarding = False  # inside an over-long line: drop bytes up to its newline
        self.sock.settimeout(HELLO_TIMEOUT_S)
        hello_deadline = time.monotonic() + HELLO_TIMEOUT_S  # total, not per recv (no slowloris)
        try:
            while True:
                if self.authenticated:
                    self.out.wait_for_client()  # its replies unread: its next requests wait
                try:
                    chunk = self.sock.recv(65536)
                except TimeoutError:
                    chunk = None
                if not self.authenticated and (chunk is None or time.monotonic() > hello_deadline):
                    log.info("%s: no hello within %.0fs; closed", self.peer, HELLO_TIMEOUT_S)
                    return self.close_silently()
                if chunk is None:
                    continue
                if not chunk:
                    break
                self.last_active = time.monotonic()
                buf += chunk
                while True:
                    nl = buf.find(b"\n")
                    if nl < 0:
                        if len(buf) > protocol.MAX_REQUEST_BYTES and not discarding:
                            if not self.authenticated:
                                return self.close_silently()
                            discarding = True
                            self.reply_error(None, RpcError(
                                rpc.INVALID_REQUEST,
                                f"request larger than {protocol.MAX_REQUEST_BYTES} bytes refused"))
                        if discarding:
                            buf.clear()
                        break
                    line = bytes(buf[:nl])
                    del buf[: nl + 1]
                    if discarding:
                        discarding = False
                        continue
                    if len(line) > protocol.MAX_REQUEST_BYTES:
                        if not self.authenticated:
                            return self.close_silently()
                        self.reply_error(None, RpcError(
                            rpc.INVALID_REQUEST,
                            f"request larger than {protocol.MAX_REQUEST_BYTES} bytes refused"))
                        continue
                    if line.strip() and not self._safe_handle(line):
                        return self.close_silently()
        except OSError:
            return self._shutdown()
        # EOF: the client may have half-closed and still wait for answers.
        with self._lock:
            self._eof = True
            idle = not self.pending
        if idle or not self.authenticated:
            self.close_when_drained()

    def _safe_handle(self, line: bytes) -> bool:
        try:
            return self._handle_line(line)
        except Exception as e:  # noqa: BLE001 - one bad line must not kill the connection
            if not self.authenticated:
                return False
            if protocol.is_bug(e):
                log.exception("%s: failed to handle a line", self.peer)
            self.reply_error(None, protocol.error_for(e))
            return True

    def _handle_line(self, line: bytes) -> bool:
        """False = close the connection without a word (pre-auth failures)."""
        req = requests.parse_line(line)
        if not self.authenticated:
            return self._hello(req)
        if isinstance(req, requests.Refused):
            if req.error is not None:
                self.reply_error(req.rid, req.error)
            return True
        if not req.valid:
            self.reply_error(*requests.envelope_error(req))
            return True
        try:
            requests.check_call(req, self.daemon.methods)
            inline = self.daemon.inline_handlers.get(req.method)
            if inline is not None:
                result = inline(self, req.params)
                if req.is_call:
                    self.reply(req.rid, result)
                return True
        except RpcError as e:
            if req.is_call:
                self.reply_error(req.rid, e)
            return True
        self._schedule(req)
        return True

    def _hello(self, req: requests.Request | requests.Refused) -> bool:
        """The first line must be a hello call with the token (or from the
        socket's owner); anything else closes the connection unanswered."""
        if isinstance(req, requests.Refused):
            return False
        if not req.valid or req.method != "hello" or "id" not in req.msg:
            log.info("%s: first message was not hello; closed", self.peer)
            return False
        params = req.msg.get("params")
        how = admission.hello_accepted(params, self.daemon.token, peer_is_owner=self.peer_is_owner)
        if how is None:
            log.warning("%s: wrong token; closed", self.peer)
            return False
        self.authenticated = True
        self.sock.settimeout(None)
        self.client_name = clip(str(params.get("client", "")), 200)
        log.info("%s: authenticated (%s, by %s)", self.peer, self.client_name or "unnamed client", how)
        self.reply(req.rid, self.daemon.hello_result())
        return True

    def _schedule(self, req: requests.Request) -> None:
        """Run a checked request here or on the pool; a call whose id is
        already pending is refused."""
        rid, method, is_call = req.rid, req.method, req.is_call
        self.daemon.worker.touch()  # idle work (ADR 0281) waits while editors ask
        with self._lock:
            if is_call and rid in self.pending:
                dup = True
            else:
                dup = False
                state = _Pending(method)
                if is_call:
                    self.pending[rid] = state
            # A lone search runs right here in the reader: one thread hop less
            # on the hot path. Anything else, or a search arriving while others
            # are pending, goes to the pool (concurrency, and cancel of queued
            # ones, where it matters).
            inline_ok = (method == "search" and len(self.pending) == (1 if is_call else 0)
                         and not self._inbuf_has_line())
        if dup:
            self.reply_error(rid, RpcError(rpc.INVALID_REQUEST, f"id {rid!r} is already pending"))
        elif inline_ok:
            self._execute(rid if is_call else None, method, req.params, state)
        else:
            self._submit((rid if is_call else None, method, req.params, state))

    def _submit(self, job: tuple[Any, str, dict, _Pending]) -> None:
        """To the pool, at most MAX_RUNNING_PER_CONNECTION at a time: the rest
        of a long pipeline waits here, in order, not in the pool's queue ahead
        of other clients' requests."""
        with self._lock:
            if self._running >= MAX_RUNNING_PER_CONNECTION:
                self._waiting.append(job)
                return
            self._running += 1
        try:
            self.daemon.pool.submit(self._run_job, job)
        except RuntimeError:  # the daemon is stopping: the pool takes nothing more
            pass

    def _run_job(self, job: tuple[Any, str, dict, _Pending]) -> None:
        try:
            self._execute(*job)
        finally:
            with self._lock:
                nxt = self._waiting.popleft() if self._waiting else None
                if nxt is None:
                    self._running -= 1
            if nxt is not None:
                try:
                    self.daemon.pool.submit(self._run_job, nxt)
                except RuntimeError:
                    pass

    def _inbuf_has_line(self) -> bool:
        return b"\n" in self._buf

    def _execute(self, rid: Any, method: str, params: dict, state: _Pending) -> None:
        t0 = time.perf_counter()
        result: Any = None
        err: RpcError | None = None
        if state.cancelled:
            err = RpcError(rpc.CANCELLED, "cancelled")
        else:
            state.started = True
            self.daemon.in_flight.add(+1)
            try:
                result = self.daemon.handlers[method](params)
            except Exception as e:  # noqa: BLE001 - every failure becomes an error object
                err = protocol.error_for(e)
                if protocol.is_bug(e):
                    log.exception("%s: %s failed", self.peer, method)
                else:
                    log.info("%s: %s: %s", self.peer, method, err.message)
            finally:
                self.daemon.in_flight.add(-1)
        if state.cancelled:
            err, result = RpcError(rpc.CANCELLED, "cancelled"), None
        with self._lock:
            if rid is not None:
                self.pending.pop(rid, None)
            done = self._eof and not self.pending
        if rid is not None:
            if err is not None:
                self.reply_error(rid, err)
            else:
                self.reply(rid, result)
        log.debug("%s (%s): %s %s in %.1f ms", self.peer, self.client_name or "unnamed client", method,
                  "ok" if err is None else f"error {err.code}", (time.perf_counter() - t0) * 1000)  # no params
        if done:
            self.close_when_drained()

    def cancel(self, target: Any) -> bool:
        with self._lock:
            st = self.pending.get(target)
            op = operations.OPERATIONS.get(st.method) if st is not None else None
            if st is None or st.cancelled or op is None or not op.cancellable:
                return False
            st.cancelled = True
            return True


class Daemon:
    """Everything a connection needs: the runtime, the token, the handlers."""

    def __init__(self, rt: Runtime, token: str, *, worker: IndexWorker | None = None,
                 watcher: Any = None, token_store: str = "file") -> None:
        self.rt = rt
        self.token = token
        self.token_store = token_store
        self.pool = ThreadPoolExecutor(max_workers=POOL_WORKERS, thread_name_prefix="groove-req")
        self.worker = worker or IndexWorker(rt)
        self.worker.on_progress = lambda ev: self.broadcast("index.progress", ev)
        self.worker.on_changed = lambda ev: self.broadcast("index.changed", ev)
        self.watcher = watcher
        self._conns: set[Connection] = set()
        self._conns_lock = threading.Lock()
        self.in_flight = admission.InFlight()  # requests being handled: the stop waits for them
        self._stopping = threading.Event()
        # The operation table, as is, but for what goes through the index worker.
        self.handlers: dict[str, Callable[[dict], Any]] = {
            name: functools.partial(operations.call, rt, name) for name in operations.OPERATIONS
        }
        self.handlers.update(index_status=self._index_status, reindex=self._reindex)
        # Methods of the connection itself, answered on its reader thread.
        self.inline_handlers: dict[str, Callable[[Connection, dict], Any]] = {
            "hello": lambda conn, p: self.hello_result(),
            "cancel": lambda conn, p: {"cancelled": conn.cancel(p["id"])},
            "subscribe": self._subscribe,
        }
        self.methods = frozenset(self.handlers) | frozenset(self.inline_handlers)

    # -- handlers ----------------------------------------------------------------
    def hello_result(self) -> dict:
        return {
            "protocol_version": rpc.PROTOCOL_VERSION,
            "server_version": __version__,
            "vault": str(self.rt.vault),
            "capabilities": self.capabilities(),
            "pid": os.getpid(),
        }

    def capabilities(self) -> list[str]:
        return sorted(self.methods - {"hello"})

    def _index_status(self, p: dict) -> IndexStatus:
        # The worker's state first, then the counts (see operations.index_status).
        busy, pending = self.worker.busy, self.worker.pending_paths()
        st = operations.index_status(self.rt, why=p.get("why"))
        st["indexing"] = bool(st.get("indexing")) or busy
        st["watching"] = bool(self.watcher is not None and self.watcher.running)
        st["watch_problem"] = getattr(self.watcher, "problem", None)  # the folder is gone or was replaced (ADR 0152)
        st["pending_changes"] = pending
        st["last_error"] = self.worker.last_error
        av = st.get("answer_vectors")
        if av is not None and self.worker.stores_answer_vectors:
            av["to_store"] = self.worker.answer_vectors_to_store()
        return st

    def _reindex(self, p: dict) -> dict:
        return self.worker.submit_full(force=bool(p.get("force"))).result().to_json()

    def _subscribe(self, conn: Connection, p: dict) -> dict:
        conn.subscriptions = frozenset(p["events"])
        return {"subscribed": [e for e in protocol.EVENTS if e in conn.subscriptions]}

    # -- connections ---------------------------------------------------------------
    def broadcast(self, method: str, params: dict) -> None:
        with self._conns_lock:
            conns = list(self._conns)
        for c in conns:
            if c.authenticated:
                c.notify(method, params)

    def _forget(self, conn: Connection) -> None:
        with self._conns_lock:
            self._conns.discard(conn)

    def serve_forever(self, listener: socket.socket) -> None:
        """Accept until ``stop()``; each connection gets its own reader thread."""
        listener.settimeout(0.5)
        n = 0
        while not self._stopping.is_set():
            try:
                sock, addr = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                if self._stopping.is_set():
                    break
                raise
            n += 1
            sock.settimeout(None)
            peer = f"c{n}"
            if not admission.same_user(sock):
                log.warning("%s: connection from another user refused", peer)
                sock.close()
                continue
            victim: Connection | None = None
            with self._conns_lock:
                if len(self._conns) >= MAX_CONNECTIONS:
                    victim = admission.idlest(self._conns)
                    if victim is None:
                        log.warning("%s: %d connections, all busy; refused", peer, MAX_CONNECTIONS)
                        sock.close()
                        continue
                    self._conns.discard(victim)
                conn = Connection(self, sock, peer)
                self._conns.add(conn)
            if victim is not None:
                # Whoever holds 64 connections open cannot lock others out
                # (issue 15 D9): the idlest one makes room; a live editor
                # whose connection this was reconnects.
                log.warning("%s: %d connections; dropped the idlest (%s, %s)", peer, MAX_CONNECTIONS, victim.peer,
                            "authenticated" if victim.authenticated else "no hello yet")
                victim.close_silently()
            threading.Thread(target=conn.run, name=f"groove-r-{peer}", daemon=True).start()

    def stop(self) -> None:
        self._stopping.set()
        with self._conns_lock:
            conns = list(self._conns)
        for c in conns:
            c.close_when_drained()
        self.pool.shutdown(wait=False, cancel_futures=True)
