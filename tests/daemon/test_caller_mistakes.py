"""Over the socket a caller's mistake is -32602 naming the parameter (or
-32700 for a line that is not JSON), never an internal error, and the
daemon's log holds no traceback for it (issue 15, D12)."""

from __future__ import annotations

import pytest

from groove.daemon import protocol
from groove.daemon.client import RpcError


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
    assert e.value.code == protocol.INVALID_PARAMS, e.value.message
    assert e.value.data == {"parameter": param}
    assert "internal" not in e.value.message


def test_a_bad_note_argument_is_invalid_params_naming_it(daemon, groove_home):
    with daemon.client() as c:
        daemon.wait_idle(c)
        with pytest.raises(RpcError) as e:
            c.call("get_document", {"path": "journal/note001.md", "heading": "No such heading"})
        assert e.value.code == protocol.INVALID_PARAMS and e.value.data == {"parameter": "heading"}
        with pytest.raises(RpcError) as e:
            c.call("resolve_link", {"link": "   "})
        assert e.value.code == protocol.INVALID_PARAMS and e.value.data == {"parameter": "link"}


def test_a_request_id_of_5000_digits_is_a_parse_error_and_the_connection_lives(daemon, groove_home):
    with daemon.client() as c:
        c.send_raw(b'{"jsonrpc": "2.0", "id": ' + b"9" * 5000 + b', "method": "index_status"}\n')
        err = c.wait_notification("$error", 10)
        assert err["code"] == protocol.PARSE_ERROR
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
