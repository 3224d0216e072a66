"""What the CLI says when something is missing or stale: a command typed as
shown works from any folder (it names the vault and --index), `related`
with an empty NOTE speaks of NOTE (not MCP's arguments), and `status` says
which notes are stale and how to take them in. Subprocesses, the tiny model,
a private GROOVE_HOME."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_groove


def _groove_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "groove", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "my notes"
    v.mkdir()
    (v / "Cron.md").write_text("# Cron\n\nThe cron daemon runs jobs on a timer.\n", encoding="utf-8")
    (v / "Garden.md").write_text("# Garden\n\nThe orchard and the kitchen garden.\n", encoding="utf-8")
    return v


def test_no_index_names_the_command_that_indexes_this_vault_from_anywhere(vault, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    index = tmp_path / "ix" / "notes.sqlite"
    r = _groove_in(elsewhere, "search", "cron", "--vault", str(vault), "--index", str(index), "--no-daemon")
    assert r.returncode == 2
    # was: "run `groove index` first" -- typed in `elsewhere`, that indexes `elsewhere`
    assert f"run `groove index '{vault}' --index {index}` first" in r.stderr, r.stderr
    j = _groove_in(elsewhere, "search", "cron", "--vault", str(vault), "--index", str(index), "--json")
    err = json.loads(j.stdout)["error"]
    assert err["code"] == "index-missing" and f"groove index '{vault}' --index {index}" in err["message"]


def test_a_damaged_index_names_the_rebuild_command_with_the_vault(vault, tmp_path):
    index = tmp_path / "damaged.sqlite"
    index.write_bytes(b"not a database, just bytes" * 100)
    r = _groove_in(tmp_path, "status", "--vault", str(vault), "--index", str(index), "--no-daemon")
    assert r.returncode == 2
    assert f"run `groove index '{vault}' --index {index} --rebuild`" in r.stderr, r.stderr


def test_related_with_an_empty_note_speaks_of_note_not_of_mcp_arguments(vault, tiny_model_path, tmp_path):
    index = tmp_path / "ix.sqlite"
    assert run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    r = run_groove("related", "  ", "--vault", str(vault), "--index", str(index))
    assert r.returncode == 2
    assert "NOTE is empty" in r.stderr and "chunk_id" not in r.stderr, r.stderr
    # a note that is not indexed: the index command names the vault
    r = run_groove("related", "Nope.md", "--vault", str(vault), "--index", str(index))
    assert r.returncode == 2 and f"`groove index '{vault}' --index {index}`" in r.stderr, r.stderr


def test_status_names_the_stale_notes_and_the_command_that_takes_them_in(vault, tiny_model_path, tmp_path):
    index = tmp_path / "ix.sqlite"
    assert run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    (vault / "New idea.md").write_text("# New idea\n\nSomething to index.\n", encoding="utf-8")
    r = run_groove("status", "--vault", str(vault), "--index", str(index), "--no-daemon")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("stale_files:"))
    assert lines[at].strip() == "stale_files: 1"
    assert lines[at + 1].strip() == "New idea.md"
    assert f"run `groove index '{vault}' --index {index}`" in lines[at + 2]
    # up to date: no list, no command
    assert run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    r = run_groove("status", "--vault", str(vault), "--index", str(index), "--no-daemon")
    assert "groove index" not in r.stdout and "stale_files: 0" in r.stdout


def test_ctrl_c_during_a_search_exits_130_as_a_shell_reports_it(vault, tiny_model_path, tmp_path):
    import signal
    import time

    index = tmp_path / "ix.sqlite"
    assert run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    p = subprocess.Popen([sys.executable, "-m", "groove", "search", "cron", "--vault", str(vault), "--index",
                          str(index), "--model", str(tiny_model_path), "-v"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stderr is not None
    line = p.stderr.readline()  # said once the command runs, before the model loads
    assert line.startswith("searching in this process"), line
    time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if p.returncode == 0:
        pytest.skip("the search finished before the signal landed")
    # was: "Aborted!" and 1, a failure's code. Killed by the signal itself (-2: it landed while Python was
    # shutting down, the search done) a shell reports 130 as well.
    assert p.returncode in (130, -signal.SIGINT), err
    assert "Aborted!" not in err and "Traceback" not in err
    if p.returncode == 130:
        assert "interrupted" in err


def test_indexing_a_folder_without_notes_says_so(tmp_path, tiny_model_path):
    folder = tmp_path / "Documents"
    folder.mkdir()
    (folder / "report.txt").write_text("not a note", encoding="utf-8")
    r = run_groove("index", str(folder), "--index", str(tmp_path / "ix.sqlite"), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    assert "index: 0 notes" in r.stdout
    # was: only the quiet "0 notes" above, for what is most often the wrong folder
    assert f"warning: no notes (.md or .canvas files) in {folder}" in r.stderr, r.stderr
    (folder / "Idea.md").write_text("# Idea\n", encoding="utf-8")
    r = run_groove("index", str(folder), "--index", str(tmp_path / "ix.sqlite"), "--model", str(tiny_model_path))
    assert "warning" not in r.stderr, r.stderr


@pytest.mark.parametrize("flag,value,says", [
    ("--from", "2024-13-45", "--from must be a date like"),
    ("--mmr-lambda", "5", "--mmr-lambda must be between 0 and 1"),
    ("--limit", "-1", "--limit must be at least 1"),
])
def test_a_wrong_value_is_named_by_the_flag_the_user_typed(vault, tiny_model_path, tmp_path, flag, value, says):
    index = tmp_path / "ix.sqlite"
    assert run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path)).returncode == 0
    args = ["search", "cron", "--vault", str(vault), "--index", str(index), "--model", str(tiny_model_path)]
    r = run_groove(*args, flag, value)
    assert r.returncode == 2
    assert f"Error: {says}" in r.stderr, r.stderr  # was: 'date_from', 'mmr_lambda', 'limit' (the protocol's names)
    j = run_groove(*args, flag, value, "--json")
    assert json.loads(j.stdout.splitlines()[0])["error"]["param"]  # programs still get the parameter's name
