"""What a connection has to say, on its way to the socket (issue 50 R5, ADR 0232).

No thread but the connection's own writer ever waits on its socket: pool
threads once wrote replies themselves under a send lock, so one client that
stopped reading held every pool thread, and every other client's requests
waited 30 s behind it. Now a reply is written at once by the thread that
made it when the socket takes it whole without waiting (one thread hop less
on the hot path); whatever the socket does not take is queued, in order,
for the writer thread. The reader stops reading requests while more than
``READ_PAUSE_BYTES`` wait unread (the client's own backlog, not the pool,
holds it); past ``MAX_QUEUED_BYTES``, or when the client takes nothing for
``SEND_STALL_S``, the connection is dropped.
"""

from __future__ import annotations

import logging
import select
import socket
import threading
from collections import deque
from collections.abc import Callable

log = logging.getLogger("groove.daemon.server")

MAX_QUEUED_BYTES = 64 << 20  # a client that stops reading is dropped past this
READ_PAUSE_BYTES = 4 << 20  # ...and its requests are not read while more than this waits
SEND_STALL_S = 30.0
_DONTWAIT = getattr(socket, "MSG_DONTWAIT", 0)


class Outbox:
    """One connection's outgoing lines. ``on_dead`` is called (once or more,
    it must be idempotent) when the socket fails or the client is dropped."""

    def __init__(self, sock: socket.socket, peer: str, on_dead: Callable[[], None]) -> None:
        self.sock = sock
        self.peer = peer
        self._on_dead = on_dead
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # the queue moved, or the outbox closed
        self._queue: deque[bytes] = deque()  # what the socket has not taken yet
        self._queued = 0  # bytes in _queue
        self._writing = False  # a thread is writing to the socket: everyone else queues
        self.closed = False

    def put(self, data: bytes) -> None:
        """Send ``data`` (one whole line) after everything put before it; never waits."""
        with self._lock:
            if self.closed:
                return
            mine = not (self._writing or self._queue) and bool(_DONTWAIT)
            if mine:
                self._writing = True  # this thread has the socket; others queue behind it
            else:
                self._enqueue(data, front=False)
        if mine:
            self._write_now(data)
        if self._queued > MAX_QUEUED_BYTES:
            log.warning("%s: not reading (%d bytes queued); dropping it", self.peer, self._queued)
            self.abort()
            self._on_dead()

    def _write_now(self, data: bytes) -> None:
        """What the socket takes without waiting; the rest goes ahead of anything queued meanwhile."""
        view = memoryview(data)
        try:
            while view:
                view = view[self.sock.send(view, _DONTWAIT):]
        except BlockingIOError:
            pass
        except OSError as e:
            log.info("%s: write failed (%s); closing", self.peer, e)
            with self._lock:
                self._writing = False
            self.abort()
            self._on_dead()
            return
        with self._lock:
            self._writing = False
            if view:
                self._enqueue(bytes(view), front=True)
            self._changed.notify_all()

    def _enqueue(self, data: bytes, *, front: bool) -> None:
        (self._queue.appendleft if front else self._queue.append)(data)
        self._queued += len(data)
        self._changed.notify_all()

    def close_when_drained(self) -> None:
        """Take nothing more; the writer ends once what is queued is written."""
        with self._lock:
            self.closed = True
            self._changed.notify_all()

    def abort(self) -> None:
        """Take nothing more and drop what is queued."""
        with self._lock:
            self.closed = True
            self._queue.clear()
            self._queued = 0
            self._changed.notify_all()

    def wait_for_client(self) -> None:
        """Hold the caller (the reader) while the client leaves its replies unread."""
        with self._lock:
            while self._queued > READ_PAUSE_BYTES and not self.closed:
                self._changed.wait()

    def run(self) -> None:
        """The writer thread: the queue, in order, waiting on the socket as long as SEND_STALL_S."""
        try:
            while True:
                with self._lock:
                    while self._writing or not (self._queue or self.closed):
                        self._changed.wait()
                    if not self._queue:
                        return  # closed and drained
                    data = self._queue.popleft()
                    self._writing = True
                try:
                    self._send_all(data)
                finally:
                    with self._lock:
                        self._writing = False
                        self._queued = max(0, self._queued - len(data))
                        self._changed.notify_all()
        except OSError as e:
            log.info("%s: write failed (%s); closing", self.peer, e)
        finally:
            self.abort()
            self._on_dead()

    def _send_all(self, data: bytes) -> None:
        if not _DONTWAIT:
            self.sock.sendall(data)
            return
        view = memoryview(data)
        while view:
            try:
                n = self.sock.send(view, _DONTWAIT)
            except BlockingIOError:
                _r, w, _x = select.select([], [self.sock], [], SEND_STALL_S)
                if not w:
                    raise TimeoutError(f"client read nothing for {SEND_STALL_S:.0f}s") from None
                continue
            view = view[n:]
