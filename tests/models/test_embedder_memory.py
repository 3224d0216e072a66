"""What the default embedder keeps in memory (ADR 0096). llama.cpp reserves
n_vocab floats of output per sequence a decode may hold, and per token a
pooled decode produced; e5's vocabulary is 250,037 tokens, so each is ~1 MB.
Pinned in a fresh process each, as RSS ratios, never absolute sizes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.needs_default_model

PROBE = r"""
import json, sys
def rss_mb():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS'):
            return int(line.split()[1]) / 1024
from groove.models.default_model import default_model_path
from groove.models.llama_embedder import LlamaEmbedder
import llama_cpp  # imported before the baseline so only the model and its context count
before = rss_mb()
e = LlamaEmbedder(default_model_path(), family="e5", pack_sequences=sys.argv[1] == "packed")
out = {"rows": e.output_rows(), "vocab": e._llm.n_vocab(), "before": before, "loaded": rss_mb()}
e.embed_query("how do I sync my vault between devices")
out["after_query"] = rss_mb()
e.embed_passages(["sync settings and conflicts " * 100])   # ~500 tokens, cut at max_tokens
out["after_long_passage"] = rss_mb()
with e.holding_outputs():  # an indexing run: the buffer is kept between batches...
    e.embed_passages(["sync settings and conflicts " * 100])
    e.embed_passages(["vault plugins and hotkeys " * 100])
    out["inside_hold"] = rss_mb()
out["after_hold"] = rss_mb()  # ...and given back when the run ends
out["max_tokens"] = e.max_tokens
print(json.dumps(out))
"""


def _run_probe(mode: str) -> dict:
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/status")
    r = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def probe() -> dict:
    return _run_probe("single")


@pytest.fixture(scope="module")
def packed_probe() -> dict:
    """The load as it was before ADR 0096: one output row per packable sequence."""
    return _run_probe("packed")


def test_the_query_context_holds_one_sequence_so_no_vocabulary_sized_buffer_per_sequence(probe, packed_probe):
    assert probe["rows"] == 1 and packed_probe["rows"] > 1
    # Packed: rows x 250,037 floats (244 MB at 256 rows) reserved at load on top
    # of the model. Side by side, what loading adds must be well under that.
    single = probe["loaded"] - probe["before"]
    packed = packed_probe["loaded"] - packed_probe["before"]
    assert single < 0.7 * packed, (probe, packed_probe)


def test_a_long_passage_does_not_leave_its_output_buffer_behind(probe):
    needed_mb = probe["max_tokens"] * probe["vocab"] * 4 / 2**20   # ~488 MB during the decode
    kept = probe["after_long_passage"] - probe["after_query"]
    assert kept < 0.1 * needed_mb, probe


def test_an_indexing_run_keeps_the_buffer_between_batches_and_gives_it_back_at_the_end(probe):
    needed_mb = probe["max_tokens"] * probe["vocab"] * 4 / 2**20
    assert probe["inside_hold"] - probe["after_query"] > 0.5 * needed_mb, probe
    assert probe["after_hold"] - probe["after_query"] < 0.1 * needed_mb, probe
