"""Who gets a connection to the daemon: the same user only, and at most
``MAX_CONNECTIONS`` at once — when full, the idlest makes room, so one
client holding connections open cannot lock the others out (issue 15 D9)."""

from __future__ import annotations

import os
import socket
import struct
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .server import Connection

MAX_CONNECTIONS = 64


def idlest(conns: set[Connection]) -> Connection | None:
    """The connection to drop when full: none with a request in flight;
    first one that has not said hello, then one without subscriptions (not
    an editor's live channel), each the longest silent."""
    idle = [c for c in conns if not c.pending]
    if not idle:
        return None
    return min(idle, key=lambda c: (c.authenticated, bool(c.subscriptions), c.last_active))


def same_user(sock: socket.socket) -> bool:
    """Linux: the peer's uid must be ours (belt and braces on top of the
    0600 socket and the token)."""
    if sys.platform != "linux" or sock.family != socket.AF_UNIX:
        return True
    try:
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        _pid, uid, _gid = struct.unpack("3i", creds)
        return uid == os.getuid()
    except OSError:
        return False


class InFlight:
    """How many requests are being handled; a stopping daemon waits for
    them a while, then exits anyway (Python's exit would wait for the pool)."""

    def __init__(self) -> None:
        self._n = 0
        self._cond = threading.Condition()

    def add(self, delta: int) -> None:
        with self._cond:
            self._n += delta
            self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: self._n == 0, timeout)
