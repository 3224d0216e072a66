"""Who gets a connection to the daemon: the same user only (proven by the
kernel on a unix socket, else by the token), and at most
``MAX_CONNECTIONS`` at once — when full, the idlest makes room, so one
client holding connections open cannot lock the others out (issue 15 D9)."""

from __future__ import annotations

import os
import socket
import struct
import sys
import threading
from collections.abc import Collection, Sized
from typing import Protocol, TypeVar

from . import auth

MAX_CONNECTIONS = 64


class Idleness(Protocol):
    """What ``idlest`` reads of a connection (the server's ``Connection``
    has these), so admission need not import the server that uses it."""

    @property
    def authenticated(self) -> bool: ...

    @property
    def subscriptions(self) -> Collection[str]: ...

    @property
    def last_active(self) -> float: ...

    @property
    def pending(self) -> Sized: ...


C = TypeVar("C", bound=Idleness)


def idlest(conns: Collection[C]) -> C | None:
    """The connection to drop when full: none with a request in flight;
    first one that has not said hello, then one without subscriptions (not
    an editor's live channel), each the longest silent."""
    idle = [c for c in conns if not c.pending]
    if not idle:
        return None
    return min(idle, key=lambda c: (c.authenticated, bool(c.subscriptions), c.last_active))


# Platforms where the kernel tells a unix socket's owner who the peer is.
PEER_UID_READABLE = sys.platform == "linux" or sys.platform == "darwin" or sys.platform.startswith("freebsd")


def peer_uid(sock: socket.socket) -> int | None:
    """The uid of the process at the other end of a unix socket, as the
    kernel reports it (Linux ``SO_PEERCRED``; macOS/FreeBSD ``LOCAL_PEERCRED``,
    a ``struct xucred`` whose first fields are version and uid); None where
    it cannot be known (TCP, other platforms, an error)."""
    if sock.family != getattr(socket, "AF_UNIX", None) or not PEER_UID_READABLE:
        return None
    try:
        if sys.platform == "linux":
            _pid, uid, _gid = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                                                  struct.calcsize("3i")))
            return uid
        # SOL_LOCAL = 0, LOCAL_PEERCRED = 1; xucred: u_int version, uid_t uid, short n, gid_t groups[16]
        raw = sock.getsockopt(0, 1, 76)
        version, uid = struct.unpack_from("=II", raw)
        return uid if version == 0 else None
    except (OSError, struct.error):
        return None


def same_user(sock: socket.socket) -> bool:
    """The peer of a unix socket must be this user (belt and braces on top
    of the 0600 socket in a 0700 folder, and the token). A peer whose uid
    cannot be read is let through to the token check."""
    uid = peer_uid(sock)
    if uid is None:
        return not (sys.platform == "linux" and sock.family == getattr(socket, "AF_UNIX", None))
    return uid == os.geteuid()


def peer_is_owner(sock: socket.socket) -> bool:
    """True when the kernel vouches that the peer runs as this user: such a
    client may say hello without the token (it could read the token, or the
    index itself, anyway), which spares the CLI the OS keyring's ~100 ms."""
    uid = peer_uid(sock)
    return uid is not None and uid == os.geteuid()


def hello_accepted(params: object, token: str, *, peer_is_owner: bool) -> str | None:
    """How a ``hello`` proves itself ("token" or "peer uid"), or None to close
    the connection. No token at all is fine from this user's own process on a
    unix socket (ADR 0126); a token that is given must be right."""
    if not isinstance(params, dict):
        return None
    given = params.get("token")
    if peer_is_owner and given in (None, ""):
        return "peer uid"
    return "token" if auth.token_matches(token, given) else None


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
