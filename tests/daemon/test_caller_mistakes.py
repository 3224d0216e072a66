"""Over the socket a caller's mistake is -32602 naming the parameter (or
-32700 for a line that is not JSON), never an internal error, and the
daemon's log holds no traceback for it (issue 15, D12)."""

from __future__ import annotations

import pytest

from groove.daemon.client import RpcError
from groove.wire import rpc


@pytest.fixture(scope="module")
def daemon(module_home, tiny_model):
    from .conftest import new_daemon

    d = new_daemon(module_home, tiny_model, n=12)
    d.start()
    yield d
    d.stop()


@pytest.mark.parametrize("params,param", [
    ({"query": "coffee", "rerank": True}, "rerank"),  # no reranker configured
    ({"query": "coffee", "reranker": "no-such-model.gguf"}, "reranker"),
    ({"query": "coffee", "date_from": "2024-13-45"}, "date_from"),
    ({"query": "coffee", "limit": "3"}, "limit"),  # a wrong type, caught by the schema
])
def test_a_bad_search_argument_is_invalid_params_naming_it(daemon, groove_home, params, param):
    with daemon.client() as c:
        with pytest.raises(RpcError) as e:
            c.call("search", params)
    assert e.value.code == rpc.INVALID_PARAMS, e.value.message
    assert e.value.data == {"parameter": param}
    assert "internal" not in e.value.message


def test_a_bad_note_argument_is_invalid_params_naming_it(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        with pytest.raises(RpcError) as e:
            c.call("get_document", {"path": "journal/note001.md", "heading": "No such heading"})
        assert e.value.code == rpc.INVALID_PARAMS and e.value.data == {"parameter": "heading"}
        with pytest.raises(RpcError) as e:
            c.call("resolve_link", {"link": "   "})
        assert e.value.code == rpc.INVALID_PARAMS and e.value.data == {"parameter": "link"}


def test_a_request_id_of_5000_digits_is_a_parse_error_and_the_connection_lives(daemon, groove_home):
    with daemon.client() as c:
        c.send_raw(b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "index_status"}\n')
        err = c.wait_notification("$error", 10)
        assert err["code"] == rpc.PARSE_ERROR
        assert c.index_status()["documents"] >= 0


def test_caller_mistakes_leave_no_traceback_in_the_log(daemon, groove_home):
    with daemon.client() as c:
        for params in ({"query": "x", "rerank": True}, {"query": "-x"}, {"query": "x", "mmr_lambda": 3}):
            with pytest.raises(RpcError):
                c.call("search", params)
        c.send_raw(b'{"jsonrpc": "2.0", "id": ' + b"1" * 5000 + b', "method": "search"}\n')
        c.wait_notification("$error", 10)
        c.index_status()  # every line above was handled before this answer
    log = daemon.log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log[-3000:]


@pytest.mark.parametrize("line", [
    '{"jsonrpc": "2.0", "id": 7, "method": "get_document", "params": {"path": "\\udc80.md"}}',
    '{"jsonrpc": "2.0", "id": 7, "method": "search", "params": {"query": "coffee", "path_globs": ["\\ud800"]}}',
    '{"jsonrpc": "2.0", "id": 7, "method": "search", "params": {"query": "\\ud800 coffee"}}',
    '{"jsonrpc": "2.0", "id": 7, "method": "resolve_link", "params": {"link": "\\udfff"}}',
    '{"jsonrpc": "2.0", "id": "\\ud800", "method": "index_status"}',
])
def test_a_lone_surrogate_in_a_request_gets_exactly_one_answer(daemon, groove_home, line):
    """Issue 15 D7: JSON may escape a lone surrogate; UTF-8 cannot carry one.
    Such a request is answered (an error naming the problem, or a result),
    never left hanging, and the connection goes on."""
    import json

    from groove.daemon.client import open_socket

    info = daemon.info
    s = open_socket(info)
    s.settimeout(10)
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": info["token"]}})
              .encode() + b"\n" + line.encode() + b"\n"
              + b'{"jsonrpc": "2.0", "id": 8, "method": "index_status"}\n')
    got = b""
    try:
        while got.count(b"\n") < 3:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
    except TimeoutError:
        pass
    finally:
        s.close()
    replies = [json.loads(x) for x in got.splitlines()]
    assert len(replies) == 3, got[-500:]
    answer = next(r for r in replies[1:] if r["id"] != 8)  # the id-less error for a bad id is null
    if "error" in answer:
        assert answer["error"]["code"] in (rpc.INVALID_PARAMS, rpc.INVALID_REQUEST), answer
        assert "internal" not in answer["error"]["message"]
    assert any(r["id"] == 8 and "result" in r for r in replies)


def test_an_error_quotes_at_most_a_short_piece_of_the_input(daemon, groove_home):
    """Issue 15 D11: a 100 KB argument gets a short error, not itself back."""
    with daemon.client() as c:
        for params in ({"query": "coffee", "path_globs": ["x" * 100_000]},
                       {"query": "coffee", "date_from": "9" * 100_000},
                       {"query": "x" * 100_000}):
            with pytest.raises(RpcError) as e:
                c.call("search", params)
            assert e.value.code == rpc.INVALID_PARAMS
            assert len(e.value.message) + len(str(e.value.data)) < 600, e.value.message[:300]
        with pytest.raises(RpcError) as e:
            c.call("get_document", {"path": "y" * 100_000 + ".md"})
        assert len(e.value.message) < 600, e.value.message[:300]


def test_a_client_name_cannot_forge_log_lines(daemon, groove_home):
    """Issue 15 D14: the name a client gives in hello is logged escaped."""
    from groove.daemon.client import DaemonClient

    evil = "ed\nERROR groove.daemon.server: forged\x1b[31m"
    with DaemonClient.connect(daemon.info, client=evil) as c:
        c.index_status()
    log = daemon.log.read_text(encoding="utf-8", errors="replace")
    assert "\x1b[31m" not in log
    assert not any(line.startswith("ERROR groove.daemon.server: forged") for line in log.splitlines())
