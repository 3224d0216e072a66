"""kill -9 of `groove index` at random points, hostile files included: the
index is intact after every kill, and a rerun holds exactly what a clean
run holds. (bench/kill9_loop.py runs 20 rounds of this and of the daemon.)"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys

import pytest

from groove import operations
from helpers import HEALTHY, index_contents, index_health, make_runtime
from test_hostile_vault import build_hostile_vault
from test_indexer import _KILLABLE, write


def _skipped(rt) -> list[tuple[str, str]]:
    return sorted(rt.index.conn.execute("SELECT path, reason FROM skipped"))


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_three_kills_at_random_points_leave_an_intact_index_and_lose_nothing(tmp_path, tiny_model_path, tiny_embedder):
    vault = build_hostile_vault(tmp_path)
    for i in range(60):
        write(vault, f"plain/n{i:02}.md", f"# Note {i}\n\nText {i} on topic {i % 5}.\n\n## Part\n\nMore {i}.\n")
    ref_rt = make_runtime(vault, tiny_embedder, tmp_path / "ref")
    operations.reindex(ref_rt)
    want, want_skipped = index_contents(ref_rt.index.path), _skipped(ref_rt)
    index = tmp_path / "index.sqlite"
    rng = random.Random(15)
    for _ in range(3):
        target = rng.randrange(1, 25)
        proc = subprocess.Popen([sys.executable, "-c", _KILLABLE, str(vault), str(index), str(tiny_model_path)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("done") and int(line.split()[1]) >= target:
                break
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
        health = index_health(index)
        assert {k: health[k] for k in HEALTHY} == HEALTHY
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    assert rt.index.path == index
    operations.reindex(rt)
    assert index_contents(index) == want
    assert _skipped(rt) == want_skipped
