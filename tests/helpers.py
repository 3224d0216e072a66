"""Helpers shared by test modules (import as `from helpers import ...`; a
module named conftest would be shadowed by the sub-folders' conftest files)."""

from __future__ import annotations

import os
from pathlib import Path

TEST_MODELS_DIR = Path(os.environ.get("GROOVE_TEST_MODELS_DIR", Path.home() / ".cache" / "groove-test-models"))
SAMPLE_VAULT = Path(__file__).resolve().parents[1] / "backend" / "groove" / "sample_vault"


def make_runtime(vault: Path, embedder, tmp_path: Path, config=None):
    """A Runtime on ``vault`` with an already-loaded embedder (no reload)."""
    from groove.runtime import open_runtime

    rt = open_runtime(vault, index_path=tmp_path / "index.sqlite", config=config)
    rt._embedder = embedder
    return rt
