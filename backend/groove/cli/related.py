"""`groove related NOTE`: the notes near one note (by its embedding), the
notes linking to it and its outgoing links. Asks the vault's running daemon
first, like `groove search` and `groove status`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from .common import ask_daemon, daemon_options, index_option, runtime_from, shown, vault_option


@click.command("related")
@click.argument("note")
@vault_option
@index_option
@click.option("--limit", type=click.IntRange(1, 50), default=10, show_default=True, help="Similar notes to list.")
@click.option("--json", "as_json", is_flag=True)
@daemon_options
def related_cmd(note: str, vault: Path | None, index_path: Path | None, limit: int, as_json: bool,
                use_daemon: bool = False, no_daemon: bool = False, verbose: bool = False) -> None:
    """Notes similar to NOTE (a vault-relative path, as search prints it),
    the notes that link to it, and where its links go.

    Example: groove related "Obsidian Sync/Sync settings.md" --vault ~/Notes
    """
    if use_daemon and no_daemon:
        raise click.UsageError("--daemon and --no-daemon exclude each other")
    params = {"path": note, "limit": limit}
    res: dict[str, Any] | None = None
    if not no_daemon and index_path is None:
        res = ask_daemon(vault or Path.cwd(), "related_notes", params, required=use_daemon, verbose=verbose)
    if res is None:
        if verbose:
            why = "--no-daemon" if no_daemon else "--index given" if index_path else "no daemon answers for this vault"
            click.echo(f"read in this process ({why})", err=True)
        from .. import service

        res = service.call(runtime_from(vault, index_path, create=False), "related_notes", params)
    if as_json:
        click.echo(json.dumps(res, ensure_ascii=False, indent=2))
        return
    click.echo(f"similar to {shown(res['path'])}:")
    for s in res["similar"]:
        click.echo(f"  {s['score']:.3f}  {shown(s['path'])}")
    click.echo(f"linking here ({len(res['backlinks'])}):")
    for b in res["backlinks"]:
        click.echo(f"  {shown(b['path'])}:{b['line']}")
    click.echo(f"links out ({len(res['outgoing'])}):")
    for o in res["outgoing"]:
        where = shown(o["path"]) if o["path"] else "(no such note)"
        heading = f"#{o['heading']}" if o.get("heading") else ""
        click.echo(f"  [[{shown(o['target'])}{heading}]] -> {where}  (line {o['line']})")
