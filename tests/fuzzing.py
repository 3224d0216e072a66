"""Fuzzed socket requests and the harness that sends them (issue 15): the
test (tests/daemon/test_fuzz.py) runs a few hundred against the tiny model,
bench/fuzz.py ten thousand against the default one.

Every line is sent on an authenticated connection followed by a cheap probe
(``cancel`` of an id nobody uses). A request with a usable id must be
answered; nothing may be an internal error (-32000); the connection must
outlive every line.
"""

from __future__ import annotations

import json
import random
import socket
import time
from dataclasses import dataclass, field
from typing import Any

WORDS = ["sync", "vault", "note", "link", "plugin", "canvas", "hotkey", "graph", "tag", "daily", "coffee",
         "garden", "同期", "ノート", "リンク", "設定", "プラグイン", "日本語", "検索",
         "a", "the", "of", "OR", "AND", "NOT", "NEAR"]
PIECES = ['"', "-", "*", "(", ")", ":", "^", "#", "[[", "]]", "|", "\\", "'", "`", "~", "+", "{", "}", "/", "..",
          "\x00", "\t", "\n", "\u200b", "\u202e", "\u0301", "😀", "👩‍👩‍👧", "\ufeff", "\U0010ffff", "\ud800", "\udc80",
          "ｓｙｎｃ", "Ⅻ", "ﬁ", "İ", "ß", "\u3000", "%2e%2e", "NEAR(a b)", "a*b", "^sync", "col:sync"]
METHODS = ["search", "get_document", "related_notes", "resolve_link", "index_status", "cancel", "subscribe"]


def fuzz_query(rng: random.Random) -> str:
    shape = rng.random()
    if shape < 0.05:  # one thing, repeated a lot
        return rng.choice(WORDS + PIECES) * rng.randint(100, 5000)
    if shape < 0.10:
        return (rng.choice(WORDS) + " ") * rng.randint(100, 2500)
    if shape < 0.15:  # random code points, any plane
        return "".join(chr(rng.choice([rng.randint(1, 0x7f), rng.randint(0x80, 0x2fff), rng.randint(0x3000, 0x9fff),
                                       rng.randint(0xd800, 0xdfff), rng.randint(0xe000, 0x10ffff)]))
                       for _ in range(rng.randint(1, 300)))
    parts = [rng.choice(WORDS) if rng.random() < 0.6 else rng.choice(PIECES) for _ in range(rng.randint(0, 30))]
    sep = rng.choice([" ", "", "  ", " - ", '" "'])
    return sep.join(parts)


def _junk(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -1, 1.5, 10**30, -(10**30), "", "x" * rng.randint(1, 3000), [], {},
                       [1, "a"], {"a": {"b": [None]}}, "\ud800", float("1e308"), "../../etc/passwd", "*"])


def fuzz_params(rng: random.Random, method: str) -> Any:
    if rng.random() < 0.05:
        return _junk(rng)  # not an object at all
    p: dict[str, Any] = {}
    if method == "search":
        p["query"] = fuzz_query(rng) if rng.random() < 0.95 else _junk(rng)
        for key, good in [("limit", lambda: rng.randint(1, 60)), ("mmr", lambda: True),
                          ("mmr_lambda", lambda: rng.random()), ("parent_retriever", lambda: True),
                          ("explain", lambda: True), ("path_globs", lambda: [rng.choice(["**", "journal/**", "*.md",
                                                                                        "[", "**/**/**", "a{b,c}"])]),
                          ("tags_any", lambda: [rng.choice(["#x", "a/b", "", "タグ"])]),
                          ("date_from", lambda: rng.choice(["2024-01-01", "2024-02-30", "0000-00-00"])),
                          ("min_confidence_ratio", lambda: rng.random()), ("rerank", lambda: True)]:
            r = rng.random()
            if r < 0.15:
                p[key] = good()
            elif r < 0.20:
                p[key] = _junk(rng)
    elif method in ("get_document", "related_notes"):
        p["path"] = rng.choice(["journal/note001.md", "note001", "Note 1", "../x.md", "/etc/passwd", "",
                                "journal/../journal/note001.md", "journal\\note001.md", "\x00.md", "\udc80.md",
                                fuzz_query(rng)[:300], "x" * rng.randint(1, 6000)])
        if method == "get_document" and rng.random() < 0.5:
            p[rng.choice(["heading", "line_start", "line_end", "max_chars"])] = rng.choice(
                [1, 0, -5, 10**9, "Details", "", _junk(rng)])
        if method == "related_notes" and rng.random() < 0.3:
            p = {"chunk_id": rng.choice([1, 0, -1, 10**12, "1", _junk(rng)])}
    elif method == "resolve_link":
        p["link"] = rng.choice(["note001", "Note 1#Details", "note001#^abc", "[[note001]]", "#", "^", "",
                                fuzz_query(rng)[:500]])
        if rng.random() < 0.3:
            p["from_path"] = rng.choice(["journal/note001.md", "../../x", _junk(rng)])
    elif method == "cancel":
        p["id"] = _junk(rng)
    elif method == "subscribe":
        p["events"] = rng.choice([["index.changed"], ["nope"], [], "index.changed", [_junk(rng)]])
    if rng.random() < 0.05:
        p[rng.choice(["extra", "Query", "__proto__", "\ud800"])] = _junk(rng)
    return p


@dataclass
class Line:
    data: bytes
    rid: Any = None  # the id an answer must carry; None = no answer owed
    method: str = ""


def fuzz_line(rng: random.Random, rid: int) -> Line:
    """One request line: mostly well-formed JSON-RPC with fuzzed params,
    some malformed envelopes, some bytes that are not JSON or not UTF-8."""
    r = rng.random()
    if r < 0.04:
        return Line(rng.choice([b"not json", b"{", b"\xff\xfe\x00garbage", b"[]", b"[1,2]", b"null", b'"str"',
                                b"{" * 5000 + b"}" * 5000, b"[" * 100_000,
                                b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b"}",
                                b"\xc3\x28", b'{"a":"\xed\xa0\x80"}']))
    method = rng.choice(METHODS) if rng.random() < 0.97 else rng.choice(["", "nope", "hello", "__init__", "search "])
    msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": fuzz_params(rng, method)}
    owed: Any = rid
    e = rng.random()
    if e < 0.03:
        msg.pop("jsonrpc")
        owed = None  # answered with -32600 and our id, or id null: either is fine
    elif e < 0.06:
        msg["id"] = _junk(rng)
        owed = None
    elif e < 0.08:
        owed = None  # a notification: runs, nothing owed
    if owed is not None:
        msg["id"] = rid
    if "id" not in msg and e >= 0.08:
        msg["id"] = rid
    return Line(json.dumps(msg, ensure_ascii=rng.random() < 0.5, allow_nan=True).encode("utf-8", "surrogatepass"),
                owed, method)


@dataclass
class Tally:
    sent: int = 0
    answered: int = 0
    unanswered: list[str] = field(default_factory=list)
    internal: list[str] = field(default_factory=list)
    by_code: dict[int, int] = field(default_factory=dict)
    search_ms: list[float] = field(default_factory=list)  # searches that returned results
    slow: list[tuple[float, bytes]] = field(default_factory=list)  # (ms, request line) of the slowest searches


PROBE_ID = "fuzz-probe"
SLOWEST_KEPT = 200


def run_fuzz(info: dict, n: int, seed: int, *, timeout: float = 60.0) -> Tally:
    """Send ``n`` fuzzed lines on one connection, each followed by a probe."""
    rng = random.Random(seed)
    t = Tally()
    sock = _connect(info)
    reader = _Reader(sock)
    for i in range(n):
        line = fuzz_line(rng, 1000 + i)
        probe = json.dumps({"jsonrpc": "2.0", "id": PROBE_ID, "method": "cancel", "params": {"id": "none"}}).encode()
        t0 = time.perf_counter()
        sock.sendall(line.data + b"\n" + probe + b"\n")
        t.sent += 1
        got_own = line.rid is None
        got_probe = False
        deadline = time.monotonic() + timeout
        while not (got_own and got_probe):
            msg = reader.next(deadline - time.monotonic())
            if msg is None:
                t.unanswered.append(f"{line.method}: {line.data[:200]!r}")
                sock.close()  # start afresh: the lost answer must not confuse the next line
                sock = _connect(info)
                reader = _Reader(sock)
                break
            if msg.get("id") == PROBE_ID:
                got_probe = True
                continue
            err = msg.get("error")
            if err:
                t.by_code[err["code"]] = t.by_code.get(err["code"], 0) + 1
                if err["code"] == -32000:
                    t.internal.append(f"{line.data[:200]!r} -> {err['message'][:200]}")
            if msg.get("id") == line.rid:
                got_own = True
                t.answered += 1
                if line.method == "search" and "result" in msg:
                    ms = (time.perf_counter() - t0) * 1000
                    t.search_ms.append(ms)
                    t.slow.append((ms, line.data))
                    t.slow = sorted(t.slow, reverse=True)[:SLOWEST_KEPT]
    sock.close()
    return t


def _connect(info: dict) -> socket.socket:
    from groove.daemon.client import open_socket

    s = open_socket(info)
    s.sendall(json.dumps({"jsonrpc": "2.0", "id": 0, "method": "hello",
                          "params": {"token": info["token"], "client": "fuzz"}}).encode() + b"\n")
    return s


class _Reader:
    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buf = sock, b""
        self.next(30.0)  # the hello answer

    def next(self, timeout: float) -> dict | None:
        while b"\n" not in self.buf:
            if timeout <= 0:
                return None
            self.sock.settimeout(timeout)
            try:
                chunk = self.sock.recv(1 << 16)
            except (TimeoutError, OSError):
                return None
            if not chunk:
                return None
            self.buf += chunk
        line, _, self.buf = self.buf.partition(b"\n")
        return json.loads(line)
