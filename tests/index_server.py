"""A package index served by the test over real HTTP on 127.0.0.1.

It answers the simple API for one project (PEP 503 HTML or PEP 691 JSON, as
the client's Accept header asks) and serves files with HTTP Range support.
Faults are switched on per test: cut a transfer after N bytes, answer 404,
serve other bytes than the page claims.
"""

from __future__ import annotations

import hashlib
import http.server
import json
import threading
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class ServedFile:
    name: str
    path: Path | None = None  # a file on disk (the real wheel), or
    data: bytes | None = None  # bytes in memory
    stated_sha256: str | None = None  # what the index page claims (default: the real hash)

    def size(self) -> int:
        return self.path.stat().st_size if self.path else len(self.data or b"")

    def read(self, start: int, end: int) -> bytes:
        if self.path:
            with self.path.open("rb") as fh:
                fh.seek(start)
                return fh.read(end - start)
        return (self.data or b"")[start:end]

    def sha256(self) -> str:
        if self.stated_sha256:
            return self.stated_sha256
        h = hashlib.sha256()
        if self.path:
            with self.path.open("rb") as fh:
                for b in iter(lambda: fh.read(1 << 20), b""):
                    h.update(b)
        else:
            h.update(self.data or b"")
        return h.hexdigest()


@dataclass
class IndexServer:
    project: str
    files: dict[str, ServedFile] = field(default_factory=dict)
    cut_after: dict[str, list[int]] = field(default_factory=dict)  # file -> bytes to send per request, then drop
    missing: set[str] = field(default_factory=set)  # files listed on the page but answered 404
    busy: dict[str, list[int]] = field(default_factory=dict)  # file -> error statuses to answer first (503...)
    json_api: bool = True  # honour a PEP 691 Accept header
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range header)

    def __post_init__(self) -> None:
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                outer.requests.append((self.path, self.headers.get("Range")))
                if self.path.rstrip("/") == f"/simple/{outer.project}":
                    return self._page()
                if self.path.startswith("/files/"):
                    return self._file(self.path[len("/files/"):])
                self._send(404, b"not found", "text/plain")

            def _send(self, code: int, body: bytes, ctype: str, extra: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def _page(self) -> None:
                entries = [(f.name, f"../../files/{f.name}", f.sha256()) for f in outer.files.values()]
                if outer.json_api and "application/vnd.pypi.simple.v1+json" in self.headers.get("Accept", ""):
                    body = json.dumps({
                        "meta": {"api-version": "1.0"}, "name": outer.project,
                        "files": [{"filename": n, "url": u, "hashes": {"sha256": h}} for n, u, h in entries],
                    }).encode()
                    return self._send(200, body, "application/vnd.pypi.simple.v1+json")
                links = "".join(f'<a href="{u}#sha256={h}">{n}</a><br/>\n' for n, u, h in entries)
                body = f"<!DOCTYPE html><html><body><h1>Links for {outer.project}</h1>\n{links}</body></html>"
                self._send(200, body.encode(), "text/html")

            def _file(self, name: str) -> None:
                f = outer.files.get(name)
                if f is None or name in outer.missing:
                    return self._send(404, b"not found", "text/plain")
                if outer.busy.get(name):
                    return self._send(outer.busy[name].pop(0), b"busy", "text/plain")
                size = f.size()
                start, code, extra = 0, 200, {}
                rng = self.headers.get("Range")
                if rng and rng.startswith("bytes="):
                    start = int(rng[6:].split("-")[0])
                    if start >= size:
                        return self._send(416, b"", "text/plain", {"Content-Range": f"bytes */{size}"})
                    code, extra = 206, {"Content-Range": f"bytes {start}-{size - 1}/{size}"}
                self.send_response(code)
                self.send_header("Content-Type", "application/octet-stream")
                self.send_header("Content-Length", str(size - start))
                for k, v in extra.items():
                    self.send_header(k, v)
                self.end_headers()
                cuts = outer.cut_after.get(name)
                limit = size if not cuts else min(size, start + cuts.pop(0))
                pos = start
                while pos < limit:
                    n = min(1 << 20, limit - pos)
                    self.wfile.write(f.read(pos, pos + n))
                    pos += n
                if limit < size:  # drop the connection mid-body
                    self.wfile.flush()
                    self.close_connection = True
                    try:
                        import socket

                        self.connection.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.index_url = f"{self.base}/simple"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self._thread.start()

    def add(self, f: ServedFile) -> ServedFile:
        self.files[f.name] = f
        return f

    def file_requests(self, name: str) -> list[str | None]:
        return [r for p, r in self.requests if p == f"/files/{name}"]

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


def free_port_url() -> str:
    """A loopback URL where nothing listens (a server that is down)."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return f"http://127.0.0.1:{port}/simple"
