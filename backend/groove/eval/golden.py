"""Golden query files: JSON Lines or YAML, same fields either way.

One entry: ``{query, expected: [paths], partial?: [paths], kind?, lang?, vault?}``.
Paths are vault-relative with ``/`` separators. A malformed file raises
``GoldenError`` naming the line; a malformed *entry* (missing or mistyped
field) is skipped with a warning, so one typo does not cost the whole run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..errors import GrooveError


class GoldenError(GrooveError):
    """The golden file cannot be used at all (unreadable, empty, invalid syntax)."""


@dataclass(frozen=True)
class GoldenQuery:
    query: str
    expected: tuple[str, ...]
    partial: tuple[str, ...] = ()
    kind: str = "unspecified"
    lang: str | None = None
    vault: str | None = None  # as written in the file; resolved by the runner
    line: int = 0  # 1-based source line, for messages

    @property
    def key(self) -> str:
        """Identity across runs: the same text can be asked in two languages/vaults."""
        return f"{self.lang or ''}\t{self.vault or ''}\t{self.query}"


@dataclass(frozen=True)
class GoldenSet:
    path: Path
    sha256: str  # of the file bytes: runs are compared only on the same file
    queries: list[GoldenQuery]
    warnings: list[str] = field(default_factory=list)


def normalize_path(p: str) -> str:
    p = p.replace("\\", "/").strip()
    while p.startswith("./"):
        p = p[2:]
    return p


def _paths(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        return None
    out: list[str] = []
    for v in value:
        n = normalize_path(v)
        if n not in out:
            out.append(n)
    return tuple(out)


def _entry(obj: Any, where: str, warnings: list[str], line: int) -> GoldenQuery | None:
    if not isinstance(obj, dict):
        warnings.append(f"{where}: not an object with 'query' and 'expected'; skipped")
        return None
    q = obj.get("query")
    if not isinstance(q, str) or not q.strip():
        warnings.append(f"{where}: missing or empty 'query'; skipped")
        return None
    expected = _paths(obj.get("expected"))
    if not expected:
        warnings.append(f"{where}: 'expected' must be a non-empty list of paths; skipped ({q!r})")
        return None
    partial: tuple[str, ...] = ()
    if obj.get("partial") is not None:
        p = _paths(obj["partial"])
        if p is None:
            warnings.append(f"{where}: 'partial' must be a list of paths; ignored it ({q!r})")
        else:
            partial = tuple(x for x in p if x not in expected)  # expected wins
    meta: dict[str, str | None] = {}
    for name in ("kind", "lang", "vault"):
        v = obj.get(name)
        if v is not None and not isinstance(v, str):
            warnings.append(f"{where}: '{name}' must be a string; ignored it ({q!r})")
            v = None
        meta[name] = v.strip() if isinstance(v, str) and v.strip() else None
    return GoldenQuery(
        query=q.strip(), expected=expected, partial=partial, kind=meta["kind"] or "unspecified",
        lang=meta["lang"], vault=meta["vault"], line=line,
    )


def parse_jsonl(text: str, source: str = "golden") -> tuple[list[GoldenQuery], list[str]]:
    warnings: list[str] = []
    out: list[GoldenQuery] = []
    for n, raw in enumerate(text.splitlines(), start=1):
        s = raw.strip()
        if not s or s.startswith("#") or s.startswith("//"):
            continue
        try:
            obj = json.loads(s)
        except json.JSONDecodeError as e:
            raise GoldenError(f"{source}:{n}: invalid JSON: {e.msg} (column {e.colno})") from e
        g = _entry(obj, f"{source}:{n}", warnings, n)
        if g:
            out.append(g)
    return out, warnings


def parse_yaml(text: str, source: str = "golden") -> tuple[list[GoldenQuery], list[str]]:
    """A list of entries, or a mapping with a ``queries:`` list."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark is not None else source
        raise GoldenError(f"{where}: invalid YAML: {getattr(e, 'problem', None) or e}") from e
    if data is None:
        return [], []
    items_node = node
    if isinstance(data, dict):
        if not isinstance(data.get("queries"), list):
            raise GoldenError(f"{source}: YAML golden file must be a list of entries or have a 'queries:' list")
        data = data["queries"]
        assert node is not None  # data is a mapping, so the document had a node
        items_node = next(v for k, v in node.value if k.value == "queries")
    if not isinstance(data, list):
        raise GoldenError(f"{source}: YAML golden file must be a list of entries")
    warnings: list[str] = []
    out: list[GoldenQuery] = []
    assert items_node is not None  # data is a list, so the document had a node
    for obj, n in zip(data, items_node.value):
        line = n.start_mark.line + 1
        g = _entry(obj, f"{source}:{line}", warnings, line)
        if g:
            out.append(g)
    return out, warnings


def load_golden(path: Path) -> GoldenSet:
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as e:
        raise GoldenError(f"cannot read golden file {path}: {e.strerror or e}") from e
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise GoldenError(f"{path}: not UTF-8 text") from e
    if not text.strip():
        raise GoldenError(f"{path}: golden file is empty; add one query per line, e.g. "
                          '{"query": "how do I sync", "expected": ["Sync.md"]}')
    if path.suffix.lower() in (".yaml", ".yml"):
        queries, warnings = parse_yaml(text, str(path))
    else:
        queries, warnings = parse_jsonl(text, str(path))
    if not queries:
        raise GoldenError(f"{path}: no usable golden queries" + (f" ({len(warnings)} skipped)" if warnings else ""))
    seen: set[str] = set()
    for g in queries:
        if g.key in seen:
            warnings.append(f"{path}:{g.line}: duplicate query {g.query!r}; both are scored")
        seen.add(g.key)
    return GoldenSet(path=path, sha256=hashlib.sha256(data).hexdigest(), queries=queries, warnings=warnings)
