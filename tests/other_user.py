"""Run test code as a second, unprivileged Unix user (``nobody``): needs root.

The interpreter may live where that user cannot reach (a pyenv under
/root), so the code runs in a fork of this process after setuid, not in a
new interpreter: warm it up as root first, so every module it imports
lazily is already loaded. The result (or the exception, as text) comes
back through a pipe."""

from __future__ import annotations

import os
import pickle
import pwd
import signal
import traceback
from collections.abc import Callable
from typing import Any

import pytest


def other_user() -> pwd.struct_passwd:
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("needs root, to act as a second Unix user")
    try:
        return pwd.getpwnam("nobody")
    except KeyError:
        pytest.skip("no 'nobody' user on this machine to play the other user")


def run_as_other(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` in a forked child running as ``nobody``; returns its
    result, or raises RuntimeError carrying the child's exception."""
    o = other_user()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        os.close(r)
        signal.alarm(120)  # a child that hangs dies, and the test says so
        try:
            os.setgroups([])
            os.setgid(o.pw_gid)
            os.setuid(o.pw_uid)
            out: tuple[str, Any] = ("ok", fn(*args))
        except BaseException as e:  # noqa: BLE001 - sent back to the test
            out = ("error", f"{type(e).__name__}: {e}\n{traceback.format_exc()}")
        try:
            data = pickle.dumps(out)
        except Exception as e:  # noqa: BLE001
            data = pickle.dumps(("error", f"unpicklable result: {e}"))
        with os.fdopen(w, "wb") as fh:
            fh.write(data)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    kind, value = pickle.loads(data) if data else ("error", "the child died (or hung for 120 s)")
    if kind == "error":
        raise RuntimeError(value)
    return value
