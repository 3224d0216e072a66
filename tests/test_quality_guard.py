"""The quality guard (issue 36): retrieval quality with the default model on
slices of the real English and Japanese help vaults, against the committed
baseline (tests/quality/baseline.json, written by bench/quality_guard.py
--write). A ranking change that costs the guard's questions more than the
tolerance fails here, in make test, instead of going unseen.

Needs ../shared/eval (the help vaults); skips without it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from groove.eval.guard import load_baseline, measure, regressions

pytestmark = pytest.mark.needs_default_model

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
import quality_guard  # noqa: E402

if not (quality_guard.EVAL / "vault-en").is_dir():
    pytest.skip(f"the help vaults are not at {quality_guard.EVAL} (../shared/eval)", allow_module_level=True)


@pytest.fixture(scope="module")
def guard_vaults(tmp_path_factory):
    return quality_guard.guard_vaults(tmp_path_factory.mktemp("guard"))


@pytest.fixture(scope="module")
def measured(guard_vaults, default_embedder):
    return measure(quality_guard.GOLDEN, guard_vaults, embedder=default_embedder)


def test_the_baseline_was_measured_on_every_language_of_the_guard_set(measured):
    base = load_baseline(quality_guard.BASELINE)
    assert set(base.figures) == set(measured) == {"en", "ja"}
    assert all(f.queries == base.figures[lang].queries for lang, f in measured.items())


def test_retrieval_quality_is_within_the_tolerance_of_the_committed_baseline(measured):
    base = load_baseline(quality_guard.BASELINE)
    bad = regressions(measured, base)
    assert not bad, ("retrieval quality fell below tests/quality/baseline.json:\n  " + "\n  ".join(bad)
                     + "\nIf this is deliberate, rerun bench/quality_guard.py --write --reason '...' and say why "
                     "in the commit.")


def test_the_guard_fails_a_ranking_that_lost_its_note_legs(guard_vaults, default_embedder):
    # The guard must be able to fail: the fusion without the note leg and the
    # note-aware vector leg (the pipeline before ADR 0076/0078) is flagged.
    import dataclasses

    from groove.config import SearchConfig

    cfg = SearchConfig()
    worse = dataclasses.replace(cfg, fusion=dataclasses.replace(cfg.fusion, note_weight=0.0, dense_note_weight=0.0))
    got = measure(quality_guard.GOLDEN, guard_vaults, embedder=default_embedder, search_cfg=worse)
    assert regressions(got, load_baseline(quality_guard.BASELINE))
