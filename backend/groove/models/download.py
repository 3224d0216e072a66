"""Fetch one large pinned file over HTTP(S): resume, retry, verify, install atomically.

Bytes go to ``<dest>.part``. A transfer that breaks is resumed with an HTTP
Range request, after a back-off within the same call or by the next call (the
``.part`` is kept). The finished bytes must have the pinned size and sha256
before ``.part`` is renamed to ``dest``, so ``dest`` only ever holds a verified
file; a mismatch deletes the ``.part`` and installs nothing.

Progress is reported as plain dict events (the same objects that
``groove models pull --json-progress`` prints one per line):

- ``{"event": "start", "file", "total", "resumed_from"}``
- ``{"event": "progress", "done", "total"}`` (at most every ``interval`` s, and at the end)
- ``{"event": "retry", "attempt", "of", "delay", "reason"}``
- ``{"event": "verify", "file"}``
"""

from __future__ import annotations

import hashlib
import http.client
import os
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from groove import __version__
from groove.models import ModelError

Event = dict[str, object]
OnEvent = Callable[[Event], None]
ErrorKind = Literal["offline", "http", "checksum", "interrupted", "index", "disk"]

USER_AGENT = f"groove/{__version__} (model download)"
# Statuses worth another try: the server or a proxy is busy or restarting.
_TRANSIENT_HTTP = {408, 425, 429, 500, 502, 503, 504}
_NETWORK_ERRORS = (urllib.error.URLError, http.client.HTTPException, ConnectionError, TimeoutError)


@dataclass(frozen=True)
class PinnedFile:
    """A file known in advance: its name, exact size and sha256."""

    filename: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Patience:
    """How long a fetch waits and how often it tries again."""

    retries: int = 3  # further attempts after a transient failure
    backoff: float = 1.0  # seconds before the first retry, doubled for each next one
    timeout: float = 30.0  # seconds a connection or read may stall


DEFAULT_PATIENCE = Patience()


class DownloadError(ModelError):
    """A download that did not produce a verified file; ``kind`` says why.

    offline: the host could not be reached at all; http: it answered with an
    error status (404, 403...); checksum: the bytes are not the pinned ones;
    interrupted: the transfer kept breaking (the ``.part`` is kept for a
    resume); index: the package index does not list the file; disk: the file
    could not be written.
    """

    code = "model-download-failed"

    def __init__(self, message: str, kind: ErrorKind) -> None:
        super().__init__(message)
        self.kind: ErrorKind = kind

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "kind": self.kind}


class _Transient(Exception):
    """One attempt failed in a way that another attempt may fix."""


def _host(url: str) -> str:
    return urllib.parse.urlsplit(url).netloc or url


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def _reason(exc: BaseException) -> str:
    if isinstance(exc, urllib.error.HTTPError):
        return f"HTTP {exc.code} {exc.reason}"
    if isinstance(exc, urllib.error.URLError):
        return str(exc.reason)
    return str(exc) or type(exc).__name__


def _open(url: str, headers: dict[str, str], timeout: float):
    req = urllib.request.Request(url, headers={"User-Agent": USER_AGENT, **headers})
    return urllib.request.urlopen(req, timeout=timeout)  # noqa: S310 - http(s) URLs only, checked by callers


def _with_retries(
    what: str, url: str, attempt_fn: Callable[[], object], *, patience: Patience, on_event: OnEvent,
    reached: list[bool], resume_note: str = "",
):
    """Run ``attempt_fn`` until it succeeds; transient failures are retried
    ``patience.retries`` times with exponential back-off, then turned into a DownloadError."""
    retries, backoff = patience.retries, patience.backoff
    attempt = 0
    while True:
        try:
            return attempt_fn()
        except urllib.error.HTTPError as exc:
            reached[0] = True
            if exc.code not in _TRANSIENT_HTTP:
                raise DownloadError(f"{what} failed: {_reason(exc)} for {url}", "http") from exc
            last: BaseException = exc
        except (_Transient, *_NETWORK_ERRORS) as exc:
            last = exc
        attempt += 1
        # Before any answer (DNS failure, refused connection) one more try is
        # enough to ride out a blip; an offline user hears so within a second.
        if attempt > (retries if reached[0] else min(retries, 1)):
            if not reached[0]:
                raise DownloadError(
                    f"cannot reach {_host(url)} ({_reason(last)}): are you offline? Nothing was installed.",
                    "offline",
                ) from last
            raise DownloadError(f"{what} kept failing ({_reason(last)}){resume_note}", "interrupted") from last
        delay = backoff * (2 ** (attempt - 1))
        on_event({"event": "retry", "attempt": attempt, "of": retries, "delay": delay, "reason": _reason(last)})
        time.sleep(delay)


def fetch_page(
    url: str, *, accept: str | None = None, patience: Patience = Patience(), on_event: OnEvent | None = None,
) -> tuple[bytes, str, str]:
    """GET a small document (an index page): (body, content type, final URL)."""
    emit = on_event or (lambda _e: None)
    reached = [False]

    def attempt() -> tuple[bytes, str, str]:
        with _open(url, {"Accept": accept} if accept else {}, patience.timeout) as resp:
            reached[0] = True
            return resp.read(), resp.headers.get("Content-Type", ""), resp.geturl()

    return _with_retries("fetching the package index", url, attempt, patience=patience, on_event=emit,
                         reached=reached)


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def download(
    url: str,
    dest: str | os.PathLike[str],
    pin: PinnedFile,
    *,
    on_event: OnEvent | None = None,
    patience: Patience = Patience(),
    interval: float = 0.25,
) -> Path:
    """Download ``url`` to ``dest`` and return ``dest``; see the module doc."""
    emit = on_event or (lambda _e: None)
    dest = Path(dest)
    part = dest.with_name(dest.name + ".part")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DownloadError(f"cannot create {dest.parent}: {exc}", "disk") from exc
    have = part.stat().st_size if part.exists() else 0
    if have > pin.size:  # not a prefix of the pinned file
        part.unlink()
        have = 0
    emit({"event": "start", "file": pin.filename, "total": pin.size, "resumed_from": have})
    reached = [False]
    last_emit = [0.0]

    def attempt() -> None:
        start = part.stat().st_size if part.exists() else 0
        if start >= pin.size:
            return
        headers = {"Range": f"bytes={start}-"} if start else {}
        try:
            resp = _open(url, headers, patience.timeout)
        except urllib.error.HTTPError as exc:
            if exc.code == 416 and start:  # the server says our .part is already whole
                reached[0] = True
                return
            raise
        reached[0] = True
        with resp:
            mode = "wb"
            if start and resp.status == 206:
                m = re.match(r"bytes (\d+)-", resp.headers.get("Content-Range", ""))
                if not m or int(m.group(1)) != start:
                    part.unlink(missing_ok=True)  # a range we did not ask for: start over
                    raise _Transient(f"server answered an unexpected range ({resp.headers.get('Content-Range')})")
                mode = "ab"
            done = start if mode == "ab" else 0
            length = resp.headers.get("Content-Length")
            expected = done + int(length) if length and length.isdigit() else pin.size
            try:
                fh = part.open(mode)
            except OSError as exc:
                raise DownloadError(f"cannot write {part}: {exc}", "disk") from exc
            with fh:
                while True:
                    try:
                        block = resp.read(1 << 20)
                    except (http.client.IncompleteRead, *_NETWORK_ERRORS) as exc:
                        raise _Transient(f"connection lost after {_mb(done)}: {_reason(exc)}") from exc
                    if not block:
                        break
                    try:
                        fh.write(block)
                    except OSError as exc:
                        raise DownloadError(f"cannot write {part}: {exc}", "disk") from exc
                    done += len(block)
                    if done > pin.size:
                        break
                    now = time.monotonic()
                    if now - last_emit[0] >= interval:
                        last_emit[0] = now
                        emit({"event": "progress", "done": done, "total": pin.size})
            emit({"event": "progress", "done": done, "total": pin.size})
            if done < min(expected, pin.size):
                raise _Transient(f"connection closed after {_mb(done)} of {_mb(pin.size)}")

    _with_retries(
        "download", url, attempt, patience=patience, on_event=emit, reached=reached,
        resume_note=f"; the part already downloaded is kept in {part} and the next try resumes from it",
    )
    emit({"event": "verify", "file": pin.filename})
    size = part.stat().st_size
    digest = sha256_of(part) if size == pin.size else None
    if digest != pin.sha256:
        part.unlink(missing_ok=True)
        got = f"sha256 {digest}" if digest else f"{size} bytes"
        raise DownloadError(
            f"{pin.filename} from {_host(url)} is not the expected file (got {got}; expected "
            f"{pin.size} bytes with sha256 {pin.sha256}); it was deleted and nothing was installed",
            "checksum",
        )
    os.replace(part, dest)
    return dest
