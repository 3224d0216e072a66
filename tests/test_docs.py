"""Docs that cannot drift: every command has help, every RPC method and MCP
tool is documented, every ADR the code cites exists, the README's
groove.toml names every setting with its default."""

from __future__ import annotations

import re
from pathlib import Path

import click

from groove.cli import cli
from groove.wire.models import METHODS

ROOT = Path(__file__).resolve().parents[1]


def _commands(group: click.Group, prefix: str = ""):
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # loads the lazy subcommands
        cmd = group.get_command(ctx, name)
        assert cmd is not None, name
        yield prefix + name, cmd
        if isinstance(cmd, click.Group):
            yield from _commands(cmd, prefix + name + " ")


def test_every_cli_command_has_help_text():
    missing = [name for name, cmd in _commands(cli) if not (cmd.help or cmd.short_help)]
    assert missing == []


def test_every_protocol_method_is_documented_in_protocol_md():
    doc = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    missing = [m for m in METHODS if f"`{m}`" not in doc]
    assert missing == []


def test_every_adr_cited_in_the_code_exists():
    adrs = {p.name[:4] for p in (ROOT / "docs" / "adr").glob("[0-9][0-9][0-9][0-9]-*.md")}
    cited: set[str] = set()
    for py in (ROOT / "backend" / "groove").rglob("*.py"):
        cited |= {m.zfill(4) for m in re.findall(r"ADR[- ]?0*(\d{1,4})", py.read_text(encoding="utf-8"))}
    assert sorted(cited - adrs) == []


def test_every_adr_has_a_status_line_and_a_row_in_the_index():
    adr_dir = ROOT / "docs" / "adr"
    index = (adr_dir / "README.md").read_text(encoding="utf-8")
    for p in sorted(adr_dir.glob("[0-9][0-9][0-9][0-9]-*.md")):
        head = p.read_text(encoding="utf-8").splitlines()[:6]
        assert any(line.startswith("Status: ") for line in head), f"{p.name} has no 'Status:' line"
        assert f"]({p.name})" in index, f"{p.name} is not in docs/adr/README.md"


def _readme_toml() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Configuration", 1)[1]
    return section.split("```toml\n", 1)[1].split("```", 1)[0]


def _setting_keys(cls: type, prefix: str = "") -> set[str]:
    import dataclasses

    from groove.config import _toml_name

    out: set[str] = set()
    for f in dataclasses.fields(cls):
        if f.name in ("source", "warnings"):
            continue
        value = getattr(cls(), f.name)
        if dataclasses.is_dataclass(value):
            out |= _setting_keys(type(value), f"{prefix}{f.name}.")
        else:
            out.add(prefix + _toml_name(f.name))
    return out


def test_the_readmes_groove_toml_lists_every_setting_with_its_default():
    """issue 51: no setting that nothing documents (title_min_coverage, sole_holder_first were)."""
    import tomllib

    from groove.config import Config, parse_config

    def keys(d: dict, prefix: str = "") -> set[str]:
        return {k2 for k, v in d.items() for k2 in (keys(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k})}

    block = _readme_toml()
    assert keys(tomllib.loads(block)) == _setting_keys(Config)
    documented = parse_config(block)
    assert documented.warnings == () and documented.index == Config().index
    assert documented.search == Config().search and documented.watch == Config().watch
