"""`groove index`."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .. import service
from ..printable import escape_controls
from .common import ensure_model_downloaded, index_option, model_option, runtime_from, yes_option


@click.command("index")
@click.argument("vault", type=click.Path(path_type=Path), required=False)
@index_option
@model_option
@click.option("--rebuild", is_flag=True, help="Re-embed every note (needed after changing the model).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@yes_option
def index_cmd(vault: Path | None, index_path: Path | None, model: str | None, rebuild: bool, as_json: bool,
              yes: bool) -> None:
    """Index (or update the index of) a vault.

    Example: groove index ~/Notes
    """
    from ..config import load_config
    from ..paths import check_vault

    # Ask about the model before anything is created on disk.
    ensure_model_downloaded(model or load_config(check_vault(vault or Path.cwd())).index.model, yes=yes)
    rt = runtime_from(vault, index_path, model)
    console = Console(stderr=True)
    start = time.perf_counter()
    state = {"chunks": 0}
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), console=console,
        transient=True, disable=as_json,
    ) as bar:
        task = bar.add_task("loading model", total=None, rate="")
        _ = rt.embedder  # load before the bar starts counting
        bar.update(task, description="indexing")

        def on(ev: dict) -> None:
            if ev.get("total") is not None:
                bar.update(task, total=max(1, ev["total"]), completed=ev.get("done", 0))
            if "chunks" in ev:
                state["chunks"] = ev["chunks"]
                el = time.perf_counter() - start
                bar.update(task, rate=f"{state['chunks']} chunks, {state['chunks'] / max(el, 1e-6):.1f} chunks/s")

        summary = service.reindex(rt, force=rebuild, progress=on)
    if as_json:
        click.echo(json.dumps(summary.to_json(), ensure_ascii=False, indent=2))
        return
    d, c = rt.index.counts()
    click.echo(
        f"indexed {len(summary.indexed)}, unchanged {summary.unchanged}, renamed {len(summary.renamed)}, "
        f"deleted {len(summary.deleted)}, skipped {len(summary.skipped)} "
        f"({summary.chunks_embedded} chunks embedded in {summary.seconds:.1f}s; index: {d} notes, {c} chunks)"
    )
    for s in summary.skipped:
        click.echo(f"  skipped {escape_controls(s.path)}: {s.reason}")
    for p, w in summary.warnings:
        click.echo(f"  warning {escape_controls(p)}: {w}")
