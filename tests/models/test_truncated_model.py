"""A model file cut off (an interrupted copy or download) is caught by its
own header's tensor directory, not by llama.cpp mid-search, and `groove
doctor` does not call it ok (issue 50 R14)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from groove.doctor import check_model
from groove.errors import ModelError
from groove.models.gguf_file import check_gguf, needed_bytes, read_header


def halve(src: Path, dest: Path) -> Path:
    shutil.copy(src, dest)
    with open(dest, "r+b") as fh:
        fh.truncate(dest.stat().st_size // 2)
    return dest


def test_a_whole_model_needs_no_more_than_its_size(tiny_model_path, default_model_path):
    for p in (tiny_model_path, default_model_path):
        need = needed_bytes(read_header(p))
        assert p.stat().st_size - 64 <= need <= p.stat().st_size  # the last tensor ends the file (padding aside)
        check_gguf(p)


def test_a_truncated_model_is_refused_by_doctor_and_at_load(tiny_model_path, tmp_path):
    cut = halve(tiny_model_path, tmp_path / "cut-bert.gguf")
    with pytest.raises(ModelError, match="truncated"):
        check_gguf(cut)
    r = check_model(str(cut))
    assert not r.ok and "truncated" in r.detail and str(cut) in r.detail
    from groove.models.registry import load_embedder

    with pytest.raises(ModelError, match="truncated"):
        load_embedder(str(cut))


def test_a_truncated_default_model_is_not_ready(default_model_path, tmp_path, monkeypatch):
    from groove.models.default_model import default_model_status

    models = tmp_path / "models"
    models.mkdir()
    halve(default_model_path, models / default_model_path.name)
    monkeypatch.setenv("GROOVE_MODELS_DIR", str(models))
    st = default_model_status()
    assert not st.ready  # so it is converted again on first use, not loaded half
    r = check_model(None)
    assert "loads in full" not in r.detail and "without llama.cpp" not in r.detail, r.detail
