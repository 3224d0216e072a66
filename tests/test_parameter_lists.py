"""Short parameter lists (issue 51, ADR 0275): arguments that travel
together are one small object. Read from the source with ``ast``; ``self``
and ``cls`` do not count, ``*args`` and ``**kwargs`` count one each."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "backend" / "groove"
LONG = 8
# The storage and search engines are being split up (issue 51, its own step):
# their functions are counted there.
NOT_HERE = ("index/",)


def _parameters(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    a = fn.args
    names = [p.arg for p in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [f"*{p.arg}" for p in (a.vararg, a.kwarg) if p is not None]
    return [n for n in names if n not in ("self", "cls")]


def _is_mcp_tool(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """``@mcp.tool(...)``: the SDK reads the signature as the tool's input
    schema, so its parameters are the schema's properties, not a list to fold."""
    return any(isinstance(d, ast.Call) and isinstance(d.func, ast.Attribute) and d.func.attr == "tool"
               for d in fn.decorator_list)


def long_parameter_lists(root: Path = PACKAGE) -> dict[str, int]:
    out: dict[str, int] = {}
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        if rel.startswith(NOT_HERE):
            continue
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and not _is_mcp_tool(node):
                n = len(_parameters(node))
                if n >= LONG:
                    out[f"{rel}:{node.lineno} {node.name}"] = n
    return out


def test_no_function_outside_the_engines_takes_eight_or_more_parameters():
    assert long_parameter_lists() == {}


def test_the_count_sees_a_long_list_and_leaves_self_and_mcp_tools_out(tmp_path: Path):
    (tmp_path / "m.py").write_text(
        "class C:\n    def f(self, a, b, c, d, e, f, g): ...\n"
        "def g(a, b, c, d, e, f, g, *h): ...\n"
        "@mcp.tool(name='t')\nasync def t(a, b, c, d, e, f, g, h): ...\n", encoding="utf-8")
    assert long_parameter_lists(tmp_path) == {"m.py:3 g": 8}
