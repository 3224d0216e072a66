"""The vault as MCP tools, on the official SDK's high-level server (MCPServer).

One process serves one vault, or several (``--vault A --vault B``: one
Backend each, routed by ``vaults.py``, ADR 0205). Every tool is one operation of the table
(``operations.OPERATIONS``), called through ``Backend.call``: in this process,
with the model loaded once (in the background at startup, so `initialize`
is instant) and kept warm; or, when a `groove serve` daemon already runs for
the vault, over its socket, and this process loads no model at all
(ADR 0053).

* ``backend.py``: where a call goes (this process, or the daemon).
* ``tools.py``: builds the server: its instructions, the prompts, the
  lifespan that opens the backend and warms the model.
* ``read_tools.py``: the tools that return note text (search, get_document,
  get_documents); ``browse_tools.py``: the tools that navigate (related_notes,
  resolve_link, list_notes, recent_notes, list_tags), the index tools
  (index_status, reindex) and the note resource.
* ``link_tools.py``: unlinked_connections, the links a note could gain (ADR 0200).
* ``vaults.py``: several vaults: their names, the ``vault`` argument, the
  search across vaults (each vault's list merged by its calibrated
  confidence) and the note resource's ``<vault>/<path>``.
* ``session.py``: what the tools share: the call into the backend, where
  groove's errors become tool errors, and the ``max_tokens`` argument;
  ``budget.py`` keeps a response under it (ADR 0114).
* ``strict.py``: arguments checked against each tool's input schema before
  pydantic coerces them (ADR 0116), and resources/list paging the notes;
  ``tool_schemas.py``: the schemas published short, for a model's context
  (ADR 0252).
* ``render.py``: the text each tool returns beside its structured content;
  ``wire/mcp_outputs.py`` holds the output schemas beyond the protocol's shapes.
* ``stdio.py``: stdio, every line answered JSON-RPC's way, and the process
  ended when its client closes stdin (ADR 0154).
* ``http.py``: Streamable HTTP bound to loopback with the SDK's
  Host/Origin validation and an optional bearer token (ADR 0052).
"""

from .backend import Backend, ServerOptions
from .http import serve_http, serve_stdio
from .tools import build_server

__all__ = ["Backend", "ServerOptions", "build_server", "serve_http", "serve_stdio"]
