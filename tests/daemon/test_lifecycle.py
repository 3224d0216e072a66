"""One daemon per vault: the lock refuses a second one, kill -9 mid-batch
leaves a consistent index that a restart completes, and the CLI commands
editors use (connect-info --start, serve --status/--stop) work end to end."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest
import sqlite_vec

from groove.daemon import discovery
from groove.paths import default_index_path
from helpers import scaffold_only_chunks

from .conftest import daemon_env, new_daemon, poll


def index_rows(vault) -> dict[str, int]:
    c = apsw.Connection(str(default_index_path(vault)), flags=apsw.SQLITE_OPEN_READONLY)
    c.enable_load_extension(True)
    c.load_extension(sqlite_vec.loadable_path())
    q = lambda sql: c.execute(sql).fetchone()[0]  # noqa: E731
    out = {
        "documents": q("SELECT count(*) FROM documents"),
        "chunks": q("SELECT count(*) FROM chunks"),
        "fts": q("SELECT count(*) FROM fts_chunks"),
        "vec": q("SELECT count(*) FROM vec_chunks"),
        "chunks_without_vec": q("SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM vec_chunks)"),
        "chunks_without_fts": q("SELECT count(*) FROM chunks WHERE id NOT IN (SELECT rowid FROM fts_chunks)"),
        "docs_without_chunks": q("SELECT count(*) FROM documents d WHERE NOT EXISTS "
                                 "(SELECT 1 FROM chunks c WHERE c.doc_id = d.id)"),
    }
    # Chunks that are template boilerplate only have no vector by design (ADR 0210):
    # these 300 notes are one numbered template.
    scaffold = len(scaffold_only_chunks(c))
    out["vec"] += scaffold
    out["chunks_without_vec"] -= scaffold
    out["paths"] = {r[0] for r in c.execute("SELECT path FROM documents")}
    c.close()
    return out


def test_second_daemon_for_the_same_vault_is_refused_and_points_to_the_first(spawn):
    first = spawn(n=5)
    pid = first.info["pid"]
    second = subprocess.run(
        [sys.executable, "-m", "groove.daemon", "--vault", str(first.vault), "--model", str(first.model),
         "--foreground"], env=first.env, capture_output=True, text=True, timeout=60)
    assert second.returncode != 0
    assert "already running" in second.stderr and f"pid {pid}" in second.stderr
    assert discovery.files_for(first.vault).socket.name in second.stderr
    with first.client() as c:  # the first is untouched
        assert c.index_status()["documents"] == 5


def test_kill9_mid_batch_then_restart_leaves_a_consistent_complete_index(spawn):
    d = spawn(n=10)
    with d.client() as c:
        d.wait_idle(c)
        c.subscribe("index.progress")
        bulk = d.vault / "bulk"
        bulk.mkdir()
        for i in range(300):
            (bulk / f"b{i:03d}.md").write_text(
                f"# Bulk {i}\n\nbulk note {i} with words\n\n## Part\n\nsecond section {i}\n", encoding="utf-8")
        ev = c.wait_notification("index.progress", 60, lambda p: p["phase"] == "embed" and p["done"] >= 5)
        assert ev["done"] < 300, "the kill must land mid-batch"
    d.kill9()
    partial = index_rows(d.vault)
    assert partial["documents"] < 310, "killed before the batch finished"
    # Every note in the index is whole: no chunk without its vector or FTS row.
    assert partial["chunks_without_vec"] == partial["chunks_without_fts"] == partial["docs_without_chunks"] == 0
    assert partial["chunks"] == partial["fts"] == partial["vec"]
    d.start()
    with d.client() as c:
        st = d.wait_idle(c, timeout=120)
        assert st["stale_files"] == 0
    full = index_rows(d.vault)
    assert full["documents"] == 310
    assert full["chunks"] == full["fts"] == full["vec"]
    assert full["chunks_without_vec"] == full["chunks_without_fts"] == full["docs_without_chunks"] == 0
    on_disk = {p.relative_to(d.vault).as_posix() for p in d.vault.rglob("*.md")}
    assert full["paths"] == on_disk


def test_connect_info_start_status_and_stop_through_the_cli(groove_home, tiny_model, tmp_path):
    from .conftest import make_vault

    vault = make_vault(tmp_path, 4)
    env = daemon_env(groove_home)
    groove = [sys.executable, "-m", "groove"]

    def run(*args: str, timeout: float = 90) -> subprocess.CompletedProcess:
        return subprocess.run([*groove, *args, "--vault", str(vault)], env=env, capture_output=True, text=True,
                              timeout=timeout)

    before = json.loads(run("connect-info").stdout)
    assert before["running"] is False and before["pid"] is None
    assert run("serve", "--status").returncode == 1

    started = run("connect-info", "--start", "--model", str(tiny_model))
    assert started.returncode == 0, started.stderr
    info = json.loads(started.stdout.strip().splitlines()[-1])
    assert info["running"] and info["transport"] == "unix" and len(info["token"]) == 64
    assert info["protocol_version"] == 1 and info["vault"] == str(vault.resolve())
    try:
        again = json.loads(run("connect-info", "--start").stdout)
        assert again["pid"] == info["pid"], "--start reuses the running daemon"

        status = run("serve", "--status", "--json")
        assert status.returncode == 0
        st = json.loads(status.stdout)
        assert st["running"] and st["pid"] == info["pid"] and st["token_store"] == "file"
        assert "token" not in status.stdout.lower().replace("token_store", "")
        poll(lambda: json.loads(run("serve", "--status", "--json").stdout)["index"]["documents"] == 4,
             60, "the startup index pass")
        via = run("search", "coffee", "--daemon", "--json", "--limit", "2")
        assert via.returncode == 0, via.stderr
        assert len(json.loads(via.stdout)["results"]) == 2
        # No flag: the running daemon answers by itself; --no-daemon keeps the search here.
        auto = run("search", "coffee", "--json", "--limit", "2", "-v")
        assert auto.returncode == 0, auto.stderr
        assert "answered by the daemon" in auto.stderr and json.loads(auto.stdout)["results"] == \
            json.loads(via.stdout)["results"]
        # That path loads no model and none of the search machinery.
        probe = ("import atexit, sys; heavy = ('numpy', 'llama_cpp', 'apsw', 'mistletoe', 'sqlite_vec', 'rich', "
                 "'pydantic', 'annotated_types', 'concurrent.futures', 'logging', 'keyring', 'groove.pipeline', "
                 "'groove.index', 'groove.storage', 'groove.engines'); atexit.register(lambda: print('LOADED', "
                 "[m for m in heavy if m in sys.modules], file=sys.stderr)); from groove.cli import main; "
                 "sys.argv[0] = 'groove'; main()")
        lean = subprocess.run([sys.executable, "-c", probe, "search", "coffee", "--vault", str(vault), "-v"],
                              env=env, capture_output=True, text=True, timeout=90)
        assert lean.returncode == 0, lean.stderr
        assert "answered by the daemon" in lean.stderr and "LOADED []" in lean.stderr, lean.stderr
        # `groove status` too: the daemon's answer adds what it is doing, on the same lean path.
        st_lean = subprocess.run([sys.executable, "-c", probe, "status", "--vault", str(vault), "-v"],
                                 env=env, capture_output=True, text=True, timeout=90)
        assert st_lean.returncode == 0, st_lean.stderr
        assert "answered by the daemon" in st_lean.stderr and "LOADED []" in st_lean.stderr, st_lean.stderr
        assert "watching the vault" in st_lean.stdout and "documents: 4" in st_lean.stdout
        rel_lean = subprocess.run([sys.executable, "-c", probe, "related", "journal/note001.md", "--vault", str(vault),
                                   "-v", "--json"], env=env, capture_output=True, text=True, timeout=90)
        assert rel_lean.returncode == 0 and "LOADED []" in rel_lean.stderr, rel_lean.stderr
        rel_here = run("related", "journal/note001.md", "--json", "--no-daemon")
        assert rel_here.returncode == 0, rel_here.stderr
        assert json.loads(rel_lean.stdout) == json.loads(rel_here.stdout)
        assert [s["path"] for s in json.loads(rel_here.stdout)["similar"]]
        missing = run("related", "no/such.md")
        assert missing.returncode == 2 and "no/such.md" in missing.stderr and "Traceback" not in missing.stderr
        st_here = run("status", "--no-daemon", "--json", "-v")
        assert st_here.returncode == 0 and "read in this process (--no-daemon)" in st_here.stderr
        assert json.loads(st_here.stdout)["documents"] == 4 and "watching" not in json.loads(st_here.stdout)
        here = run("search", "coffee", "--json", "--limit", "2", "-v", "--no-daemon", "--model", str(tiny_model))
        assert here.returncode == 0, here.stderr
        assert "searching in this process (--no-daemon)" in here.stderr and "answered by" not in here.stderr
        bad = run("search", "coffee", "--daemon", "--mmr-lambda", "3")
        # A caller mistake is a usage error on every path (exit 2), answered by the daemon or not.
        assert bad.returncode == 2 and "--mmr-lambda" in bad.stderr and "Traceback" not in bad.stderr
        log = discovery.files_for(vault).log
        assert log.exists() and "listening on unix" in log.read_text()

        stopped = run("serve", "--stop")
        assert stopped.returncode == 0 and f"pid {info['pid']}" in stopped.stdout
    finally:
        if discovery.is_locked(vault):
            os.kill(info["pid"], 9)
    assert not discovery.is_locked(vault)
    assert not discovery.files_for(vault).socket.exists()
    assert not discovery.files_for(vault).state.exists()
    assert run("serve", "--status").returncode == 1
    assert "read in this process (no daemon answers" in run("status", "-v").stderr
    assert "no groove daemon answers" in run("status", "--daemon").stderr
    alone = run("search", "coffee", "-v")
    assert "searching in this process (no daemon answers for this vault)" in alone.stderr
    assert "no groove daemon answers" in run("search", "coffee", "--daemon").stderr
    t0 = time.monotonic()
    assert "no groove serve running" in run("serve", "--stop").stdout
    assert time.monotonic() - t0 < 30


@pytest.mark.needs_default_model
def test_daemon_with_the_default_model_finds_a_paraphrase(groove_home, tmp_path):
    models = Path(os.environ.get("GROOVE_TEST_MODELS_DIR", Path.home() / ".cache" / "groove-test-models"))
    if not (models / "multilingual-e5-small-q4_0.gguf").exists():
        pytest.skip("no cached converted default model (run the model tests once)")
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "espresso.md").write_text("# Espresso\n\nPull a shot of coffee with fine grounds.\n", encoding="utf-8")
    (vault / "roses.md").write_text("# Roses\n\nPrune the rose bushes in early spring.\n", encoding="utf-8")
    d = new_daemon(groove_home, None, vault)
    d.env["GROOVE_MODELS_DIR"] = str(models)
    try:
        d.start(timeout=120)
        with d.client() as c:
            d.wait_idle(c)
            assert c.index_status()["model"].startswith("multilingual-e5-small")
            top = c.search("how to make a strong cup of caffeine drink", limit=1)["results"][0]
            assert top["path"] == "espresso.md"
    finally:
        d.stop()


def test_start_with_a_missing_model_fails_fast_with_the_reason(groove_home, tmp_path):
    from groove.errors import DaemonStartFailed

    from .conftest import make_vault

    vault = make_vault(tmp_path, 2)
    missing = tmp_path / "nope.gguf"
    with pytest.raises(DaemonStartFailed) as e:
        discovery.start_detached(vault, model=str(missing), timeout=60)
    # Told apart from a crash by the daemon's exit status, not by the log's words.
    assert e.value.code == "model-missing" and e.value.exit_status == discovery.MODEL_EXIT_STATUS
    assert str(missing) in e.value.log_tail and str(missing) in str(e.value)
    assert not discovery.is_locked(vault)
    assert discovery.connect_info(vault)["running"] is False


def test_connect_info_json_failures_carry_a_stable_code(groove_home, tmp_path):
    # What the editor plugins switch on (editor-client connection.ts): the code, never the message.
    from .conftest import make_vault

    vault = make_vault(tmp_path, 2)
    env = daemon_env(groove_home)

    def fail(*args: str) -> dict:
        r = subprocess.run([sys.executable, "-m", "groove", "connect-info", *args, "--json"], env=env,
                           capture_output=True, text=True, timeout=90)
        assert r.returncode == 2, (r.stdout, r.stderr)
        return json.loads(r.stdout)["error"]

    missing = fail("--vault", str(vault), "--start", "--model", str(tmp_path / "nope.gguf"))
    assert missing["code"] == "model-missing" and "nope.gguf" in missing["log_tail"]
    assert missing["exit_status"] == discovery.MODEL_EXIT_STATUS and missing["log"].endswith(".log")
    assert fail("--vault", str(tmp_path / "no such vault"))["code"] == "vault"
    assert fail("--vault", str(vault), "--no-such-flag")["code"] == "usage"


def test_a_starting_daemon_waits_out_a_clients_probe_of_the_lock(tmp_path):
    """``is_locked`` probes the lock by taking it for a moment; a daemon that
    starts just then must not exit as if another one ran (a flaky restart in
    a loaded test run), while a lock really held is still refused."""
    import threading

    from groove.daemon.discovery import VaultLock

    path = tmp_path / "vault.lock"
    probe = VaultLock(path)
    assert probe.try_acquire()
    threading.Timer(0.1, probe.release).start()  # a probe, held far longer than a real one
    daemon = VaultLock(path)
    assert not daemon.try_acquire()  # what run_daemon asked before: refused
    assert daemon.acquire_within(5.0)
    other = VaultLock(path)
    assert not other.acquire_within(0.1)  # a running daemon holds it throughout
    daemon.release()
