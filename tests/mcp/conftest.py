"""Fixtures for the MCP server and notes tests: a small vault with links,
aliases, headings, block ids and an ambiguous name, plus the tiny test model."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/ for tinymodels

# Where converted real models are cached across runs (same as tests/conftest.py).
TEST_MODELS_DIR = Path(os.environ.get("GROOVE_TEST_MODELS_DIR", Path.home() / ".cache" / "groove-test-models"))

NOTES: dict[str, str] = {
    "Home.md": """---
title: Home
tags: [start, index]
aliases: [Start page, Lobby]
---
# Home

Welcome to the vault. See [[Projects/Plan]] and [[Plan#Goals]].
Yesterday's meeting: [[Meeting notes^decision-1]] and the [[Meeting notes#Action items|actions]].
Nested heading: [[Plan#Goals#Details]]. The diary: [[Daily/2024-01-02|today]].
A picture: ![[Image.png]] and a dangling [[Missing note]].
Also the alias link [[Standup]].
""",
    "Projects/Plan.md": """# Plan

Intro to the garden project plan.

## Goals

Grow tomatoes and beans in the garden.

### Details

Water every morning, before work.

## Risks

Cats dig the beds. A step we must take ^step-1

## Details

A second Details heading, under Risks' sibling level.
""",
    "Archive/Old/Plan.md": """# Old plan

The old garden plan from last year.
""",
    "Archive/Old/Notes.md": """# Notes

Refers to [[Plan]] in this folder, and to [[Home]].
""",
    "Meeting notes.md": """---
aliases: Standup
tags: [work]
date: 2024-01-02
---
# Meeting notes

Discussed the python search project.
We decided to ship on Friday.
The team agreed. ^decision-1

## Action items

- write the code
- test the code ^todo-2

> a quote
> over two lines

^quote-1
""",
    "Daily/2024-01-02.md": """---
date: 2024-01-02
tags: [daily, journal]
---
# 2024-01-02

Coffee, then the meeting. Back to [[Home]]. #journal
""",
    "日本/会議.md": """# 会議

東京の会議のノート。[[Home]] を参照。
""",
}


def write_vault(root: Path) -> Path:
    for rel, text in NOTES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (root / "Image.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "notes.txt").write_text("not markdown", encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def mcp_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GROOVE_HOME for the server subprocesses (one per test session)."""
    return tmp_path_factory.mktemp("groove-home-mcp")


@pytest.fixture(scope="session", autouse=True)
def _mcp_session_env(mcp_home: Path) -> None:
    """Module/session-scoped fixtures here run before tests/conftest.py's
    per-test GROOVE_HOME: point them at a temp home too."""
    os.environ.update({"GROOVE_HOME": str(mcp_home), "GROOVE_MODELS_DIR": str(TEST_MODELS_DIR),
                       "GROOVE_TOKEN_STORE": "file"})


@pytest.fixture(scope="session")
def server_env(mcp_home: Path) -> dict[str, str]:
    # The MCP SDK starts a stdio server with only the environment it is
    # given: PYTHONPATH is passed on, so the server runs the code under test
    # (a worktree's), not whatever the console script was installed from.
    passed = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}
    return {
        **passed,
        "GROOVE_HOME": str(mcp_home),
        "GROOVE_MODELS_DIR": str(TEST_MODELS_DIR),
        "GROOVE_TOKEN_STORE": "file",
    }


@pytest.fixture(scope="session")
def tiny_model(tiny_model_path: Path) -> Path:
    return tiny_model_path


@pytest.fixture(scope="session")
def outside_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("outside")
    (out / "secret.md").write_text("# Secret\n\nTOP SECRET outside the vault\n", encoding="utf-8")
    return out


@pytest.fixture(scope="session")
def vault(tmp_path_factory: pytest.TempPathFactory, outside_dir: Path) -> Path:
    root = write_vault(tmp_path_factory.mktemp("vault"))
    # Symlinks that point out of the vault must never be followed.
    (root / "escape.md").symlink_to(outside_dir / "secret.md")
    (root / "outside-folder").symlink_to(outside_dir, target_is_directory=True)
    return root


@pytest.fixture(scope="session")
def indexed(vault: Path, tiny_model: Path, server_env: dict, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The test vault indexed with the tiny model by `groove index` (the real CLI)."""
    from mcp_support import groove_index

    index = tmp_path_factory.mktemp("index") / "index.sqlite"
    summary = groove_index(vault, index, tiny_model, server_env)
    assert summary["indexed"] == 7, summary
    return index
