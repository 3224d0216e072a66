"""How big groove's MCP tool list and its largest answers are: the list
against its 15,000-character budget (ADR 0252; a client loads it into every
conversation), the answers against Claude Code's 25,000-token cap on a tool
result (ADR 0114).

    python bench/mcp_sizes.py [--vault-en PATH] [--vault-ja PATH] [--tools-only]

Drives a standalone `groove mcp` over stdio with the official MCP client.
First the `tools/list` result as the client receives it (JSON, characters),
per tool: its description, input schema and output schema. Then, on each
vault (indexed first if needed, with the default model), for the calls that
return the most, the characters and estimated tokens of the text content
plus the structured content, with the default budget and with `max_tokens`
at its ceiling.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402
from groove.tokens import estimate_tokens, json_tokens  # noqa: E402

GROOVE = str(Path(sys.executable).with_name("groove"))
CAP = 25_000
TOOLS_BUDGET = 15_000  # characters of the whole tools/list result (ADR 0252)


def _chars(v: object) -> int:
    """JSON characters, with json.dumps' spaces (a few % over the SDK's compact wire form)."""
    return len(json.dumps(v, ensure_ascii=False))


async def tool_list_sizes(vault: Path) -> tuple[int, list[tuple[str, int, int, int, int]]]:
    """(the tools/list result's characters, per tool: name, whole, description,
    input schema, output schema), as the client receives them."""
    params = StdioServerParameters(command=GROOVE, args=["mcp", "--vault", str(vault), "--standalone", "--no-warm"],
                                   env=dict(os.environ))
    with open(os.devnull, "w") as err:
        async with stdio_client(params, errlog=err) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            listed = await s.list_tools()
    rows = []
    for t in listed.tools:
        d = t.model_dump(by_alias=True, exclude_none=True, mode="json")
        rows.append((t.name, _chars(d), len(t.description or ""), _chars(t.input_schema),
                     _chars(t.output_schema) if t.output_schema else 0))
    return _chars(listed.model_dump(by_alias=True, exclude_none=True, mode="json")), rows


def print_tool_list(vault: Path) -> None:
    total, rows = asyncio.run(tool_list_sizes(vault))
    print(f"tools/list: {total:,} characters (budget {TOOLS_BUDGET:,}: {total / TOOLS_BUDGET:.0%})")
    print(f"{'tool':22} {'whole':>7} {'descr':>6} {'input':>7} {'output':>7}")
    for name, whole, desc, inp, out in sorted(rows, key=lambda r: -r[1]):
        print(f"{name:22} {whole:7,} {desc:6,} {inp:7,} {out:7,}")
    print()


def calls(longest: str, some: list[str]) -> list[tuple[str, str, dict]]:
    search = {"query": "sync settings conflicts plugins 同期 設定", "limit": 50, "parent_retriever": True}
    return [
        ("search limit 50 + parent", "search", search),
        ("search, max_tokens 20k", "search", {**search, "max_tokens": 20_000}),
        ("get_document (longest note)", "get_document", {"path": longest}),
        ("get_document, max_tokens 20k", "get_document", {"path": longest, "max_tokens": 20_000}),
        ("get_documents (10 notes)", "get_documents", {"paths": some}),
        ("related_notes", "related_notes", {"path": longest, "limit": 50}),
        ("list_notes limit 200", "list_notes", {"limit": 200}),
    ]


async def measure(vault: Path) -> list[tuple[str, int, int]]:
    notes = sorted(vault.rglob("*.md"), key=lambda p: p.stat().st_size, reverse=True)
    rel = [p.relative_to(vault).as_posix() for p in notes]
    out = []
    params = StdioServerParameters(command=GROOVE, args=["mcp", "--vault", str(vault), "--standalone"],
                                   env=dict(os.environ))
    with open(os.devnull, "w") as err:
        async with stdio_client(params, errlog=err) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            for label, tool, args in calls(rel[0], rel[:10]):
                res = await s.call_tool(tool, args)
                text = "".join(getattr(c, "text", "") for c in res.content)
                chars = len(text) + len(json.dumps(res.structured_content or {}, ensure_ascii=False))
                tokens = estimate_tokens(text) + json_tokens(res.structured_content or {})
                out.append((label + (" [error]" if res.is_error else ""), chars, tokens))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--vault-en", type=Path, default=EVAL / "vault-en")
    ap.add_argument("--vault-ja", type=Path, default=EVAL / "vault-ja")
    ap.add_argument("--tools-only", action="store_true", help="print the tools/list sizes only")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as empty:  # the tool list does not depend on the notes
        print_tool_list(Path(empty))
    if a.tools_only:
        return
    print(f"{'call':34} {'vault':5} {'chars':>8} {'tokens':>8} {'of cap':>7}")
    for lang, vault in (("en", a.vault_en), ("ja", a.vault_ja)):
        if not vault.is_dir():
            print(f"{vault} not found: skipped")
            continue
        subprocess.run([GROOVE, "index", str(vault)], check=True, capture_output=True)
        for label, chars, tokens in asyncio.run(measure(vault)):
            print(f"{label:34} {lang:5} {chars:8,} {tokens:8,} {tokens / CAP:7.0%}")


if __name__ == "__main__":
    main()
