"""MCP transports: stdio (stdio.py: every line answered, JSON-RPC's way), and
Streamable HTTP bound to loopback with the SDK's Host/Origin validation and
an optional bearer token (ADR 0052)."""

from __future__ import annotations

import hmac
import socket
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings

from .stdio import serve_stdio


def transport_security(host: str, port: int, extra_hosts: list[str] | None = None,
                       extra_origins: list[str] | None = None) -> TransportSecuritySettings:
    """Host/Origin allow-lists against DNS rebinding: only loopback names (and
    an explicitly bound remote host) may appear in Host; a browser may call
    only from this server's own origin (a loopback name on this port), or
    from an origin the user allowed with --allow-origin. Any other page on
    localhost (another dev server, another port) is refused."""
    names = ["127.0.0.1", "localhost", "[::1]"]
    h = f"[{host}]" if ":" in host and not host.startswith("[") else host
    if h not in names:
        names.append(h)
    names += list(extra_hosts or [])
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[x for n in names for x in (n, f"{n}:{port}")],
        allowed_origins=[f"{s}://{n}:{port}" for n in names for s in ("http", "https")]
        + [o.rstrip("/") for o in extra_origins or []],
    )


class BearerAuth:
    """ASGI middleware: every request must carry `Authorization: Bearer <token>`."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.token = token.encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and str(scope.get("path", "")).startswith("/.well-known/"):
            # No OAuth here: a 401 on the discovery URLs sends clients into an
            # OAuth flow that cannot succeed; 404 says "use the bearer token".
            await _respond(send, 404, b'{"error": "not found"}')
            return
        if scope["type"] == "http":
            auth = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, given = auth.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(given.strip(), self.token):
                body = b'{"error": "missing or wrong bearer token"}'
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="groove"'),
                    (b"content-length", str(len(body)).encode())]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


async def _respond(send: Any, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def http_app(mcp: MCPServer, host: str, port: int, token: str | None, allow_origins: list[str] | None = None) -> Any:
    app = mcp.streamable_http_app(transport_security=transport_security(host, port, extra_origins=allow_origins),
                                  host=host)
    return BearerAuth(app, token) if token else app


def serve_http(mcp: MCPServer, host: str, port: int, token: str | None,
               on_ready: Callable[[str], None] | None = None, allow_origins: list[str] | None = None) -> None:
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted sockets inherit this: without it Nagle + delayed ACK add ~40 ms
    # to every response (headers and SSE body go out as separate writes).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.bind((host, port))  # bound here so port 0 gets a real port we can print
    sock.listen(2048)  # connections queue from now on, even before uvicorn accepts
    real_port = sock.getsockname()[1]
    url = f"http://{'[' + host + ']' if ':' in host else host}:{real_port}/mcp"
    config = uvicorn.Config(http_app(mcp, host, real_port, token, allow_origins), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    if on_ready:
        on_ready(url)
    server.run(sockets=[sock])


__all__ = ["http_app", "serve_http", "serve_stdio", "transport_security"]
