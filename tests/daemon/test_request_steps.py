"""A connection's handling of one line, step by step and in process: parse,
envelope, hello, checks, scheduling (issue 38). The wire behaviour end to
end is pinned by test_protocol.py and test_auth.py on real daemons; here
each step is called on its own, the connection over a real socketpair."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from groove.daemon import protocol, requests
from groove.daemon.server import Connection, Daemon, _Pending
from groove.runtime import open_runtime
from groove.wire import rpc

TOKEN = "t" * 32


def test_a_line_that_is_not_json_is_refused_with_a_parse_error_and_no_id():
    got = requests.parse_line(b'{"jsonrpc": "2.0", "id": 1,')
    assert isinstance(got, requests.Refused)
    assert got.rid is None and got.error is not None and got.error.code == rpc.PARSE_ERROR


def test_a_lone_surrogate_in_a_calls_params_is_refused_naming_the_parameter():
    got = requests.parse_line(b'{"jsonrpc":"2.0","id":7,"method":"search","params":{"query":"a\\ud800"}}')
    assert isinstance(got, requests.Refused)
    assert got.rid == 7 and got.error is not None
    assert got.error.code == rpc.INVALID_PARAMS and got.error.data == {"parameter": "query"}


def test_a_lone_surrogate_in_a_message_without_an_id_is_refused_with_a_null_id():
    got = requests.parse_line(b'{"jsonrpc":"2.0","method":"search","params":{"query":"a\\ud800"}}')
    assert isinstance(got, requests.Refused)
    assert got.rid is None and got.error is not None and got.error.code == rpc.INVALID_REQUEST


@pytest.mark.parametrize("msg,valid,is_call", [
    ({"jsonrpc": "2.0", "id": 1, "method": "search"}, True, True),
    ({"jsonrpc": "2.0", "id": "x", "method": "search"}, True, True),
    ({"jsonrpc": "2.0", "method": "search"}, True, False),  # a notification
    ({"jsonrpc": "2.0", "id": None, "method": "search"}, True, False),  # id null: answered by nothing
    ({"jsonrpc": "2.0", "id": True, "method": "search"}, False, True),  # a bool is not an id
    ({"jsonrpc": "2.0", "id": 1.5, "method": "search"}, False, True),
    ({"jsonrpc": "1.0", "id": 1, "method": "search"}, False, True),
    ({"jsonrpc": "2.0", "id": 1, "method": 3}, False, True),
    ([{"jsonrpc": "2.0", "id": 1, "method": "search"}], False, False),
])
def test_the_envelope_says_whether_a_message_is_a_request_and_whether_it_wants_an_answer(msg, valid, is_call):
    req = requests.parse_line(json.dumps(msg).encode())
    assert isinstance(req, requests.Request)
    assert (req.valid, req.is_call) == (valid, is_call)


def test_a_batch_is_refused_as_such_and_a_bad_id_is_not_echoed():
    rid, err = requests.envelope_error(requests.Request.of([{"jsonrpc": "2.0"}]))
    assert rid is None and err.code == rpc.INVALID_REQUEST and "batch" in err.message
    rid, err = requests.envelope_error(requests.Request.of({"jsonrpc": "2.0", "id": 1.5, "method": "x"}))
    assert rid is None and err.message == "not a JSON-RPC 2.0 request"


def test_absent_or_null_params_are_an_empty_object():
    assert requests.Request.of({"jsonrpc": "2.0", "id": 1, "method": "hello"}).params == {}
    assert requests.Request.of({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": None}).params == {}


def test_the_call_check_names_the_unknown_method_the_wrong_params_and_the_bad_parameter():
    methods = frozenset({"search", "hello"})

    def error_of(msg: dict) -> protocol.RpcError:
        with pytest.raises(protocol.RpcError) as e:
            requests.check_call(requests.Request.of({"jsonrpc": "2.0", "id": 1, **msg}), methods)
        return e.value

    unknown = error_of({"method": "serch"})
    assert unknown.code == rpc.METHOD_NOT_FOUND and unknown.data == {"methods": ["hello", "search"]}
    assert error_of({"method": "search", "params": ["q"]}).code == rpc.INVALID_PARAMS
    bad_limit = error_of({"method": "search", "params": {"query": "q", "limit": 0}})
    assert bad_limit.code == rpc.INVALID_PARAMS and bad_limit.data == {"parameter": "limit"}
    requests.check_call(requests.Request.of({"jsonrpc": "2.0", "id": 1, "method": "search",
                                             "params": {"query": "q", "limit": 3}}), methods)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[tuple[Connection, socket.socket]]:
    """A connection of a real (not serving) daemon over a socketpair; the
    other end is the client's."""
    vault = tmp_path / "vault"
    vault.mkdir()
    rt = open_runtime(vault, index_path=tmp_path / "index.sqlite")
    daemon = Daemon(rt, TOKEN)
    ours, theirs = socket.socketpair()
    c = Connection(daemon, ours, "t1")
    c.peer_is_owner = False  # prove it by the token, as a TCP client does
    theirs.settimeout(5)
    try:
        yield c, theirs
    finally:
        daemon.stop()
        ours.close()
        theirs.close()
        rt.close()


def read_reply(sock: socket.socket) -> dict:
    buf = b""
    while not buf.endswith(b"\n"):
        buf += sock.recv(65536)
    return json.loads(buf)


def line(msg: dict) -> bytes:
    return json.dumps(msg).encode()


def test_before_hello_anything_else_closes_the_connection_unanswered(conn):
    c, _ = conn
    assert c._handle_line(line({"jsonrpc": "2.0", "id": 1, "method": "search", "params": {"query": "q"}})) is False
    assert c._handle_line(b"not json") is False
    assert c._handle_line(line({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": "wrong"}})) is False
    assert not c.authenticated


def test_a_hello_with_the_token_authenticates_and_is_answered(conn):
    c, client = conn
    assert c._handle_line(line({"jsonrpc": "2.0", "id": 1, "method": "hello",
                                "params": {"token": TOKEN, "client": "steps"}})) is True
    assert c.authenticated and c.client_name == "steps"
    reply = read_reply(client)
    assert reply["id"] == 1 and reply["result"]["protocol_version"] == rpc.PROTOCOL_VERSION


def test_after_hello_a_bad_line_is_answered_and_the_connection_stays(conn):
    c, client = conn
    c.authenticated = True
    assert c._handle_line(b"{") is True
    assert read_reply(client)["error"]["code"] == rpc.PARSE_ERROR
    assert c._handle_line(line({"jsonrpc": "2.0", "id": 2, "method": "nope"})) is True
    assert read_reply(client)["error"]["code"] == rpc.METHOD_NOT_FOUND


def test_a_call_whose_id_is_already_pending_is_refused_and_the_first_keeps_its_id(conn):
    c, client = conn
    c.authenticated = True
    first = _Pending("search")
    c.pending[5] = first
    c._schedule(requests.Request.of({"jsonrpc": "2.0", "id": 5, "method": "search", "params": {"query": "q"}}))
    reply = read_reply(client)
    assert reply["id"] == 5 and reply["error"]["code"] == rpc.INVALID_REQUEST
    assert "already pending" in reply["error"]["message"]
    assert c.pending == {5: first}


def test_an_inline_method_is_answered_on_the_reader_without_scheduling(conn):
    c, client = conn
    c.authenticated = True
    assert c._handle_line(line({"jsonrpc": "2.0", "id": 3, "method": "subscribe",
                                "params": {"events": ["index.progress"]}})) is True
    assert read_reply(client) == {"jsonrpc": "2.0", "id": 3, "result": {"subscribed": ["index.progress"]}}
    assert c.pending == {}
