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
@click.option("--vault", type=click.Path(path_type=Path), default=None)
@click.option("--index", "index_path", type=click.Path(path_type=Path), default=None)
@click.option("--model", default=None)
@click.option("--json", "as_json", is_flag=True)
def doctor_cmd(vault: Path | None, index_path: Path | None, model: str | None, as_json: bool) -> None:
    """Check Python, SQLite/FTS5 trigram, sqlite-vec, llama.cpp, the model and the index."""
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
