"""`groove doctor`."""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path

import click

from ..doctor import run_checks
from ..printable import escape_controls


@click.command("doctor")
@click.option("--vault", type=click.Path(path_type=Path), default=None,
              help="Also check this vault's index (default: no index check).")
@click.option("--index", "index_path", type=click.Path(path_type=Path), default=None,
              help="Index file to check (default: the vault's, under the user data dir).")
@click.option("--model", default=None,
              help="Embedding model to check: a GGUF path or a known name (default: the default model).")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON ([{name, ok, detail, fix}]).")
def doctor_cmd(vault: Path | None, index_path: Path | None, model: str | None, as_json: bool) -> None:
    """Check Python, SQLite/FTS5 trigram, sqlite-vec, llama.cpp, the model and the index.

    Exit 0 when every check passes, 1 otherwise (each failure says how to fix it).

    Example: groove doctor --vault ~/Notes
    """
    results = run_checks(vault, index_path, model)
    if as_json:
        click.echo(json.dumps([asdict(r) for r in results], indent=2))
    else:
        for r in results:
            mark = click.style("ok  ", fg="green") if r.ok else click.style("FAIL", fg="red")
            click.echo(f"{mark} {r.name}: {escape_controls(r.detail)}")  # a detail may name a note or path
            if not r.ok and r.fix:
                click.echo(f"     fix: {escape_controls(r.fix)}")
    if not all(r.ok for r in results):
        sys.exit(1)
