"""Fuzzed requests against a real daemon (issue 15): every request with an
id is answered, nothing is an internal error, the connection and the daemon
outlive every line, and the log holds no traceback. GROOVE_FUZZ_N scales it
(bench/fuzz.py runs 10,000 against the default model and reports timings)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzzing import run_fuzz  # noqa: E402

N = int(os.environ.get("GROOVE_FUZZ_N", "400"))


def test_fuzzed_requests_are_each_answered_and_none_is_an_internal_error(spawn):
    d = spawn(n=30)
    with d.client("fuzz-setup") as c:
        d.wait_idle(c)
    t = run_fuzz(d.info, N, seed=7)
    print(f"fuzz: {t.sent} lines, {t.answered} answered, codes {t.by_code}, "
          f"slowest search {max(t.search_ms, default=0):.0f} ms")
    assert not t.unanswered, t.unanswered[:5]
    assert not t.internal, "\n".join(x[-300:] for x in t.internal)
    assert t.answered > N * 0.8
    assert d.proc.poll() is None
    with d.client("fuzz-after") as c:
        assert c.search("coffee", limit=3)["results"]
    log = d.log.read_text(encoding="utf-8", errors="replace")
    assert "Traceback" not in log, log[log.find("Traceback") - 500:][:3000]
