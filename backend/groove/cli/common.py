"""Options shared by several commands."""

from __future__ import annotations

from pathlib import Path

import click

from ..runtime import Runtime, open_runtime


def vault_option(f):
    return click.option(
        "--vault", "vault", type=click.Path(path_type=Path), default=None,
        help="Vault folder (default: the current directory).",
    )(f)


def index_option(f):
    return click.option(
        "--index", "index_path", type=click.Path(path_type=Path), default=None,
        help="Index file (default: one per vault under the user data dir).",
    )(f)


def model_option(f):
    return click.option(
        "--model", "model", default=None,
        help="Embedding model: a GGUF path or a known name (see `groove models list`).",
    )(f)


def runtime_from(vault: Path | None, index_path: Path | None = None, model: str | None = None,
                 *, create: bool = True) -> Runtime:
    rt = open_runtime(vault or Path.cwd(), index_path=index_path, model=model, create=create)
    for w in rt.config.warnings:
        click.echo(f"warning: {w}", err=True)
    return rt
