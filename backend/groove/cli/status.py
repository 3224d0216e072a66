"""`groove status`: answered by the vault's running daemon when there is
one (it also knows what it is indexing and what is queued), else read from
the index in this process. The daemon path imports only the socket client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .common import ask_daemon, daemon_options, index_option, runtime_from, shown, vault_option


@click.command("status")
@vault_option
@index_option
@click.option("--json", "as_json", is_flag=True)
@daemon_options
def status_cmd(vault: Path | None, index_path: Path | None, as_json: bool, use_daemon: bool = False,
               no_daemon: bool = False, verbose: bool = False) -> None:
    """Show what the index holds and whether it is up to date."""
    if use_daemon and no_daemon:
        raise click.UsageError("--daemon and --no-daemon exclude each other")
    st: dict[str, Any] | None = None
    if not no_daemon and index_path is None:
        st = ask_daemon(vault or Path.cwd(), "index_status", {}, required=use_daemon, verbose=verbose)
    if st is None:
        if verbose:
            why = "--no-daemon" if no_daemon else "--index given" if index_path else "no daemon answers for this vault"
            click.echo(f"read in this process ({why})", err=True)
        from .. import service

        st = service.index_status(runtime_from(vault, index_path, create=False))
    if as_json:
        click.echo(json.dumps(st, ensure_ascii=False, indent=2))
        return
    for k in ("vault", "index_path", "documents", "chunks", "model", "dim", "last_indexed_iso", "stale_files"):
        click.echo(f"{k:>16}: {st[k]}")
    if "watching" in st:  # the daemon's own state
        queued = st.get("pending_changes") or 0
        doing = "indexing" if st.get("indexing") else "idle"
        click.echo(f"{'daemon':>16}: {doing}, {'watching' if st['watching'] else 'not watching'} the vault"
                   + (f", {queued} changes queued" if queued else ""))
        if st.get("last_error"):
            click.echo(f"{'last error':>16}: {st['last_error']}")
    click.echo(f"{'skipped':>16}: {st['skipped_count']}")
    for s in st["skipped"]:
        click.echo(f"{'':>16}  {shown(s['path'])}: {s['reason']}")
    if st["skipped_count"] > len(st["skipped"]):
        click.echo(f"{'':>16}  ... and {st['skipped_count'] - len(st['skipped'])} more")
    for w in st["warnings"]:
        click.echo(f"warning: {w}", err=True)
