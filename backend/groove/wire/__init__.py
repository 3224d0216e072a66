"""The wire contract: every request and result the surfaces exchange, in
one place, and the files generated from it.

- ``search.py``: a search's params (``SearchParams``) and result
  (``SearchResponse``, ``SearchHit``), dataclasses the pipeline passes on;
- ``status_types.py``, ``note_types.py``: the other operations' results,
  TypedDicts the operations build (ADR 0172);
- ``models.py``: each socket method's params and result (``METHODS``) and
  the notifications; ``rpc.py`` the version and error codes, ``envelope.py``
  connect-info and the JSON-RPC envelope, ``explain.py`` the explain
  objects; ``mcp_outputs.py`` what MCP's tools add;
- ``bounds.py`` what a caller may send, ``constraints.py`` the annotated
  types the schemas carry (loaded lazily, ``lazy_constraints.py``);
- ``generate.py`` writes ``protocol.json``, ``typescript.py`` the plugins'
  ``editor-client/src/protocol.ts`` (``make protocol``; tests fail on drift).

The floor layer: it imports nothing else of groove, and nothing here loads
pydantic at run time, which only reads these types to write the schemas.
Adding a wire type: a TypedDict beside its operation's others (field
docstrings become descriptions), named in ``models.METHODS`` if a method
returns it, then ``make protocol`` (ADR 0277).
"""
