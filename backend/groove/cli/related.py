"""`groove related NOTE`: the notes near one note (by its embedding), the
notes linking to it and its outgoing links. Asks the vault's running daemon
first, like `groove search` and `groove status`."""

from __future__ import annotations

import json
from pathlib import Path

import click

from ..errors import NoteNotFound
from ..printable import escape_controls
from ..wire.bounds import MAX_RELATED
from .common import DaemonChoice, Limit, daemon_options, daemon_or_here, index_option, vault_option


@click.command("related")
@click.argument("note")
@vault_option
@index_option
@click.option("--limit", type=Limit(MAX_RELATED), default=10, show_default=True,
              help=f"Similar notes to list (at most {MAX_RELATED}, a larger one is clamped).")
@click.option("--unlinked", is_flag=True,
              help="Only similar notes no link joins to NOTE (either way); still --limit of them.")
@click.option("--json", "as_json", is_flag=True,
              help="Print {path, similar, backlinks, outgoing, attachments, own_headings}.")
@daemon_options
def related_cmd(note: str, vault: Path | None, index_path: Path | None, limit: int, unlinked: bool, as_json: bool,
                daemon: DaemonChoice) -> None:
    """Notes similar to NOTE (a vault-relative path, as search prints it),
    the notes that link to it, and where its links go.

    Similar notes a link already joins to NOTE are marked "linked";
    --unlinked lists only the others (candidates for a new link).

    Example: groove related "Obsidian Sync/Sync settings.md" --vault ~/Notes
    """
    if not note.strip():  # the shared check names MCP's arguments (path, chunk_id)
        raise click.UsageError("NOTE is empty: give a note's vault-relative path, as `groove search` prints it")
    params: dict[str, object] = {"path": note, "limit": limit}
    if unlinked:
        params["unlinked_only"] = True
    try:
        res = daemon_or_here(vault, index_path, "related_notes", params, daemon)
    except NoteNotFound:
        # Not a path: a note's name, as a [[link]] names it ("Linux" for
        # "Computing/Unix/Linux.md"), read the way Obsidian reads the link.
        link = daemon_or_here(vault, index_path, "resolve_link", {"link": f"[[{note}]]"}, daemon) \
            if "[" not in note and "]" not in note else None
        if not link or not link.get("path"):
            raise
        click.echo(f"{escape_controls(note)}: read as [[{escape_controls(note)}]], "
                   f"{escape_controls(link['path'])}", err=True)
        res = daemon_or_here(vault, index_path, "related_notes", {**params, "path": link["path"]}, daemon)
    if as_json:
        click.echo(json.dumps(res, ensure_ascii=False, indent=2))
        return
    similar = res["similar"]
    # One figure a note, the one that orders the list (as both plugins show it): relevance
    # (ADR 0276) when sent; the cosine orders only a list without it. --json has both.
    ranked = bool(similar) and all("relevance" in s for s in similar)
    figure = "relevance" if ranked else "similarity"
    # Relevance below 0 (a z-score, ADR 0276) is a note no closer than a typical
    # one of the vault: shown as 0.00, as both plugins show it; "-0.23" read as a fault.
    floor = " 0.00 is no closer than a typical note" if ranked and any(s["relevance"] <= 0 for s in similar) else ""
    click.echo(f"{'unlinked notes' if unlinked else 'similar'} to {escape_controls(res['path'])}"
               + (f" ({figure}, highest first):{floor}" if similar else ":"))
    for s in similar:
        mark = "  (linked)" if s.get("linked") else ""
        fig = f"{max(0.0, s['relevance']):5.2f}" if ranked else f"{s['score']:.3f}"
        click.echo(f"  {fig}  {escape_controls(s['path'])}{mark}")
    click.echo(f"linking here ({len(res['backlinks'])}):")
    for b in res["backlinks"]:
        click.echo(f"  {escape_controls(b['path'])}:{b['line']}")
    click.echo(f"links out ({len(res['outgoing'])}):")
    for o in res["outgoing"]:
        where = escape_controls(o["path"]) if o["path"] else "(no such note)"
        heading = f"#{o['heading']}" if o.get("heading") else ""
        click.echo(f"  [[{escape_controls(o['target'])}{heading}]] -> {where}  (line {o['line']})")
    attachments = res.get("attachments") or []
    if attachments:
        click.echo(f"attachments ({len(attachments)}):")
        for a in attachments:
            where = escape_controls(a["path"]) if a["path"] else "(not in the vault)"
            bang = "!" if a["embed"] else ""
            click.echo(f"  {bang}[[{escape_controls(a['target'])}]] -> {where}  (line {a['line']})")
    own = res.get("own_headings") or []
    if own:
        click.echo(f"headings of this note ({len(own)}):")
        for h in own:
            anchor = f"#^{h['block']}" if h.get("block") else f"#{h['heading']}"
            click.echo(f"  [[{escape_controls(anchor)}]]  (line {h['line']})")
