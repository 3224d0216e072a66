"""One operation table, one set of wire shapes: the table, the socket's
methods, the schema models and the committed protocol.json agree; a search
result and its params survive the wire unchanged."""

from __future__ import annotations

import dataclasses
import json

from hypothesis import given
from hypothesis import strategies as st

from groove import operations
from groove.daemon import protocol
from groove.daemon.server import Daemon
from groove.pipeline import SearchParams
from groove.runtime import open_runtime
from groove.wire import generate
from groove.wire.models import METHODS
from groove.wire.models import SearchParams as SearchParamsModel
from groove.wire.search import SearchHit, SearchResponse
from helpers import make_runtime

CONNECTION_METHODS = {"hello", "cancel", "subscribe"}


def test_the_committed_protocol_json_is_the_generated_one():
    assert generate.PATH.read_text(encoding="utf-8") == generate.render(), (
        "wire/protocol.json is out of date: run python -m groove.wire.generate")


def test_every_operation_has_a_schema_and_every_schema_an_operation():
    assert set(METHODS) == set(operations.OPERATIONS) | CONNECTION_METHODS
    assert set(protocol.schemas()["methods"]) == set(METHODS)


def test_the_daemon_serves_exactly_the_table_and_the_connection_methods(tmp_path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    rt = open_runtime(tmp_path, index_path=tmp_path / "i.sqlite")
    d = Daemon(rt, "t" * 64)
    try:
        assert d.methods == set(METHODS)
        assert set(d.capabilities()) == set(METHODS) - {"hello"}
    finally:
        d.stop()
        rt.close()


def test_search_params_are_defined_once_and_the_wire_schema_is_the_pipelines_minus_its_dev_knob():
    assert SearchParamsModel is SearchParams  # the table's params type is the pipeline's dataclass
    wire = protocol.schemas()["$defs"]["SearchParams"]
    python = {f.name for f in dataclasses.fields(SearchParams)} - {"legs"}
    assert set(wire["properties"]) == python and wire["additionalProperties"] is False
    assert wire["properties"]["mmr_lambda"]["maximum"] == 1 and wire["properties"]["path_globs"]["maxItems"] == 100


texts = st.text(max_size=8)


@given(st.builds(
    SearchParams, query=texts, limit=st.none() | st.integers(1, 50), rerank=st.none() | st.booleans(),
    reranker=st.none() | texts, mmr=st.none() | st.booleans(), mmr_lambda=st.none() | st.floats(0, 1),
    mmr_same_doc_penalty=st.none() | st.floats(0, 5), parent_retriever=st.none() | st.booleans(),
    path_globs=st.lists(texts, max_size=2).map(tuple), tags_any=st.lists(texts, max_size=2).map(tuple),
    tags_all=st.lists(texts, max_size=2).map(tuple), date_from=st.none() | st.just("2024-01-02"),
    date_to=st.none() | st.just("2024-12-31"), min_confidence_ratio=st.none() | st.floats(0, 1),
    where=st.lists(texts, max_size=2).map(tuple),
))
def test_search_params_survive_the_wire(p):
    wire = p.to_json()
    assert not list(protocol.validator("params", "search").iter_errors(wire))
    assert SearchParams.from_json(json.loads(json.dumps(wire))) == p


def test_a_search_response_survives_the_wire_and_matches_its_schema(small_vault, tiny_embedder, tmp_path):
    rt = make_runtime(small_vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    resp = operations.search(rt, SearchParams("sync conflicts", limit=5, parent_retriever=True))
    wire = json.loads(json.dumps(resp.to_json()))
    assert resp.results and not list(protocol.validator("result", "search").iter_errors(wire))
    assert SearchResponse.from_json(wire) == resp
    assert operations.call(rt, "search", {"query": "sync conflicts", "limit": 5, "parent_retriever": True}) == wire
    rt.close()


def test_a_hit_is_defined_once_and_its_schema_follows():
    fields = [f.name for f in dataclasses.fields(SearchHit)]
    always = [f.name for f in dataclasses.fields(SearchHit) if f.default is dataclasses.MISSING]
    hit = protocol.schemas()["$defs"]["SearchHit"]
    assert list(hit["properties"]) == fields and hit["required"] == always
    # explain only when the search asks for it; note_answer_rank, note_answer on a note's first hit when they apply
    assert set(fields) - set(always) == {"explain", "note_answer_rank", "note_answer"}
