"""`groove serve` and `groove connect-info`."""

from __future__ import annotations

import json
import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import click

from .common import (
    default_vault,
    ensure_model_downloaded,
    gathered,
    index_option,
    model_option,
    vault_option,
    yes_option,
)


def _vault(vault: Path | None) -> Path:
    from ..paths import check_vault

    return check_vault(default_vault(vault))


@dataclass(frozen=True)
class StartOptions:
    """How `groove serve` starts the daemon (the options besides --status and --stop)."""

    foreground: bool = False  # run in this terminal
    verbose: bool = False  # log every request
    detached_child: bool = False  # this process is the detached daemon its parent started
    yes: bool = False  # download the default model without asking


@click.command("serve")
@vault_option
@index_option
@model_option
@click.option("--foreground", is_flag=True,
              help="Run in this terminal and log to it (default: start in the background).")
@click.option("--status", "status", is_flag=True, help="Is a daemon running for the vault? (exit 0 if so, 1 if not)")
@click.option("--stop", "stop", is_flag=True, help="Stop the vault's daemon (SIGTERM, wait, clean up).")
@click.option("--json", "as_json", is_flag=True, help="With --status: print JSON.")
@click.option("--verbose", is_flag=True,
              help="Log every request: client, method, outcome and time (never the query or note text).")
@click.option("--detached-child", is_flag=True, hidden=True)
@yes_option
@gathered("start", StartOptions)
def serve_cmd(vault: Path | None, index_path: Path | None, model: str | None, status: bool, stop: bool,
              as_json: bool, start: StartOptions) -> None:
    """Keep the vault's index and models warm for editors and MCP, over a local socket.

    One daemon per vault; it watches the vault and reindexes changed notes.
    It starts in the background and this command returns (--foreground to
    keep it in the terminal); `groove serve --status` shows it, `groove serve
    --stop` stops it.

    Example: groove serve --vault ~/Notes
    """
    from ..daemon import discovery, lifecycle

    v = _vault(vault)
    if status:
        sys.exit(_status(v, as_json))
    if stop:
        pid = lifecycle.stop_daemon(v)
        click.echo(f"stopped groove serve (pid {pid}) for {v}" if pid else f"no groove serve running for {v}")
        return
    if not start.detached_child:  # the parent asked already; a detached child has no terminal
        ensure_model_downloaded(_configured_model(v, model), yes=start.yes)
    if start.foreground or start.detached_child:
        sys.exit(lifecycle.run_daemon(v, index_path=index_path, model=model, foreground=start.foreground,
                                      verbose=start.verbose))
    st = discovery.running_state(v)
    if st is not None:
        raise lifecycle.AlreadyRunning(
            f"groove serve is already running for {v} (pid {st.get('pid', '?')}, "
            f"{st.get('transport', 'unix')} {st.get('address', '')}); stop it with `groove serve --stop`")
    t0 = time.perf_counter()
    info = discovery.start_detached(v, index_path=index_path, model=model, verbose=start.verbose)
    f = discovery.files_for(v)
    click.echo(f"groove serve is running in the background for {v} (pid {info['pid']}, {info['transport']} "
               f"{info['address']}; started in {time.perf_counter() - t0:.1f}s)\n"
               f"  it keeps the index and model warm and reindexes notes as they change\n"
               f"  log: {f.log}\n"
               f"  stop it: groove serve --stop --vault {shlex.quote(str(v))}")


def _configured_model(v: Path, model: str | None) -> str | None:
    from ..config import load_config

    return model or load_config(v).index.model or None


def _status(v: Path, as_json: bool) -> int:
    from ..daemon import auth, discovery
    from ..daemon.client import ConnectError, DaemonClient

    info = discovery.connect_info(v)
    f = discovery.files_for(v)
    st = discovery.read_state(v) or {}
    out: dict = {
        "vault": str(v), "running": info["running"], "pid": info["pid"], "transport": info["transport"],
        "address": info["address"], "log": str(f.log), "token_store": st.get("token_store") or auth.store_info().store,
        "started_at": st.get("started_at"), "index": None,
    }
    if info["running"]:
        try:
            with DaemonClient.connect(info, client="groove-serve-status", timeout=5.0) as c:
                out["index"] = c.index_status()
        except (ConnectError, OSError, TimeoutError) as e:
            out["error"] = str(e)
    if as_json:
        click.echo(json.dumps({k: (v2 if k != "token" else None) for k, v2 in out.items()}, indent=2))
    elif not info["running"]:
        click.echo(f"no groove serve running for {v}")
    else:
        up = time.time() - (out["started_at"] or time.time())
        click.echo(f"groove serve running for {v}\n  pid {out['pid']}, up {up:.0f}s\n"
                   f"  {out['transport']} {out['address']}\n  token store: {out['token_store']}\n  log: {out['log']}")
        idx = out.get("index")
        if idx:
            click.echo(f"  index: {idx['documents']} notes, {idx['chunks']} chunks, model {idx['model']}, "
                       f"{'indexing' if idx['indexing'] else 'idle'}, {idx['stale_files']} stale, "
                       f"watching: {idx.get('watching')}")
        elif out.get("error"):
            click.echo(f"  not answering: {out['error']}")
    return 0 if info["running"] else 1


@click.command("connect-info")
@vault_option
@index_option
@model_option
@click.option("--start", is_flag=True, help="Start the daemon if none runs, and wait until it accepts connections.")
@click.option("--timeout", type=float, default=120.0, show_default=True, help="Seconds to wait with --start.")
@click.option("--json", "as_json", is_flag=True, help="Accepted for symmetry: the output is JSON anyway.")
def connect_info_cmd(vault, index_path, model, start: bool, timeout: float, as_json: bool) -> None:
    """Print how to reach the vault's daemon as JSON (for editor plugins).

    {"vault", "transport", "address", "token", "pid", "running", "protocol_version"}; a failure
    prints {"error": {"code", "message", ...}} on stdout (exit 2), code one of model-download-needed,
    model-missing, daemon-exited, start-timeout, vault, usage, error (the message is for people).
    """
    from ..daemon import discovery

    v = _vault(vault)
    if start:  # plugins call this: no prompt, a clear error naming `groove models pull default`
        ensure_model_downloaded(_configured_model(v, model), may_prompt=False)
        info = discovery.start_detached(v, index_path=index_path, model=model, timeout=timeout)
    else:
        info = discovery.connect_info(v)
    click.echo(json.dumps(info))
