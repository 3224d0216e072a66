"""How a command ends when the reader of its output goes away (ADR 0279).
Imports nothing of groove: every command and the error paths reach it."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from rich.console import Console


def reader_gone() -> NoReturn:
    """End as a Unix filter does when the reader of its output closes the
    pipe (``| head -1``): killed by SIGPIPE, with nothing on stderr, so a
    shell reports 141 as for ``cat`` and ``grep``, and ``set -o pipefail``
    treats groove like them. (click's own handling exits 1, the code of a
    failure.) Where there is no SIGPIPE (Windows), exit 1."""
    import os
    import signal

    try:  # nothing more may reach the closed pipe, not even Python's flush at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sigpipe = getattr(signal, "SIGPIPE", None)
    if sigpipe is not None:
        signal.signal(sigpipe, signal.SIG_DFL)
        os.kill(os.getpid(), sigpipe)
    sys.exit(1)


def stdout_console(**kwargs: Any) -> Console:
    """A rich Console on stdout that ends as every groove command does when
    the reader closes the pipe (``reader_gone``), not with rich's exit 1."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            reader_gone()

    return _Console(**kwargs)
