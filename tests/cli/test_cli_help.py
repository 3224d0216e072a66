"""Every option of every command says what it does in --help (`related
--json`, `status --json` and all four of doctor's options printed a bare
flag), and every command's help fits 80 columns."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner

from groove.cli import COMMANDS, cli


def _commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(cli)
    out = []
    for name in sorted(COMMANDS):
        cmd = cli.get_command(ctx, name)
        assert cmd is not None
        out.append((name, cmd))
        if isinstance(cmd, click.Group):
            out += [(f"{name} {sub}", cmd.get_command(ctx, sub)) for sub in cmd.list_commands(ctx)]
    return out


@pytest.mark.parametrize("name,cmd", _commands(), ids=[n for n, _ in _commands()])
def test_every_option_has_help_and_the_help_fits_80_columns(name, cmd):
    bare = [p.opts[0] for p in cmd.params if isinstance(p, click.Option) and not p.hidden and not p.help]
    assert not bare, f"groove {name}: {bare} have no help"
    res = CliRunner().invoke(cli, [*name.split(), "--help"], terminal_width=80)
    assert res.exit_code == 0, res.output
    assert max(map(len, res.output.splitlines())) <= 80, res.output
