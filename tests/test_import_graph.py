"""The package's modules import each other one way: no cycles.

The graph is read from the source with ``ast`` (nothing is imported), and
counts every import a module can execute, at the top or inside a function:
a function-level import that closes a loop is still a loop in the design,
only one that happens to load. Imports under ``if TYPE_CHECKING:`` count
too: an annotation that names a module's types depends on that module, and
``typing.get_type_hints`` (pydantic among its callers) would import it.

Importing ``a.b.c`` runs ``a/__init__`` and ``a/b/__init__`` first, so an
edge to a module is also an edge to each package above it, except the
packages the importer itself lives in (they are already loading).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "backend" / "groove"


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for f in PACKAGE.rglob("*.py"):
        parts = ["groove", *f.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = f
    return out


def _imports(tree: ast.AST, module: str, is_pkg: bool, known: set[str]) -> set[str]:
    """Modules of the package that ``module`` imports, anywhere in it."""
    found: set[str] = set()
    base = module if is_pkg else module.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                pkg = base
                for _ in range(node.level - 1):
                    pkg = pkg.rpartition(".")[0]
                target = f"{pkg}.{node.module}" if node.module else pkg
            else:
                target = node.module or ""
            found.add(target)
            for a in node.names:  # `from pkg import submodule`
                if f"{target}.{a.name}" in known:
                    found.add(f"{target}.{a.name}")
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph() -> dict[str, set[str]]:
    mods = _modules()
    known = set(mods)
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        own_packages = {name.rsplit(".", i)[0] for i in range(1, name.count(".") + 1)}
        if path.name == "__init__.py":
            own_packages.add(name)
        edges: set[str] = set()
        for target in _imports(ast.parse(path.read_text(encoding="utf-8")), name, path.name == "__init__.py", known):
            while target and target not in known:  # `from pkg.mod import name` of a non-module name
                target = target.rpartition(".")[0]
            if not target:
                continue
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                step = ".".join(parts[:i])
                if step in known and step not in own_packages:
                    edges.add(step)
        edges.discard(name)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_the_package_has_no_import_cycle() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_the_cycle_finder_sees_a_cycle_through_a_package_init() -> None:
    # index.fts importing the pipeline's compiler ran pipeline/__init__, which
    # imports fusion, which imports index.fts: the loop this test exists for.
    graph = {
        "groove.pipeline": {"groove.pipeline.fusion"},
        "groove.pipeline.fusion": {"groove.index.fts"},
        "groove.index.fts": {"groove.pipeline", "groove.pipeline.query"},
        "groove.pipeline.query": set(),
    }
    assert cycles(graph) == [["groove.index.fts", "groove.pipeline", "groove.pipeline.fusion"]]


def test_the_graph_reads_relative_and_function_level_imports() -> None:
    g = import_graph()
    assert "groove.query" in g["groove.engines.lexical.fts"]
    assert "groove.daemon.discovery" in g["groove.daemon.client"]
    assert "groove.models.registry" in g["groove.runtime"]  # imported inside a function
    assert "groove.runtime" in g["groove.pipeline.rerank"]  # only under `if TYPE_CHECKING:`


def test_the_query_package_is_the_bottom_layer() -> None:
    """``query`` <- ``index`` <- ``pipeline`` <- ``operations`` <- surfaces: the
    query package reads a query and nothing else, so it imports no other
    part of groove but its errors, and every layer above may import it."""
    g = import_graph()
    query = {m for m in g if m == "groove.query" or m.startswith("groove.query.")}
    assert {"groove.query.compiler", "groove.query.terms", "groove.query.chars"} <= query
    for m in sorted(query):
        outside = {t for t in g[m] if t not in query and t != "groove.errors"}
        assert not outside, (m, outside)
    assert "groove.query.terms" in g["groove.pipeline.titles"]


# The package's layers, lowest first: a module imports only from its own
# layer or those below it (issue 51). ``groove.wire``, the contract's types,
# is the floor everything may name; ``groove.query`` covers the query_*
# modules beside it; the operations sit on the pipeline. The surfaces (mcp,
# daemon, cli) sit above all.
LAYERS = ["groove.wire", "groove.query", "groove.engines", "groove.storage", "groove.index", "groove.pipeline",
          "groove.operations"]


def _layer(module: str) -> int | None:
    for i, name in enumerate(LAYERS):
        if module == name or module.startswith((name + ".", name + "_")):
            return i
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Each import of a higher layer by a lower one, as "importer -> imported"."""
    out = []
    for module, edges in sorted(graph.items()):
        low = _layer(module)
        if low is None:
            continue
        out += [f"{module} -> {e}" for e in sorted(edges) if (_layer(e) or -1) > low]
    return out


def test_the_layers_import_one_way() -> None:
    found = upward_imports(import_graph())
    assert not found, "a layer imports one above it:\n" + "\n".join(found)


def test_the_layer_check_sees_an_engine_reaching_up() -> None:
    graph = {"groove.engines.lexical.fts": {"groove.storage.db", "groove.query"}, "groove.storage.db": set()}
    assert upward_imports(graph) == ["groove.engines.lexical.fts -> groove.storage.db"]


def test_no_module_is_over_500_lines():
    """One module per idea (issue 18): a module past 500 lines holds two."""
    long = {name: n for name, f in _modules().items() if (n := len(f.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long, long


def test_the_wire_types_annotations_resolve_on_a_fresh_import() -> None:
    # groove.wire.search names its constraint types through a lazy proxy (the lean
    # CLI path never loads annotated_types): evaluating the annotations in a
    # fresh interpreter must still find them, and the lean import must not.
    probe = ("import sys, typing, groove.wire.search as t; lean = 'annotated_types' not in sys.modules; "
             "hints = {c.__name__: typing.get_type_hints(c, include_extras=True) for c in "
             "(t.ExpandedRange, t.SearchHit, t.SearchResponse)}; "
             "print(lean, hints['ExpandedRange']['byte_range'].__name__, 'annotated_types' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "ByteSpan", "True"]
