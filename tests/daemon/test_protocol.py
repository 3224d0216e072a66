"""The socket protocol against a real daemon process: authentication,
permissions, framing errors, every method's result against its JSON Schema,
cancel, disconnects, and concurrent clients during a reindex."""

from __future__ import annotations

import json
import os
import stat
import threading
import time

import pytest

from groove.daemon import discovery, protocol
from groove.daemon.client import ConnectError, DaemonClient, RpcError, open_socket
from groove.wire import rpc

from .conftest import new_daemon


def assert_valid(kind: str, name: str, obj: object) -> None:
    errors = list(protocol.validator(kind, name).iter_errors(obj))
    assert not errors, f"{kind} of {name} breaks the schema: {errors[0].message} at {list(errors[0].absolute_path)}"


def raw_exchange(info: dict, payload: bytes, wait: float = 5.0) -> bytes:
    """Send bytes on a fresh connection; everything received until the daemon closes."""
    s = open_socket(info)
    s.settimeout(wait)
    try:
        s.sendall(payload)
        got = b""
        while True:
            try:
                chunk = s.recv(65536)
            except TimeoutError:
                return got + b"<still open>"
            if not chunk:
                return got
            got += chunk
    finally:
        s.close()


@pytest.fixture(scope="module")
def shared(module_home, tiny_model):
    d = new_daemon(module_home, tiny_model, n=40)
    d.start()
    yield d
    d.stop()


@pytest.fixture
def daemon(shared, groove_home):
    return shared


def hello_line(token: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": token}}).encode() + b"\n"


def test_hello_then_search_returns_schema_valid_hits(daemon):
    with daemon.client() as c:
        assert_valid("result", "hello", c.hello)
        assert c.hello["protocol_version"] == 1
        assert set(c.hello["capabilities"]) >= {"search", "cancel", "index_status", "reindex", "subscribe"}
        daemon.wait_idle(c)
        resp = c.search("coffee", limit=5)
        assert_valid("result", "search", resp)
        assert resp["results"], "an indexed vault about coffee finds coffee"
        assert all(h["path"].endswith(".md") for h in resp["results"])
        assert all("explain" not in h for h in resp["results"])
        told = c.search("coffee", limit=5, explain=True)
        assert_valid("result", "search", told)
        assert [h["chunk_id"] for h in told["results"]] == [h["chunk_id"] for h in resp["results"]]
        assert all(h["explain"]["legs"] and h["explain"]["final_rank"] == h["rank"] for h in told["results"])
        assert resp["confidence"] is None and told["confidence"]["low_confidence"] == told["low_confidence"]


def test_wrong_token_is_closed_without_any_data(daemon):
    info = daemon.info
    assert raw_exchange(info, hello_line("0" * 64)) == b""
    assert raw_exchange(info, hello_line(info["token"][:-1])) == b""
    with pytest.raises(ConnectError):
        DaemonClient.connect({**info, "token": "nope"})


def test_this_users_own_process_may_say_hello_without_the_token_on_a_unix_socket(daemon):
    """ADR 0126: on a unix socket the kernel's word on the peer's uid stands
    in for the token (the CLI then never opens the OS keyring); a token that
    is given must still be right."""
    from groove.daemon.admission import PEER_UID_READABLE

    info = daemon.info
    if info["transport"] != "unix" or not PEER_UID_READABLE:
        pytest.skip("the peer's uid is readable on unix sockets on Linux, macOS and FreeBSD only")
    for token in ("", None):
        anon = {**info, "token": token}
        with DaemonClient.connect(anon, client="no-token") as c:
            assert c.hello["protocol_version"] == 1 and c.call("index_status")["documents"] > 0
    assert raw_exchange(info, hello_line("0" * 64)) == b""
    not_an_object = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "hello", "params": ["x"]}).encode()
    assert raw_exchange(info, not_an_object + b"\n") == b""


def test_finding_the_daemon_reads_no_token_when_the_kernel_vouches(daemon, monkeypatch):
    """The CLI's path: with the keyring store, reading the token costs
    ~100 ms; find_daemon must not need it on a unix socket."""
    from groove.daemon import auth, client
    from groove.daemon.admission import PEER_UID_READABLE

    if daemon.info["transport"] != "unix" or not PEER_UID_READABLE:
        pytest.skip("the peer's uid is readable on unix sockets on Linux, macOS and FreeBSD only")

    def no_token(*_a, **_k):
        raise AssertionError("the token was read")

    monkeypatch.setattr(auth, "load_token", no_token)
    c = client.find_daemon(daemon.vault, client="pytest-cli")
    assert c is not None, "find_daemon gave up: it tried to read the token"
    with c:
        assert c.call("index_status")["documents"] > 0


def test_a_daemon_that_wants_the_token_gets_it_on_a_second_connection(daemon, monkeypatch):
    """An older daemon (or a platform where the uid cannot be read) closes a
    token-less hello; the client then reads the token and connects again."""
    from groove.daemon import client

    attempts: list[str] = []
    real = client.DaemonClient.connect.__func__

    def picky(cls, info, **kw):
        attempts.append(info.get("token") or "")
        if not info.get("token"):
            raise ConnectError("closed without a word")
        return real(cls, info, **kw)

    monkeypatch.setattr(client.DaemonClient, "connect", classmethod(picky))
    with client.connect(daemon.vault, client="pytest-old") as c:
        assert c.call("index_status")["documents"] > 0
    if client.PEER_UID_READABLE:
        assert attempts == ["", daemon.info["token"]]
    else:
        assert attempts == [daemon.info["token"]]


def test_request_before_hello_is_closed_without_any_data(daemon):
    info = daemon.info
    search = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "search", "params": {"query": "coffee"}}).encode()
    assert raw_exchange(info, search + b"\n") == b""
    assert raw_exchange(info, b"not json at all\n") == b""
    assert raw_exchange(info, b"x" * (protocol.MAX_REQUEST_BYTES + 10)) == b""


def test_silent_or_dribbling_connection_is_dropped_after_the_hello_timeout(daemon, monkeypatch):
    from groove.daemon import server

    s = open_socket(daemon.info)
    s.settimeout(server.HELLO_TIMEOUT_S + 10)
    t0 = time.monotonic()
    try:
        for _ in range(int(server.HELLO_TIMEOUT_S) + 5):  # blank lines never count as a hello
            s.sendall(b"\n")
            time.sleep(1.0)
    except OSError:
        pass
    assert s.recv(100) == b""
    assert time.monotonic() - t0 < server.HELLO_TIMEOUT_S + 8
    s.close()


@pytest.mark.parametrize("authenticated", [False, True])
def test_a_client_holding_every_connection_open_cannot_lock_others_out(daemon, authenticated):
    """Issue 15 D9: 64 idle connections (with or without a hello) used to
    keep every other client out; now the idlest makes room at once."""
    from groove.daemon import server

    info = daemon.info
    hoard = []
    try:
        for _ in range(server.MAX_CONNECTIONS):
            s = open_socket(info)
            if authenticated:
                s.sendall(hello_line(info["token"]))
                s.settimeout(5)
                assert b"result" in s.recv(65536)
            hoard.append(s)
        t0 = time.monotonic()
        with DaemonClient.connect(info, client="late") as c:
            assert c.search("coffee", limit=3)["results"]
        assert time.monotonic() - t0 < 3.0
        # The hoarder lost a connection; it was told nothing, just closed.
        dropped = 0
        for s in hoard:
            s.settimeout(0.01)
            try:
                dropped += s.recv(1) == b""
            except (TimeoutError, OSError):
                pass
        assert dropped >= 1
    finally:
        for s in hoard:
            s.close()


def test_correct_hello_over_raw_socket_gets_exactly_one_line(daemon):
    info = daemon.info
    out = raw_exchange(info, hello_line(info["token"]), wait=1.0)
    assert out.endswith(b"<still open>")
    line = out[: -len(b"<still open>")]
    assert line.count(b"\n") == 1
    assert json.loads(line)["result"]["vault"] == str(daemon.vault)


def test_socket_state_and_token_files_are_private(daemon, groove_home):
    f = discovery.files_for(daemon.vault)
    st = os.stat(f.socket)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o600
    assert stat.S_IMODE(os.stat(f.socket.parent).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(f.state).st_mode) == 0o600
    token_file = f.socket.parent / f"{f.key}.token"
    assert stat.S_IMODE(os.stat(token_file).st_mode) == 0o600
    assert daemon.info["token"] not in f.state.read_text(), "the state file must not carry the token"


def test_malformed_line_gets_parse_error_and_connection_stays_usable(daemon):
    with daemon.client() as c:
        c.send_raw(b"{this is not json\n")
        err = c.wait_notification("$error", 5)
        assert err["code"] == rpc.PARSE_ERROR
        c.send_raw(b'[{"jsonrpc": "2.0", "id": 99, "method": "index_status"}]\n')
        assert c.wait_notification("$error", 5)["code"] == rpc.INVALID_REQUEST
        c.send_raw(b"[" * 100_000 + b"\n")  # nesting deeper than the decoder's recursion limit
        assert c.wait_notification("$error", 5)["code"] == rpc.PARSE_ERROR
        c.send_raw(b"\xff\xfe{}\n")
        assert c.wait_notification("$error", 5)["code"] == rpc.PARSE_ERROR
        assert c.index_status()["documents"] >= 0


def test_oversized_request_is_refused_and_connection_stays_usable(daemon):
    with daemon.client() as c:
        big = json.dumps({"jsonrpc": "2.0", "id": 5, "method": "search",
                          "params": {"query": "a" * (protocol.MAX_REQUEST_BYTES + 100)}}).encode() + b"\n"
        c.send_raw(big)
        err = c.wait_notification("$error", 10)
        assert err["code"] == rpc.INVALID_REQUEST and "larger" in err["message"]
        assert_valid("result", "index_status", c.index_status())


def test_error_codes_for_unknown_method_bad_params_and_bad_query(daemon):
    with daemon.client() as c:
        with pytest.raises(RpcError) as e:
            c.call("frobnicate", {})
        assert e.value.code == rpc.METHOD_NOT_FOUND
        with pytest.raises(RpcError) as e:
            c.call("search", {"query": "x", "limt": 3})
        assert e.value.code == rpc.INVALID_PARAMS and "limt" in e.value.message
        with pytest.raises(RpcError) as e:
            c.call("search", {"query": "x", "mmr_lambda": 3})
        assert e.value.code == rpc.INVALID_PARAMS and e.value.data["parameter"] == "mmr_lambda"
        with pytest.raises(RpcError) as e:
            c.search("-coffee")
        assert e.value.code == rpc.BAD_QUERY
        with pytest.raises(RpcError) as e:
            c.call("get_document", {"path": "../../etc/passwd"})
        assert e.value.code == rpc.PATH_NOT_FOUND


def test_every_method_result_matches_its_schema(daemon):
    with daemon.client() as c:
        daemon.wait_idle(c)
        assert_valid("result", "index_status", c.index_status())
        assert_valid("result", "reindex", c.reindex())
        assert_valid("result", "subscribe", c.call("subscribe", {"events": ["index.changed"]}))
        hit = c.search("garden", limit=1)["results"][0]
        path = hit["path"]
        assert_valid("result", "get_document", c.get_document(path))
        assert_valid("result", "get_document", c.get_document(path, heading="Details"))
        assert_valid("result", "related_notes", c.related_notes(path, limit=3))
        by_chunk = c.call("related_notes", {"path": path, "chunk_id": hit["chunk_id"], "limit": 2})
        assert_valid("result", "related_notes", by_chunk)
        stem = path.rsplit("/", 1)[-1][:-3]
        link = c.resolve_link(f"[[{stem}#Details]]")
        assert_valid("result", "resolve_link", link)
        assert link["exists"] and link["path"] == path
        assert_valid("result", "cancel", c.call("cancel", {"id": 123456}))


def test_cancel_drops_pending_searches_with_cancelled_error(daemon):
    with daemon.client() as c:
        daemon.wait_idle(c)
        calls = [c.request("search", {"query": f"coffee tea garden {i}", "limit": 20}) for i in range(200)]
        cancels = [c.request("cancel", {"id": p.id}) for p in calls]
        cancelled = [x.result(30)["cancelled"] for x in cancels]
        outcomes = []
        for p in calls:
            try:
                assert_valid("result", "search", p.result(30))
                outcomes.append(False)
            except RpcError as e:
                assert e.code == rpc.CANCELLED
                outcomes.append(True)
        assert outcomes == cancelled, "cancelled: true exactly for the requests that then fail with -32800"
        assert any(cancelled), "typing fast: queued searches must be droppable"
        assert c.search("coffee")["results"]


def test_client_disconnecting_mid_request_does_not_disturb_others(daemon):
    with daemon.client("steady") as steady:
        daemon.wait_idle(steady)
        for _ in range(5):
            rude = daemon.client("rude")
            for i in range(20):
                rude.request("search", {"query": f"music travel {i}"})
            rude.close()
            assert steady.search("music")["results"]
        assert_valid("result", "index_status", steady.index_status())


def test_eight_clients_times_200_searches_during_reindex_all_succeed(spawn):
    daemon = spawn(n=150)
    queries = ["coffee", "tea garden", "python code", "travel japan", "music -tea", '"bread recipe"',
               "meeting notes plans", "ideas books"]
    with daemon.client("indexer") as ctl:
        daemon.wait_idle(ctl)
        ctl.subscribe("index.progress")
        reindex = ctl.request("reindex", {"force": True})
        ctl.wait_notification("index.progress", 30, lambda p: p["phase"] == "embed")
        errors: list[str] = []
        during = [0]
        done = {"reindex": False}

        def client_loop(k: int) -> None:
            try:
                with daemon.client(f"c{k}") as c:
                    for i in range(200):
                        params = {"query": queries[(k + i) % len(queries)], "limit": 5 + i % 5}
                        if i % 7 == 0:
                            params["path_globs"] = ["projects/**"]
                        resp = c.call("search", params, timeout=60)
                        v = list(protocol.validator("result", "search").iter_errors(resp))
                        if v:
                            errors.append(v[0].message)
                        if not done["reindex"]:
                            during[0] += 1
            except Exception as e:  # noqa: BLE001 - collected and asserted below
                errors.append(repr(e))

        threads = [threading.Thread(target=client_loop, args=(k,)) for k in range(8)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        summary = reindex.result(120)
        done["reindex"] = True
        for t in threads:
            t.join(120)
        assert not errors, errors[:5]
        assert_valid("result", "reindex", summary)
        assert summary["indexed"] == 150
        assert during[0] > 0, "some searches must have run while the reindex did"
        print(f"1600 searches in {time.monotonic() - t0:.1f}s, {during[0]} during the reindex")
