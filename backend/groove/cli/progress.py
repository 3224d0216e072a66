"""`groove index`'s progress where no terminal shows a bar: a script, a cron
job, an editor task or a log file gets a line on stderr every few seconds
(issue 48: 11 minutes of silence on 1,035 notes), as text or, with
``--json-progress``, one JSON object a line. A thread writes them, so a
line comes on time even while one long batch is embedded."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import IO, Any

# Seconds between lines. The README promises one at least every 5 s; tests
# set GROOVE_PROGRESS_SECONDS lower so they need no big vault.
DEFAULT_INTERVAL = 5.0


def interval() -> float:
    try:
        v = float(os.environ.get("GROOVE_PROGRESS_SECONDS", DEFAULT_INTERVAL))
    except ValueError:
        return DEFAULT_INTERVAL
    return min(DEFAULT_INTERVAL, max(0.05, v))


@dataclass
class IndexProgress:
    """The latest progress event of a run, and what it adds up to."""

    start: float = field(default_factory=time.monotonic)
    phase: str = "loading model"
    done: int = 0
    total: int | None = None
    chunks: int = 0

    def update(self, ev: dict[str, Any]) -> None:
        self.phase = str(ev.get("phase") or self.phase)
        if ev.get("total") is not None:
            self.total = int(ev["total"])
            self.done = int(ev.get("done") or 0)
        if "chunks" in ev:
            self.chunks = int(ev["chunks"])

    def as_json(self) -> dict[str, Any]:
        el = time.monotonic() - self.start
        return {"phase": self.phase, "done": self.done, "total": self.total, "chunks": self.chunks,
                "elapsed_seconds": round(el, 1), "notes_per_second": round(self.done / el, 2) if el > 0 else 0.0}

    def as_text(self) -> str:
        j = self.as_json()
        if self.total is None:
            return f"groove index: {self.phase}, {j['elapsed_seconds']:.0f} s"
        left = ""
        if self.done and self.total > self.done:
            left = f", ~{(self.total - self.done) / max(j['notes_per_second'], 1e-9):.0f} s left"
        return (f"groove index: {self.done}/{self.total} notes ({self.chunks} chunks), "
                f"{j['notes_per_second']:.1f} notes/s, {j['elapsed_seconds']:.0f} s{left}")


class LineReporter:
    """Writes the progress to ``stream`` every ``every`` seconds until stopped."""

    def __init__(self, state: IndexProgress, *, as_json: bool, stream: IO[str] | None = None,
                 every: float | None = None) -> None:
        self.state, self.as_json = state, as_json
        self.stream = stream or sys.stderr
        self.every = interval() if every is None else every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="groove-index-progress", daemon=True)

    def __enter__(self) -> LineReporter:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def line(self) -> None:
        text = json.dumps(self.state.as_json()) if self.as_json else self.state.as_text()
        try:
            self.stream.write(text + "\n")
            self.stream.flush()
        except (OSError, ValueError):  # stderr closed: the index goes on without its log
            self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.line()
