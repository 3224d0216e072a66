"""`groove status`: answered by the vault's running daemon when there is
one (it also knows what it is indexing and what is queued), else read from
the index in this process. The daemon path imports only the socket client."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click

from ..printable import escape_controls
from .common import DaemonChoice, daemon_options, daemon_or_here, index_command, index_option, vault_option


@click.command("status")
@vault_option
@index_option
@click.option("--json", "as_json", is_flag=True,
              help="Print every field (stale_paths, skipped, exclusions, the daemon's state) as JSON.")
@click.option("--why", "why", metavar="PATH", default=None,
              help="Say which rule (hidden folders, .grooveignore, Obsidian's Excluded files) leaves this note out.")
@daemon_options
def status_cmd(vault: Path | None, index_path: Path | None, as_json: bool, why: str | None,
               daemon: DaemonChoice) -> None:
    """Show what the index holds and whether it is up to date.

    Example: groove status --vault ~/Notes
    """
    st = daemon_or_here(vault, index_path, "index_status", {"why": why} if why is not None else {},
                        daemon)
    if as_json:
        click.echo(json.dumps(st, ensure_ascii=False, indent=2))
        return
    for k in ("vault", "index_path", "documents", "chunks", "model", "dim", "last_indexed_iso", "stale_files"):
        click.echo(f"{k:>16}: {escape_controls(str(st[k]))}")
    for line in stale_lines(st, index_path):
        click.echo(line)
    if "watching" in st:  # the daemon's own state
        queued = st.get("pending_changes") or 0
        doing = "indexing" if st.get("indexing") else "idle"
        click.echo(f"{'daemon':>16}: {doing}, {'watching' if st['watching'] else 'not watching'} the vault"
                   + (f", {queued} changes queued" if queued else ""))
        if st.get("watch_problem"):
            click.echo(f"{'not watching':>16}: {escape_controls(st['watch_problem'])}")
        if st.get("last_error"):
            click.echo(f"{'last error':>16}: {escape_controls(st['last_error'])}")
    for line in copy_lines(st):
        click.echo(line)
    if (av := answer_vectors_line(st)) is not None:
        click.echo(av)
    for ex in st.get("exclusions") or []:  # the rules that leave notes out (ADR 0190)
        values = ex.get("values") or []
        click.echo(f"{'excluded by':>16}: {ex['rule']}, {ex['entries']} entries"
                   + (f": {', '.join(escape_controls(v) for v in values)}" if values else ""))
    if st.get("why"):
        click.echo(f"{'why':>16}: {_why_line(st['vault'], st['why'])}")
    click.echo(f"{'skipped':>16}: {st['skipped_count']}")
    for s in st["skipped"]:
        click.echo(f"{'':>16}  {escape_controls(s['path'])}: {escape_controls(s['reason'])}")
    if st["skipped_count"] > len(st["skipped"]):
        click.echo(f"{'':>16}  ... and {st['skipped_count'] - len(st['skipped'])} more")
    for w in st["warnings"]:
        click.echo(f"warning: {escape_controls(w)}", err=True)


STALE_SHOWN = 10  # changed notes named under stale_files; the JSON has up to 100


def stale_lines(st: dict, index_path: Path | None) -> list[str]:
    """Which notes changed since the last index run, and the command that
    takes them in: a count alone left people to guess both. A watching
    daemon takes them in by itself, so it gets no command."""
    paths = st.get("stale_paths") or []
    stale = st.get("stale_files") or 0  # None: the vault could not be scanned (a moved folder)
    out = [f"{'':>16}  {escape_controls(p)}" for p in paths[:STALE_SHOWN]]
    if stale > len(out):
        out.append(f"{'':>16}  ... and {stale - len(out)} more")
    if stale and not st.get("watching"):
        out.append(f"{'':>16}  (new, changed or deleted since the last index run; "
                   f"run `{index_command(Path(st['vault']), index_path)}` to take them in)")
    return out


def copy_lines(st: dict) -> list[str]:
    """The big-vault copies' lines (ADR 0121, 0132): none when this process
    keeps none or the vault is small, and "not used below N chunks" where a
    copy went stale on a vault too small for searches to read it — a
    "stale" there worried people about nothing (issue 48)."""
    out = []
    wi = st.get("word_index") or {}
    vc = st.get("vector_copy") or {}
    for name, copy in (("word index", wi), ("vector copy", vc)):
        state = copy.get("state")
        if state in (None, "off", "small"):
            continue
        if copy.get("min_rows") and st.get("chunks") is not None and st["chunks"] < copy["min_rows"]:
            out.append(f"{name:>16}: not used below {copy['min_rows']:,} chunks")
        elif name == "word index":
            size = (f": {wi['rows']} rows, {wi['megabytes']} MB, built in {wi['build_seconds']} s"
                    if wi.get("rows") else "")
            out.append(f"{name:>16}: {state}{size}")
        else:
            size = (f": {vc['rows']} rows, {vc['megabytes']} MB, loaded in {vc['load_seconds']} s"
                    + (", head scan" if vc.get("head_scan") else "")) if vc.get("rows") else ""
            out.append(f"{name:>16}: {state}{size}")
    return out


def answer_vectors_line(st: dict) -> str | None:
    """How many sentence vectors the index holds for answer spans (ADR 0281),
    and, from a daemon, how many it has still to store while idle: the
    background work a busy core after indexing is."""
    av = st.get("answer_vectors")
    if not av:
        return None
    line = f"{'answer vectors':>16}: {av['stored']:,} sentences stored"
    left = av.get("to_store")
    if left:
        line += f", {left:,} to store while the daemon is idle"
    elif left == 0:
        line += " (all)"
    elif "to_store" in av:
        line += f"; the daemon stores {'the rest' if av['stored'] else 'them'} once idle (15 s without a request)"
    elif "watching" in st:
        line += " ([index] answer_vectors is off)"
    else:
        line += " (a running daemon stores them: `groove serve`)"
    return line


def _why_line(vault: str, why: dict) -> str:
    """`--why`'s answer; a path with no file behind it says so rather than
    "not left out by any rule" (issue 48)."""
    shown = escape_controls(why["path"])
    if why.get("excluded_by"):
        return f"{shown} is {escape_controls(why['excluded_by'])}"
    if not os.path.lexists(os.path.join(vault, why["path"])):
        return f"{shown} does not exist in the vault (no rule decides about it; check the path)"
    return f"{shown} is not left out by any rule (the vault's rules take it)"
