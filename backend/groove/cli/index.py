"""`groove index`."""

from __future__ import annotations

import contextlib
import json
import shlex
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from .. import operations
from ..printable import escape_controls
from .common import default_vault, ensure_model_downloaded, index_option, model_option, runtime_from, yes_option
from .progress import IndexProgress, LineReporter

if TYPE_CHECKING:
    from ..indexer import IndexSummary
    from ..runtime import Runtime


@click.command("index")
@click.argument("vault", type=click.Path(path_type=Path), required=False)
@index_option
@model_option
@click.option("--rebuild", is_flag=True, help="Re-embed every note (needed after changing the model).")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@click.option("--json-progress", is_flag=True,
              help="Progress as one JSON object a line on stderr, every 5 s "
                   "({phase, done, total, chunks, elapsed_seconds, notes_per_second}).")
@yes_option
def index_cmd(vault: Path | None, index_path: Path | None, model: str | None, rebuild: bool, as_json: bool,
              yes: bool, json_progress: bool = False) -> None:
    """Index (or update the index of) a vault.

    On a terminal a progress bar; otherwise (a script, a cron job) a progress
    line on stderr every 5 s. Interrupted (Ctrl-C, SIGTERM), the notes stored
    so far are kept and a rerun goes on from there; an interrupted --rebuild
    keeps the old index.

    Example: groove index ~/Notes
    """
    from ..config import load_config
    from ..paths import check_vault

    # Ask about the model before anything is created on disk.
    ensure_model_downloaded(model or load_config(check_vault(default_vault(vault))).index.model, yes=yes)
    rt = runtime_from(vault, index_path, model)
    state = IndexProgress()
    with _sigterm_interrupts():
        try:
            summary = _run(rt, rebuild, state, as_json=as_json, json_progress=json_progress)
        except KeyboardInterrupt as e:
            click.echo(interrupted_message(rt.vault, state, rebuild, index_path), err=True)
            sys.exit(143 if isinstance(e, _Terminated) else 130)  # 128 + the signal, as a shell reports it
    if as_json:
        click.echo(json.dumps(summary.to_json(), ensure_ascii=False, indent=2))
        return
    d, c = rt.index.counts()
    click.echo(
        f"indexed {len(summary.indexed)}, unchanged {summary.unchanged}, renamed {len(summary.renamed)}, "
        f"deleted {len(summary.deleted)}, skipped {len(summary.skipped)} "
        f"({summary.chunks_embedded} chunks embedded in {summary.seconds:.1f}s; index: {d} notes, {c} chunks)"
    )
    if d == 0 and not summary.skipped:
        # Most often the wrong folder (a typo, its parent): say so rather than a quiet "0 notes".
        click.echo(f"warning: no notes (.md or .canvas files) in {escape_controls(str(rt.vault))} or its folders; "
                   "is this the vault's folder?", err=True)
    for s in summary.skipped:
        click.echo(f"  skipped {escape_controls(s.path)}: {escape_controls(s.reason)}")
    for p, w in summary.warnings:
        click.echo(f"  warning {escape_controls(p)}: {escape_controls(w)}")


def _run(rt: Runtime, rebuild: bool, state: IndexProgress, *, as_json: bool, json_progress: bool) -> IndexSummary:
    console = Console(stderr=True)
    if json_progress or not console.is_terminal:
        # No bar where nobody sees one redrawn: a line every few seconds instead.
        with LineReporter(state, as_json=json_progress):
            _ = rt.embedder
            return operations.reindex(rt, force=rebuild, progress=state.update)
    with Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), console=console,
        transient=True, disable=as_json,
    ) as bar:
        task = bar.add_task("loading model", total=None, rate="")
        _ = rt.embedder  # load before the bar starts counting
        bar.update(task, description="indexing")
        start = time.perf_counter()

        def on(ev: dict) -> None:
            state.update(ev)
            if ev.get("total") is not None:
                bar.update(task, total=max(1, ev["total"]), completed=ev.get("done", 0))
            if "chunks" in ev:
                el = time.perf_counter() - start
                bar.update(task, rate=f"{state.chunks} chunks, {state.chunks / max(el, 1e-6):.1f} chunks/s")

        return operations.reindex(rt, force=rebuild, progress=on)


def interrupted_message(vault: Path, state: IndexProgress, rebuild: bool, index_path: Path | None) -> str:
    """What an interrupted run kept, and the command that goes on."""
    again = f"groove index {shlex.quote(str(vault))}" + (f" --index {shlex.quote(str(index_path))}"
                                                          if index_path else "")
    if rebuild:
        return ("interrupted: the rebuild stopped and the old index is kept as it was (searches use it); "
                f"run `{again} --rebuild` to rebuild from the start")
    if state.total is None:
        return f"interrupted before any note was indexed; run `{again}` to index the vault"
    return (f"interrupted: {state.done} of {state.total} changed notes were indexed and are kept; "
            f"run `{again}` to index the other {state.total - state.done}")


class _Terminated(KeyboardInterrupt):
    """SIGTERM, handled as Ctrl-C: the run stops between SQLite statements,
    the stored notes (or, rebuilding, the old index) stay, and it says so."""


@contextlib.contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    def stop(signum: int, frame: object) -> None:
        raise _Terminated()

    try:
        old = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (a test's runner): leave SIGTERM alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)
