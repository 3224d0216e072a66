"""What the default embedder keeps in memory (ADRs 0096, 0125). llama.cpp
keeps e5's 250,037-token vocabulary in a 126 MB trie, and reserves n_vocab
floats of output per sequence a decode may hold and per token a pooled decode
produced (~1 MB each). The lean load (ADR 0125) has neither; the full load,
which models that cannot run lean still use, manages the buffer (ADR 0096).
Pinned in a fresh process each, as RSS ratios, never absolute sizes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import TEST_MODELS_DIR

pytestmark = pytest.mark.needs_default_model

PROBE = r"""
import json, sys
def rss_mb():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS'):
            return int(line.split()[1]) / 1024
from groove.models.llama_embedder import EmbedderTuning, LlamaEmbedder
import llama_cpp  # imported before the baseline so only the model and its context count
from groove.models.lean_model import lean_parts
mode, model = sys.argv[1], sys.argv[2]
lean_parts(model)  # derived by the test beforehand; this only reads its note
before = rss_mb()
e = LlamaEmbedder(model, family="e5", tuning=EmbedderTuning(pack_sequences=mode == "packed", lean=mode == "lean"))
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


def _run_probe(mode: str, model: Path) -> dict:
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/self/status")
    # module-scoped, so before the per-test GROOVE_* settings: pass the models folder on
    env = {**os.environ, "GROOVE_MODELS_DIR": str(TEST_MODELS_DIR)}
    r = subprocess.run([sys.executable, "-c", PROBE, mode, str(model)], capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def lean_probe(default_model_path) -> dict:
    from groove.models.lean_model import lean_parts

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GROOVE_MODELS_DIR", str(TEST_MODELS_DIR))
        assert lean_parts(default_model_path)[0] is not None  # derived outside the measured process
    return _run_probe("lean", default_model_path)


@pytest.fixture(scope="module")
def probe(default_model_path) -> dict:
    """The full load: the model with llama.cpp's own vocabulary."""
    return _run_probe("single", default_model_path)


@pytest.fixture(scope="module")
def packed_probe(default_model_path) -> dict:
    """The load as it was before ADR 0096: one output row per packable sequence."""
    return _run_probe("packed", default_model_path)


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


def test_the_lean_load_holds_no_vocabulary_and_no_output_rows_for_it(lean_probe, probe):
    assert lean_probe["vocab"] == 1 and probe["vocab"] > 250_000
    lean = lean_probe["loaded"] - lean_probe["before"]
    full = probe["loaded"] - probe["before"]
    assert lean < 0.3 * full, (lean_probe, probe)   # measured 23 MB against 195 MB


def test_the_lean_load_stays_small_through_long_passages_and_an_indexing_run(lean_probe, probe):
    lean = max(lean_probe[k] for k in ("after_long_passage", "inside_hold", "after_hold")) - lean_probe["before"]
    full = probe["inside_hold"] - probe["before"]
    assert lean < 0.15 * full, (lean_probe, probe)   # measured 47 MB against ~700 MB
