"""`groove related` marks the similar notes a link joins to the note (in
either direction) and, with --unlinked, lists only the others: filtered
before --limit, in the same order and with the same scores (ADR 0200)."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from helpers import run_groove as _groove
from unlinked_vault import INDEXED, LINKED, SOURCE, write_vault


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, tiny_model_path: Path) -> tuple[Path, Path]:
    vault = write_vault(tmp_path_factory.mktemp("unlinked") / "vault")
    index = vault.parent / "i.sqlite"
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    return vault, index


def _related(built: tuple[Path, Path], *extra: str) -> subprocess.CompletedProcess:
    vault, index = built
    r = _groove("related", SOURCE, "--vault", str(vault), "--index", str(index), "--no-daemon", *extra)
    assert r.returncode == 0, r.stderr
    return r


def test_similar_notes_are_marked_linked_in_either_direction(built) -> None:
    res = json.loads(_related(built, "--limit", "50", "--json").stdout)
    assert {s["path"] for s in res["similar"]} == INDEXED - {SOURCE}
    # Bread: the note links there; Flour: it links here; Levain only by its alias, which is no link.
    assert {s["path"] for s in res["similar"] if s["linked"]} == LINKED


def test_unlinked_filters_before_the_limit_and_keeps_the_ranking(built) -> None:
    everything = json.loads(_related(built, "--limit", "50", "--json").stdout)["similar"]
    for k in (1, 2, 4):
        got = json.loads(_related(built, "--limit", str(k), "--unlinked", "--json").stdout)["similar"]
        assert got == [s for s in everything if not s["linked"]][:k]
        assert len(got) == k


def test_the_text_output_says_which_notes_are_linked(built) -> None:
    out = _related(built, "--limit", "50").stdout
    # "   2.31  path  (linked)": relevance (ADR 0276), the figure that orders the list, then the path.
    rows = [m for m in (re.match(r"  [ -]?\d+\.\d\d  (.+?)(  \(linked\))?$", ln)
                        for ln in out.splitlines()) if m]
    assert len(rows) == len(INDEXED) - 1
    assert {m.group(1) for m in rows if m.group(2)} == {"Baking/Bread.md", "Baking/Flour.md"}
    out = _related(built, "--limit", "50", "--unlinked").stdout
    assert out.startswith(f"unlinked notes to {SOURCE} (relevance, highest first):") and "(linked)" not in out
