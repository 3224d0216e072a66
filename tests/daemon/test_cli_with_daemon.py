"""The CLI beside a running daemon (issue 48): the daemon's view of a vault
folder that went away, the same hit limit and warning as in-process, and
what `groove serve` says when it goes to the background."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from helpers import run_groove

from .conftest import make_vault, poll

pytestmark = pytest.mark.skipif(os.name != "posix", reason="a folder moved away under inotify/FSEvents")


def test_status_of_a_moved_vault_asks_the_daemon_which_says_why_it_is_not_watching(spawn, tmp_path) -> None:
    d = spawn(n=6)
    c = d.client()
    d.wait_idle(c)
    r = run_groove("search", "coffee", "--vault", str(d.vault), "--limit", "1000", "--json")
    assert r.returncode == 0, r.stderr
    # the daemon's clamp and warning, word for word what an in-process search says (test_cli_as_typed.py)
    assert "limit 1000 is above the maximum 50; using 50" in json.loads(r.stdout)["warnings"]

    d.vault.rename(d.vault.with_name("moved-away"))
    poll(lambda: not c.index_status()["watching"], 15, "watching: false")
    st = run_groove("status", "--vault", str(d.vault))
    assert st.returncode == 0, st.stderr  # was: error: vault not found, the daemon never asked
    assert "not watching the vault" in st.stdout and "is gone" in st.stdout, st.stdout
    c.close()


def test_serve_says_it_went_to_the_background_and_how_to_stop_it(groove_home: Path, tiny_model: Path) -> None:
    root = Path(os.environ["GROOVE_HOME"]) / "serve-msg"
    vault = make_vault(root, 3)
    r = run_groove("serve", "--vault", str(vault), "--model", str(tiny_model))
    try:
        assert r.returncode == 0, r.stderr
        assert "running in the background" in r.stdout and "pid " in r.stdout, r.stdout
        assert "log: " in r.stdout, r.stdout
        assert f"stop it: groove serve --stop --vault {vault.resolve()}" in r.stdout, r.stdout
    finally:
        stop = run_groove("serve", "--stop", "--vault", str(vault))
    assert stop.returncode == 0 and "stopped groove serve" in stop.stdout, stop.stdout + stop.stderr


def test_through_the_daemon_symbols_alone_are_a_bad_query_and_related_limits_clamp(spawn) -> None:
    """The socket answers a query of symbols with bad-query (was: ten hits for
    "???"), and `groove related --limit 205` answered by the daemon clamps as
    in-process (the daemon's schema refuses 205: the CLI clamps before asking)."""
    from groove.daemon.client import RpcError

    d = spawn(n=6)
    c = d.client()
    d.wait_idle(c)
    with pytest.raises(RpcError) as e:
        c.call("search", {"query": "???"})
    assert "no letters or digits" in e.value.message
    r = run_groove("search", "???", "--vault", str(d.vault), "--json", "--daemon")
    assert r.returncode == 2 and json.loads(r.stdout)["error"]["code"] == "bad-query", r.stdout
    note = c.call("search", {"query": "coffee", "limit": 1})["results"][0]["path"]
    r = run_groove("related", note, "--vault", str(d.vault), "--limit", "205", "--json", "--daemon")
    assert r.returncode == 0, r.stderr
    assert "limit 205 is above the maximum 50; using 50" in r.stderr
    c.close()
