"""The `groove` command: a click group; one file per command."""

from __future__ import annotations

import sys

import click

from .. import __version__
from ..errors import GrooveError, InvalidArgument


class _Group(click.Group):
    """groove's errors, mapped once: a wrong argument is a usage error, any
    other GrooveError a one-line message; both exit 2. Subcommands are
    imported when used (``COMMANDS``)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.commands or name not in COMMANDS:
            return super().get_command(ctx, name)
        import importlib

        module, attr = COMMANDS[name].split(":")
        cmd = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        self.add_command(cmd, name)
        return cmd

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except InvalidArgument as e:
            raise click.UsageError(str(e)) from e
        except GrooveError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(2)


@click.group(cls=_Group)
@click.version_option(__version__, prog_name="groove")
def cli() -> None:
    """Local semantic search over a Markdown vault (hybrid: embeddings + full text)."""


# name -> "module:attribute". Loaded on first use, so `groove search` answered
# by a daemon imports neither numpy nor the pipeline (ADR 0119).
COMMANDS: dict[str, str] = {
    "index": "index:index_cmd",
    "status": "status:status_cmd",
    "search": "search:search_cmd",
    "related": "related:related_cmd",
    "doctor": "doctor:doctor_cmd",
    "models": "models:models",
    "eval": "eval:eval_cmd",
    "tune": "eval:tune_cmd",
    "serve": "serve:serve_cmd",
    "connect-info": "serve:connect_info_cmd",
    "mcp": "mcp:mcp_cmd",
}


def main() -> None:
    cli()
