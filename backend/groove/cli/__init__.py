"""The `groove` command: a click group; one file per command."""

from __future__ import annotations

import sys

import click

from .. import __version__
from ..errors import GrooveError, InvalidArgument


class _Group(click.Group):
    """groove's errors, mapped once: a wrong argument is a usage error, any
    other GrooveError a one-line message; both exit 2."""

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


from .doctor import doctor_cmd  # noqa: E402
from .eval import eval_cmd, tune_cmd  # noqa: E402
from .index import index_cmd, status_cmd  # noqa: E402
from .mcp import mcp_cmd  # noqa: E402
from .models import models  # noqa: E402
from .search import search_cmd  # noqa: E402
from .serve import connect_info_cmd, serve_cmd  # noqa: E402

cli.add_command(index_cmd)
cli.add_command(status_cmd)
cli.add_command(search_cmd)
cli.add_command(doctor_cmd)
cli.add_command(models)
cli.add_command(eval_cmd)
cli.add_command(tune_cmd)
cli.add_command(serve_cmd)
cli.add_command(connect_info_cmd)
cli.add_command(mcp_cmd)


def main() -> None:
    cli()
