"""What a query's words are is decided once, in ``groove.query`` (issue 51).

The compiler hands every reader its words (``ParsedQuery.terms``, phrases,
short terms, highlight words). These tests read the source with ``ast``:
no module outside the query package imports the query's tokenisers, and
the positive text (``embed_text``) is read only where it is embedded or
reranked, so nothing splits a query a second time with rules of its own.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "backend" / "groove"

# Where ``embed_text`` may go: the embedder (directly or through the
# embedding pool's ``submit``) and the reranker; ``.strip()`` asks whether
# anything is left to embed.
EMBEDDERS = {"embed_query", "submit", "rerank_candidates"}
# The query package's tokenisers: a module that imports one can split a query itself.
TOKENISERS = {
    "groove.query.lex": None,  # the whole module
    "groove.query.chars": {"runs", "words"},
    "groove.query.terms": {"terms_of", "scan", "script_of"},
    "groove.query.compiler": {"_words", "_runs", "_lex"},
}


def _outside_modules() -> dict[str, ast.Module]:
    out = {}
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = f.relative_to(PACKAGE)
        if rel.parts[0] == "query":
            continue
        out[str(rel)] = ast.parse(f.read_text(encoding="utf-8"))
    return out


def _name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def embed_text_reads(tree: ast.Module) -> list[int]:
    """Lines where ``.embed_text`` (the field) is read other than to embed or rerank it."""
    allowed: set[int] = set()  # id() of Attribute nodes read where they are embedded
    calls: set[int] = set()  # id() of `x.embed_text(...)`: a function of that name (index.store's), not the field
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr == "embed_text":
            calls.add(id(node.func))
        if _name(node.func) in EMBEDDERS:
            allowed.update(id(a) for a in node.args)
        if isinstance(node.func, ast.Attribute) and node.func.attr == "strip" and not node.args:
            allowed.add(id(node.func.value))
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr == "embed_text" and id(n) not in allowed | calls]


def tokeniser_imports(tree: ast.Module, module: str) -> list[str]:
    """The query package's tokenisers ``module`` (a path under groove/) imports."""
    pkg = "groove." + ".".join(Path(module).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names if a.name in TOKENISERS and TOKENISERS[a.name] is None]
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = pkg
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                target = f"{base}.{target}" if target else base
            for a in node.names:
                whole = f"{target}.{a.name}"
                if whole in TOKENISERS and TOKENISERS[whole] is None:
                    found.append(whole)
                elif target in TOKENISERS and (TOKENISERS[target] is None or a.name in TOKENISERS[target]):
                    found.append(whole)
    return found


def test_embed_text_is_read_only_where_it_is_embedded():
    found = {m: lines for m, t in _outside_modules().items() if (lines := embed_text_reads(t))}
    assert not found, f"embed_text read outside the query package (read parsed.terms instead): {found}"


def test_no_module_outside_the_query_package_imports_a_query_tokeniser():
    found = {m: names for m, t in _outside_modules().items() if (names := tokeniser_imports(t, m))}
    assert not found, f"query tokenisers imported outside groove.query: {found}"


def test_the_readers_take_the_compiled_terms_not_text():
    from groove.index import vocabulary
    from groove.pipeline import titles

    for f, param in ((vocabulary.known_share, "terms"), (vocabulary.unknown_names, "terms"),
                     (titles.named_notes, "terms"), (titles.title_leg, "words")):
        ann = inspect.signature(f).parameters[param].annotation
        assert ann != "str", (f.__name__, ann)


def test_the_checks_see_what_they_are_for():
    # The readers as they were before issue 51: each is caught.
    old = ast.parse("def f(idx, parsed):\n"
                    "    hits = title_leg(idx, parsed.embed_text, None, 0.5)\n"
                    "    v = pool.submit(emb.embed_query, parsed.embed_text)\n"
                    "    if parsed.embed_text.strip():\n"
                    "        rerank_candidates(pool, parsed.embed_text, r)\n"
                    "    return store.embed_text(c.context, c.content)\n")
    assert embed_text_reads(old) == [2]
    imports = ast.parse("from ..query import lex\nfrom ..query.chars import runs, char_type\n"
                        "from groove.query.terms import QueryTerms, terms_of\nimport groove.query.lex\n")
    assert tokeniser_imports(imports, "pipeline/titles.py") == [
        "groove.query.lex", "groove.query.chars.runs", "groove.query.terms.terms_of", "groove.query.lex"]
