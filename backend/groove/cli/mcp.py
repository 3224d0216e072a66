"""`groove mcp`: the vault as an MCP server (stdio, or Streamable HTTP on loopback)."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

import click

from .common import default_vault, gathered, model_option

DEFAULT_PORT = 8765


@dataclass(frozen=True)
class HttpOptions:
    """--http and the options that only apply with it."""

    use_http: bool = False
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    token: str | None = None
    allow_remote: bool = False
    allow_origins: tuple[str, ...] = ()

    def any_given(self) -> bool:
        return bool(self.token or self.allow_remote or self.allow_origins or self.host != "127.0.0.1"
                    or self.port != DEFAULT_PORT)


@click.command("mcp")
@click.option("--vault", "vaults", type=click.Path(path_type=Path), multiple=True,
              help="Vault folder (default: the enclosing vault of the current folder). Repeat to serve several "
                   "vaults from one server.")
@click.option("--index", "index_paths", type=click.Path(path_type=Path), multiple=True,
              help="Index file (default: one per vault under the user data dir). With several --vault, one "
                   "--index per vault, in the same order.")
@model_option
@click.option("--http", "use_http", is_flag=True, help="Serve Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP bind address (loopback only, see --allow-remote).")
@click.option("--port", type=int, default=DEFAULT_PORT, show_default=True, help="HTTP port (0 = any free port).")
@click.option("--token", default=None, envvar="GROOVE_MCP_TOKEN",
              help="HTTP: require `Authorization: Bearer <token>` (env GROOVE_MCP_TOKEN).")
@click.option("--allow-remote", is_flag=True, help="HTTP: allow binding a non-loopback address (exposes your notes).")
@click.option("--allow-origin", "allow_origins", multiple=True, metavar="ORIGIN",
              help="HTTP: also accept browser requests from this exact origin (e.g. app://obsidian.md).")
@click.option("--standalone", is_flag=True, help="Never attach to a running `groove serve`; load the model here.")
@click.option("--no-warm", is_flag=True, help="Load the model on the first search instead of at startup.")
@gathered("http", HttpOptions)
def mcp_cmd(vaults: tuple[Path, ...], index_paths: tuple[Path, ...], model: str | None, http: HttpOptions,
            standalone: bool, no_warm: bool) -> None:
    """Serve the vault to Claude and other MCP clients.

    \b
    stdio (Claude Desktop, Claude Code):  groove mcp --vault ~/Notes
    HTTP on loopback:       groove mcp --http --port 8765 --vault ~/Notes
    Add it to Claude Code:  claude mcp add groove -- groove mcp --vault ~/Notes
    Several vaults:         groove mcp --vault ~/Work --vault ~/Personal
    """
    host, token = http.host, http.token
    if http.use_http and not _is_loopback(host):
        if not http.allow_remote:
            raise click.UsageError(
                f"refusing to bind {host}: not a loopback address. Your notes would be reachable from the "
                "network. Use --host 127.0.0.1, or pass --allow-remote (with --token) if you really mean it.")
        click.echo(f"warning: serving your vault on {host}, reachable from other machines"
                   + ("" if token else " WITHOUT a token (set --token or GROOVE_MCP_TOKEN)"), err=True)
    if token is not None and not token.strip():
        raise click.UsageError("--token is empty")

    from ..mcp import ServerOptions, build_server, serve_http, serve_stdio
    from ..mcp.backend import vault_problem

    folders = list(vaults) or [default_vault(None)]
    if index_paths and len(index_paths) != len(folders):
        raise click.UsageError(f"{len(index_paths)} --index for {len(folders)} --vault: give one --index per "
                               "vault, in the same order, or none")
    # A missing folder does not stop the server: an MCP client would show only
    # "connection closed". It starts, and its instructions and every tool name
    # the folder (ADR 0253).
    checked = [v.expanduser().resolve() for v in folders]
    for v in checked:
        problem = vault_problem(v)
        if problem:
            click.echo(f"warning: {problem}", err=True)
    twice = next((v for i, v in enumerate(checked) if v.resolve() in [c.resolve() for c in checked[:i]]), None)
    if twice is not None:
        raise click.UsageError(f"--vault {twice} is given twice")
    opts = [ServerOptions(vault=v, index_path=index_paths[i] if index_paths else None, model=model,
                          attach=not standalone, warm=not no_warm) for i, v in enumerate(checked)]
    served = ", ".join(str(o.vault) for o in opts)
    if not http.use_http:
        if http.any_given():
            click.echo("warning: --host/--port/--token/--allow-remote only apply with --http", err=True)
        serve_stdio(build_server(opts if len(opts) > 1 else opts[0]))
        return

    def ready(url: str) -> None:
        click.echo(f"groove MCP (Streamable HTTP) for {served} at {url}"
                   + (" (bearer token required)" if token else ""), err=True)
        if not token:
            click.echo("warning: no token: any program on this machine can read your notes through this port. "
                       "Set GROOVE_MCP_TOKEN (or --token) to require `Authorization: Bearer <token>`.", err=True)
        sys.stderr.flush()

    serve_http(build_server(opts if len(opts) > 1 else opts[0]), host, http.port, token.strip() if token else None,
               on_ready=ready, allow_origins=list(http.allow_origins))


def _is_loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


__all__ = ["mcp_cmd", "DEFAULT_PORT"]
