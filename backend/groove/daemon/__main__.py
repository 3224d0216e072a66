"""`python -m groove.daemon --vault V [--model M] [--index I] [--foreground]`:
the process `groove serve` / `connect-info --start` spawn. It imports only
what the daemon needs (not the whole CLI), so it starts fast."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import GrooveError, ModelError
from .discovery import MODEL_EXIT_STATUS
from .lifecycle import run_daemon


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m groove.daemon")
    ap.add_argument("--vault", type=Path, default=Path.cwd())
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--model", default=None)
    ap.add_argument("--foreground", action="store_true", help="log to the terminal instead of the log file")
    ap.add_argument("--verbose", action="store_true")
    a = ap.parse_args(argv)
    try:
        return run_daemon(a.vault, index_path=a.index, model=a.model, foreground=a.foreground, verbose=a.verbose)
    except GrooveError as e:
        print(f"error: {e}", file=sys.stderr)
        # The process that started us tells a missing model from a crash by this, not by the text.
        return MODEL_EXIT_STATUS if isinstance(e, ModelError) else 2


if __name__ == "__main__":
    sys.exit(main())
