"""index_status returns the type its schema is generated from (issue 38):
the object the code builds is declared key for key, in order, by
``status_types.IndexStatus``, and it is what protocol.json says."""

from __future__ import annotations

import json
import typing

import jsonschema
import pytest
from pydantic import TypeAdapter

from groove import operations
from groove.daemon.server import Daemon
from groove.wire import status_types
from groove.wire.generate import PATH as PROTOCOL_JSON
from helpers import make_runtime, write_note


@pytest.fixture
def rt(tmp_path, tiny_embedder):
    vault = tmp_path / "vault"
    write_note(vault, "a.md", "# A\n\napples\n")
    write_note(vault, "sub/b.md", "# B\n\nbananas\n")
    (vault / "bin.md").write_bytes(b"\x00\x01binary" * 40)
    (vault / ".grooveignore").write_text("drafts/\n", encoding="utf-8")
    r = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(r)
    write_note(vault, "c.md", "# C\n\nnew\n")  # stale: stale_paths is not empty
    yield r
    r.close()


def declared(t: type) -> list[str]:
    return list(typing.get_type_hints(t))


def wire_schema(method: str) -> dict:
    doc = json.loads(PROTOCOL_JSON.read_text(encoding="utf-8"))
    return {**doc["methods"][method]["result"], "$defs": doc["$defs"]}


def test_the_status_the_operation_builds_is_its_type_key_for_key_in_order(rt):
    st = operations.index_status(rt, why="drafts/x.md")
    keys = declared(status_types.IndexStatus)
    assert list(st) == [k for k in keys if k in st], "a key the type does not declare, or out of its order"
    assert set(wire_schema("index_status")["$defs"]["IndexStatus"]["required"]) <= set(st)
    for part, t in (("low_confidence", status_types.LowConfidenceStatus), ("word_index", status_types.WordIndexStatus),
                    ("vector_copy", status_types.VectorCopyStatus), ("why", status_types.WhyExcluded)):
        assert set(st[part]) <= set(declared(t)), part
    assert all(set(e) <= set(declared(status_types.ExclusionSource)) for e in st["exclusions"])
    assert st["skipped"] == [{"path": "bin.md", "reason": st["skipped"][0]["reason"]}]
    TypeAdapter(status_types.IndexStatus).validate_python(st)  # values of the declared types
    jsonschema.validate(st, wire_schema("index_status"))


def test_the_daemons_status_adds_its_keys_last_as_the_type_declares(rt):
    daemon = Daemon(rt, "t" * 32)
    try:
        st = daemon._index_status({})
    finally:
        daemon.stop()
    keys = declared(status_types.IndexStatus)
    assert list(st) == [k for k in keys if k in st]
    assert list(st)[-4:] == ["watching", "watch_problem", "pending_changes", "last_error"]
    jsonschema.validate(st, wire_schema("index_status"))


def test_a_progress_event_is_an_index_progress(rt):
    events: list[dict] = []
    operations.reindex(rt, progress=events.append)
    adapter = TypeAdapter(status_types.IndexProgress)
    for ev in events:
        adapter.validate_python(ev)
        assert set(ev) <= set(declared(status_types.IndexProgress)), ev
