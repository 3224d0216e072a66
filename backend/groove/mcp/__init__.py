"""The vault as MCP tools, on the official SDK's high-level server (MCPServer).

One process = one vault. Every tool is one operation of the table
(``service.OPERATIONS``), called through ``Backend.call``: in this process,
with the model loaded once (in the background at startup, so `initialize`
is instant) and kept warm; or, when a `groove serve` daemon already runs for
the vault, over its socket, and this process loads no model at all
(ADR 0053).

* ``backend.py``: where a call goes (this process, or the daemon).
* ``tools.py``: the tools and the note resource, their LLM-facing
  descriptions, and how groove's errors become tool errors.
* ``render.py``: the text each tool returns beside its structured content.
* ``stdio.py``: stdio, every line answered JSON-RPC's way, and the process
  ended when its client closes stdin (ADR 0154).
* ``http.py``: Streamable HTTP bound to loopback with the SDK's
  Host/Origin validation and an optional bearer token (ADR 0052).
"""

from .backend import Backend, ServerOptions
from .http import serve_http, serve_stdio
from .tools import build_server

__all__ = ["Backend", "ServerOptions", "build_server", "serve_http", "serve_stdio"]
