"""The `groove` command: a click group; one file per command."""

from __future__ import annotations

import sys
from typing import NoReturn

import click

from .. import __version__
from ..errors import GrooveError, InvalidArgument
from ..printable import escape_controls
from .pipes import reader_gone


class _Group(click.Group):
    """groove's errors, mapped once: a wrong argument is a usage error, any
    other GrooveError a one-line message; both exit 2. With ``--json`` (and
    always for connect-info) the failure is also a JSON object on stdout, ``{"error": {"code", "message",
    ...}}``, whose ``code`` programs switch on (the editor plugins; the
    message may be reworded, the code is not). Subcommands are imported when
    used (``COMMANDS``)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta[_JSON_ERRORS] = "--json" in args or bool(args and args[0] in _JSON_ONLY)
        try:
            return super().parse_args(ctx, args)
        except BrokenPipeError:  # `groove --help | head -1`
            reader_gone()

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
        as_json = ctx.meta.get(_JSON_ERRORS, False)
        try:
            return super().invoke(ctx)
        except GrooveError as e:
            from .common import INDEX_COMMAND, with_index_command

            # "run `groove index`" names the vault: typed in another folder,
            # the bare command would index that folder.
            # The operations' messages serve MCP too: here only the command is the way.
            e.args = (with_index_command(str(e), ctx.meta.get(INDEX_COMMAND)).replace(
                ", or the reindex tool over MCP", ""),)
            self._report(e, as_json, self._flag_of(ctx, e))
        except click.UsageError as e:
            _json_error(as_json, {"code": "usage", "message": e.format_message()})
            raise
        except (click.exceptions.Exit, click.Abort):
            raise
        except BrokenPipeError:  # the reader of stdout went away: `groove search x | head -1`
            reader_gone()
        except KeyboardInterrupt:
            # Ctrl-C: 130 as a shell reports it (click's "Aborted!" exits 1, the code of a failure).
            click.echo("interrupted", err=True)
            sys.exit(130)
        except Exception as e:  # a bug: the traceback still goes to stderr
            _json_error(as_json, {"code": "internal", "message": f"{type(e).__name__}: {e}"})
            raise

    def _flag_of(self, ctx: click.Context, e: GrooveError) -> str | None:
        """The option the user typed for the wrong parameter (``--from`` for
        date_from; QUERY for query): the message names the parameter as the protocol does."""
        param = getattr(e, "param", None)
        cmd = self.get_command(ctx, ctx.invoked_subcommand) if ctx.invoked_subcommand else None
        for p in cmd.params if param and cmd else []:
            if isinstance(p, click.Option) and p.name == param:
                return p.opts[0]
            if isinstance(p, click.Argument) and p.name == param:
                return p.human_readable_name  # QUERY, as --help names it
        return None

    @staticmethod
    def _report(e: GrooveError, as_json: bool, flag: str | None = None) -> NoReturn:
        _json_error(as_json, e.to_json())
        if isinstance(e, InvalidArgument):
            text = str(e).replace(f"'{e.param}'", flag, 1) if flag else str(e)
            raise click.UsageError(escape_controls(text)) from e
        click.echo(f"error: {escape_controls(str(e))}", err=True)
        sys.exit(2)


_JSON_ERRORS = "groove.json_errors"
# Commands only programs call, whose output is JSON anyway: failures are JSON
# without --json, so a plugin reads the code from any groove that has one.
_JSON_ONLY = {"connect-info"}


def _json_error(as_json: bool, error: dict) -> None:
    if as_json:
        import json

        try:
            click.echo(json.dumps({"error": error}, ensure_ascii=False))
        except BrokenPipeError:  # raised inside an except clause of invoke: not caught there
            reader_gone()


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
    try:
        cli()
    except SystemExit:
        # What is still buffered goes out now, where a closed pipe can still end quietly.
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            reader_gone()
        raise
