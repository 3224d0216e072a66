"""A client that never reads its replies holds only its own connection
(issue 50 R5): real daemon, real sockets."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

from groove.daemon.client import open_socket
from groove.daemon.outbox import MAX_QUEUED_BYTES, READ_PAUSE_BYTES, SEND_STALL_S

from .conftest import make_vault

BIG_NOTES = 40
PARAGRAPH = "The river runs past the old mill and the apple orchard behind it. " * 10 + "\n\n"


def _vault(root: Path) -> Path:
    vault = make_vault(root, n=5)
    (vault / "big").mkdir()
    for i in range(BIG_NOTES):  # ~40 KB each: get_document sends up to 40,000 characters
        (vault / "big" / f"log{i:02d}.md").write_text(f"# Log {i}\n\n" + PARAGRAPH * 60, encoding="utf-8")
    return vault


def _line(rid: int, method: str, params: dict) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params}).encode() + b"\n"


def _read_replies(s: socket.socket, n: int, timeout: float, buf: bytes = b"") -> dict[int, dict]:
    s.settimeout(timeout)
    out: dict[int, dict] = {}
    *lines, buf = buf.split(b"\n")
    for ln in lines:
        msg = json.loads(ln)
        out[msg["id"]] = msg
    while len(out) < n:
        chunk = s.recv(1 << 20)
        assert chunk, f"the daemon closed the connection after {len(out)} of {n} replies"
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for ln in lines:
            msg = json.loads(ln)
            out[msg["id"]] = msg
    return out


def test_a_client_that_reads_nothing_does_not_hold_another_clients_requests(spawn, tmp_path: Path) -> None:
    d = spawn(vault=_vault(tmp_path))
    assert BIG_NOTES * 40_000 < READ_PAUSE_BYTES < MAX_QUEUED_BYTES  # the stalled client is not dropped for size
    with d.client("reader") as c:
        d.wait_idle(c, timeout=300)
        stalled = open_socket(d.info)
        try:
            stalled.sendall(_line(1, "hello", {"token": d.info["token"], "client": "never reads"}))
            assert _read_replies(stalled, 1, 10.0)[1]["result"]["protocol_version"]
            # 40 replies of ~40 KB, far more than the socket buffers: the daemon's
            # writes to this client stall, and it does not read a byte.
            stalled.sendall(b"".join(_line(100 + i, "get_document", {"path": f"big/log{i:02d}.md"})
                                     for i in range(BIG_NOTES)))
            time.sleep(1.0)  # the pool takes them all up
            # Answered while the stalled client is still connected, its replies
            # waiting (it is dropped after SEND_STALL_S without reading), not after.
            c.call("index_status", {}, timeout=SEND_STALL_S / 2)
            # The stalled client, still connected, gets every reply whole once it reads.
            replies = _read_replies(stalled, BIG_NOTES, 30.0)
            assert sorted(replies) == [100 + i for i in range(BIG_NOTES)]
            assert all(len(r["result"]["content"]) > 30_000 for r in replies.values())
        finally:
            stalled.close()
        assert c.index_status()["documents"] == 5 + BIG_NOTES


def test_a_long_pipeline_of_one_client_does_not_queue_ahead_of_another(spawn) -> None:
    """200 searches sent at once by one client take the pool a few at a time:
    another client's request is answered among the first of them, not after all."""
    d = spawn()
    n = 200  # small replies (limit 1): all of them fit the socket's buffer unread
    with d.client("other") as c:
        d.wait_idle(c, timeout=300)
        greedy = open_socket(d.info)
        try:
            greedy.sendall(_line(1, "hello", {"token": d.info["token"], "client": "pipeline"}))
            _read_replies(greedy, 1, 10.0)
            greedy.sendall(b"".join(_line(10 + i, "search", {"query": f"river mill apple {i}", "limit": 1})
                                    for i in range(n)))
            # Its first replies are out: the daemon has read the whole pipeline (one read).
            greedy.settimeout(120)
            deadline = time.monotonic() + 120
            while greedy.recv(1 << 20, socket.MSG_PEEK).count(b"\n") < 5 and time.monotonic() < deadline:
                time.sleep(0.01)
            c.call("index_status", {}, timeout=300)
            before, rest = _replies_waiting(greedy)  # those sent before the other client's answer
            after = _read_replies(greedy, n - before, 300.0, rest)
        finally:
            greedy.close()
    assert len(after) == n - before
    assert before < n // 3, f"{before} of the pipeline's {n} searches were answered first"


def _replies_waiting(s: socket.socket) -> tuple[int, bytes]:
    """How many whole replies are already in the socket (read without
    waiting), and the bytes read past the last of them."""
    s.setblocking(False)
    buf = b""
    try:
        while True:
            chunk = s.recv(1 << 20)
            if not chunk:
                break
            buf += chunk
    except BlockingIOError:
        pass
    s.setblocking(True)
    done = buf.count(b"\n")
    return done, buf[buf.rfind(b"\n") + 1:]
