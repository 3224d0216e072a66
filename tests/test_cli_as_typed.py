"""The CLI as people type it (issue 48): one hit limit on every path, a
query that begins with an exclusion, the vault found from a subfolder,
progress and interrupts of `groove index` without a terminal, and the
messages of status, related and an empty filtered search. Subprocesses,
the tiny model, a private GROOVE_HOME each."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import click
import pytest

from groove.cli.search import search_cmd
from helpers import run_groove

NOTES = {
    "Network/Cron.md": "# Cron\n\nThe cron daemon runs jobs on a timer schedule every night.\n",
    "Network/DHCP.md": "# DHCP\n\nThe dhcp server hands out leases with a timer for renewal.\n",
    "Network/Leases.md": "---\ntags: [net]\n---\n# Leases\n\nA dhcp lease without any schedule.\n",
    "Home.md": "# Home\n\nThe garden, the orchard and the kitchen.\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    for rel, text in NOTES.items():
        (v / rel).parent.mkdir(parents=True, exist_ok=True)
        (v / rel).write_text(text, encoding="utf-8")
    return v


@pytest.fixture
def indexed(vault: Path, tiny_model_path: Path) -> tuple[Path, list[str]]:
    """The vault indexed into its default index (GROOVE_HOME's), and the flags
    every search in this file passes (the tiny model, no daemon)."""
    r = run_groove("index", str(vault), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    return vault, ["--model", str(tiny_model_path), "--no-daemon"]


def _groove_in(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "groove", *args], capture_output=True, text=True, timeout=300,
                          cwd=cwd, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


# --- one limit --------------------------------------------------------------------------------------------


def test_a_limit_above_the_maximum_is_clamped_with_the_daemons_warning_not_a_sqlite_traceback(indexed):
    vault, flags = indexed
    r = run_groove("search", "cron", "--vault", str(vault), "--limit", "205", "--json", *flags)
    assert r.returncode == 0, r.stderr  # was: apsw.SQLError: k value in knn query too large (4100 > 4096)
    out = json.loads(r.stdout)
    assert "limit 205 is above the maximum 50; using 50" in out["warnings"]


def test_no_search_reaches_sqlite_vec_with_a_knn_deeper_than_it_accepts(vault, tiny_embedder, tmp_path):
    """eval lifts the hit limit (max_limit=None): the KNN depth is still capped."""
    from groove.pipeline import SearchParams, run_search
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path / "rt", {k: v for k, v in NOTES.items()}, tiny_embedder)
    resp = run_search(rt, SearchParams("cron timer", limit=2000), max_limit=None)
    assert {h.path for h in resp.results} == set(NOTES)


# --- a query that begins with -word -------------------------------------------------------------------------


def test_a_query_beginning_with_an_exclusion_is_the_query_not_an_option(indexed):
    vault, flags = indexed
    r = run_groove("search", "-schedule dhcp", "--vault", str(vault), "--json", *flags)
    assert r.returncode == 0, r.stderr  # was: Error: No such option '-s'
    paths = [h["path"] for h in json.loads(r.stdout)["results"]]
    assert "Network/DHCP.md" in paths and "Network/Leases.md" not in paths and "Network/Cron.md" not in paths


def test_real_options_stay_options_around_a_dash_query():
    from groove.cli.common import _dash_words_last

    ctx = click.Context(search_cmd)
    assert _dash_words_last(search_cmd, ctx, ["-timer dhcp", "--vault", "V"]) == ["--vault", "V", "--",
                                                                                  "-timer dhcp"]
    assert _dash_words_last(search_cmd, ctx, ["-v", "q", "--limit", "5"]) == ["-v", "q", "--limit", "5"]
    # an option's value may begin with '-'; --opt=value is one token
    assert _dash_words_last(search_cmd, ctx, ["--where", "-x=1", "q"]) == ["--where", "-x=1", "q"]
    assert _dash_words_last(search_cmd, ctx, ["--path=a/**", "-x y"]) == ["--path=a/**", "--", "-x y"]
    assert _dash_words_last(search_cmd, ctx, ["--", "-x"]) == ["--", "-x"]


# --- the vault from a subfolder -----------------------------------------------------------------------------


def test_a_search_from_a_subfolder_uses_the_enclosing_vaults_index(indexed, groove_home):
    vault, flags = indexed
    before = sorted((groove_home / "data" / "indexes").glob("*.sqlite"))
    r = _groove_in(vault / "Network", "search", "garden orchard", "--json", *flags)
    assert r.returncode == 0, r.stderr  # was: no index at …/Network-….sqlite; run `groove index` first
    assert "Home.md" in [h["path"] for h in json.loads(r.stdout)["results"]]  # outside the subfolder
    assert sorted((groove_home / "data" / "indexes").glob("*.sqlite")) == before  # no second index
    st = _groove_in(vault / "Network", "status", "--json", "--no-daemon")
    assert st.returncode == 0, st.stderr
    assert json.loads(st.stdout)["vault"] == str(vault.resolve())


def test_an_obsidian_folder_marks_the_vault_and_vault_still_wins(vault, tmp_path, monkeypatch):
    from groove.cli.common import default_vault, enclosing_vault

    (vault / ".obsidian").mkdir()
    assert enclosing_vault(vault / "Network") == vault.resolve()
    assert enclosing_vault(tmp_path / "elsewhere") is None
    monkeypatch.chdir(vault / "Network")
    assert default_vault(None) == vault.resolve()
    assert default_vault(tmp_path) == tmp_path


# --- index without a terminal: progress, interrupts ---------------------------------------------------------


def _big_vault(root: Path, n: int) -> Path:
    v = root / "big"
    v.mkdir()
    words = "alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega".split()
    for i in range(n):
        body = "\n\n".join(f"## Part {j}\n\n" + " ".join(words[(i + j + k) % len(words)] for k in range(60))
                           for j in range(6))
        (v / f"n{i:04d}.md").write_text(f"# Note {i}\n\n{body}\n", encoding="utf-8")
    return v


def test_index_without_a_terminal_prints_progress_lines(vault, tmp_path, tiny_model_path):
    from groove.cli.progress import DEFAULT_INTERVAL, interval

    assert DEFAULT_INTERVAL == 5.0 and interval() == 5.0  # what the README promises, by default
    big = _big_vault(tmp_path, 100)
    env = {**os.environ, "GROOVE_PROGRESS_SECONDS": "0.05"}
    r = subprocess.run([sys.executable, "-m", "groove", "index", str(big), "--index", str(tmp_path / "b.sqlite"),
                        "--model", str(tiny_model_path)], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("groove index:")]
    assert lines, r.stderr  # was: nothing at all until the summary
    assert any("/100 notes" in ln and "notes/s" in ln for ln in lines), lines

    j = subprocess.run([sys.executable, "-m", "groove", "index", str(big), "--index", str(tmp_path / "c.sqlite"),
                        "--model", str(tiny_model_path), "--json-progress"], stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=300, env=env)
    assert j.returncode == 0, j.stderr
    events = [json.loads(ln) for ln in j.stderr.splitlines() if ln.startswith("{")]
    assert events and all({"phase", "done", "total", "chunks", "notes_per_second"} <= set(e) for e in events)
    assert any(e["total"] == 100 for e in events), events


def _interrupt(cmd: list[str], sig: int, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run ``cmd``, send ``sig`` once it reports indexed notes, return what it said."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env={**env, "GROOVE_PROGRESS_SECONDS": "0.05"})
    assert proc.stderr is not None
    seen = []
    for line in proc.stderr:
        seen.append(line)
        if line.startswith("{") and json.loads(line)["done"] > 0:
            proc.send_signal(sig)
            break
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(cmd, proc.returncode, out, "".join(seen) + err)


def test_an_interrupted_index_says_what_it_kept_and_how_to_go_on(tmp_path, tiny_model_path):
    big = _big_vault(tmp_path, 400)
    index = tmp_path / "big.sqlite"
    cmd = [sys.executable, "-m", "groove", "index", str(big), "--index", str(index), "--model",
           str(tiny_model_path), "--json-progress"]
    r = _interrupt(cmd, signal.SIGINT, dict(os.environ))
    assert r.returncode == 130, r.stderr
    assert "Aborted!" not in r.stderr
    msg = next(ln for ln in r.stderr.splitlines() if ln.startswith("interrupted:"))
    kept = int(msg.split("interrupted: ")[1].split(" of ")[0])
    assert " of 400 changed notes were indexed and are kept; run `groove index " in msg, msg
    assert 0 < kept < 400
    again = subprocess.run(cmd[:-1] + ["--json"], capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["unchanged"] >= kept  # the rerun went on from there

    # SIGTERM in the middle of --rebuild: the old index stays, and it says so
    t = _interrupt(cmd + ["--rebuild"], signal.SIGTERM, dict(os.environ))
    assert t.returncode == 143, t.stderr
    assert "the old index is kept" in t.stderr, t.stderr
    from helpers import HEALTHY, index_health

    health = index_health(index)
    assert health["documents"] == 400 and HEALTHY.items() <= health.items(), health
    assert not index.with_name(index.name + ".rebuild").exists()  # the half-built copy went with it


# --- messages ----------------------------------------------------------------------------------------------


def test_status_why_says_when_the_file_does_not_exist(indexed):
    vault, _ = indexed
    r = run_groove("status", "--vault", str(vault), "--no-daemon", "--why", "Nope/x.md")
    assert r.returncode == 0, r.stderr
    assert "Nope/x.md does not exist in the vault" in r.stdout, r.stdout
    ok = run_groove("status", "--vault", str(vault), "--no-daemon", "--why", "Home.md")
    assert "Home.md is not left out by any rule" in ok.stdout, ok.stdout


def test_related_with_a_typo_suggests_the_note_and_names_the_real_command(indexed):
    vault, _ = indexed
    r = run_groove("related", "Network/Cronn.md", "--vault", str(vault), "--no-daemon")
    assert r.returncode == 2
    assert "Did you mean: 'Network/Cron.md'" in r.stderr, r.stderr
    assert "groove index" in r.stderr and "run reindex" not in r.stderr, r.stderr


def test_a_filter_that_matches_nothing_says_so(indexed):
    vault, flags = indexed
    r = run_groove("search", "dhcp", "--vault", str(vault), "--tag", "nosuchtag", *flags)
    assert r.returncode == 0, r.stderr
    assert "no note matches the filters (--tag nosuchtag)" in r.stdout, r.stdout
    assert "closest notes" not in r.stdout and "no results" not in r.stdout


def test_status_does_not_call_a_small_vaults_unused_copy_stale():
    from groove.cli.status import copy_lines

    st = {"chunks": 5042, "word_index": {"state": "stale", "min_rows": 10_000},
          "vector_copy": {"state": "stale", "min_rows": 10_000}}
    assert copy_lines(st) == ["      word index: not used below 10,000 chunks",
                              "     vector copy: not used below 10,000 chunks"]
    big = {"chunks": 20_000, "word_index": {"state": "stale", "min_rows": 10_000}, "vector_copy": {"state": "off"}}
    assert copy_lines(big) == ["      word index: stale"]
