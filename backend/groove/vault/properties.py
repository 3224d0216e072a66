"""A note's YAML frontmatter (Obsidian's "properties"), loaded so that no
note can take the process: the YAML node graph is checked before anything is
built from it, because aliases share nodes, so a 435-byte alias bomb is a
small graph that stands for 10^9 values (ADR 0093). A block that cannot be
used is ignored with a warning; the note's body is still indexed."""

from __future__ import annotations

import datetime as _dt
import re
import unicodedata
from typing import TYPE_CHECKING, Any, NamedTuple

import frontmatter
import yaml
from frontmatter.default_handlers import SafeLoader as _FrontmatterLoader
from frontmatter.default_handlers import YAMLHandler

# Frontmatter: YAML aliases may add at most this many nodes to the document
# (a 435-byte alias bomb expands to 10^9), and nesting is capped.
MAX_ALIAS_NODES = 10_000
MAX_FRONTMATTER_DEPTH = 100


def as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def iso_date(value: Any) -> str | None:
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, str):
        m = re.match(r"^\d{4}-\d{2}-\d{2}", value.strip())
        return m.group(0) if m else None
    return None


def note_date(meta: dict[str, Any]) -> str | None:
    """A note's own date: its ``date`` property, else ``created`` (ISO day)."""
    return iso_date(meta.get("date") or meta.get("created"))


class PropertyValue(NamedTuple):
    """One value of a note's property as the index keeps it for ``where``
    filters (ADR 0191): a list property gives one per item."""

    key: str  # property_key(name)
    text: str  # property_text(value): compared by = and !=
    num: float | None  # a number (or a string that is one): ordered by < and >
    day: str | None  # an ISO day (a date, a datetime's day, or a string starting with one)


_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)")
_WIKILINK = re.compile(r"\[\[([^\[\]|#]*)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")


def property_key(name: str) -> str:
    """Property names compare without case, in NFC (``Status`` is ``status``)."""
    return unicodedata.normalize("NFC", str(name).strip().lower())


def property_text(value: Any) -> str:
    """A value as ``=`` compares it: without case, in NFC; a value that is one
    wikilink stands for its target (``[[Groove|g]]`` is ``groove``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    s = unicodedata.normalize("NFC", str(value).strip()).lower()
    m = _WIKILINK.fullmatch(s)
    return m.group(1).strip() if m else s


def number_of(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        f = float(value)
        return f if f == f and abs(f) != float("inf") else None
    if isinstance(value, str) and _NUMBER.fullmatch(value.strip()):
        return float(value.strip())
    return None


def day_of(value: Any) -> str | None:
    """The ISO day of a date, a datetime or a string starting with a real one."""
    d = iso_date(value)
    if d is None:
        return None
    try:
        return _dt.date.fromisoformat(d).isoformat()
    except ValueError:
        return None


def property_values(meta: dict[str, Any]) -> list[PropertyValue]:
    """Every scalar value of every property (items of a list included);
    empty values and nested objects are left out."""
    out: list[PropertyValue] = []
    for name, value in meta.items():
        key = property_key(name)
        if not key:
            continue
        items = value if isinstance(value, (list, tuple)) else [value]
        for v in items:
            if v is None or isinstance(v, (dict, list, tuple)) or (isinstance(v, str) and not v.strip()):
                continue
            out.append(PropertyValue(key, property_text(v), number_of(v), day_of(v)))
    return list(dict.fromkeys(out))


class _FrontmatterTooBig(ValueError):
    pass


if TYPE_CHECKING:
    _Loader = yaml.SafeLoader  # frontmatter's is libyaml's CSafeLoader when present: the same methods
else:
    _Loader = _FrontmatterLoader


class _BoundedLoader(_Loader):
    """The frontmatter library's safe loader, checking the composed node
    graph before anything is built from it: aliases share nodes, so the
    graph stays small while what it stands for can be 10^9 nodes."""

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        _check_node_graph(node)
        return self.construct_document(node)


def _check_node_graph(root: yaml.Node) -> None:
    seen: dict[int, tuple[int, int]] = {}  # id(node) -> (expanded size, height)
    on_path: set[int] = set()
    distinct = 0

    def walk(node: yaml.Node, depth: int) -> tuple[int, int]:
        nonlocal distinct
        if depth > MAX_FRONTMATTER_DEPTH:
            raise _FrontmatterTooBig(f"nested more than {MAX_FRONTMATTER_DEPTH} levels deep")
        key = id(node)
        if key in seen:
            size, height = seen[key]
            if depth + height > MAX_FRONTMATTER_DEPTH:
                raise _FrontmatterTooBig(f"nested more than {MAX_FRONTMATTER_DEPTH} levels deep")
            return size, height
        if key in on_path:
            raise _FrontmatterTooBig("a YAML alias refers to the node that contains it")
        on_path.add(key)
        distinct += 1
        size, height = 1, 0
        if isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        elif isinstance(node, yaml.MappingNode):
            children = [n for pair in node.value for n in pair]
        else:
            children = []
        for child in children:
            s, h = walk(child, depth + 1)
            size += s
            height = max(height, h + 1)
            if size > distinct + MAX_ALIAS_NODES:
                raise _FrontmatterTooBig(
                    f"YAML aliases expand it beyond {MAX_ALIAS_NODES:,} extra values (an alias bomb?)")
        on_path.discard(key)
        seen[key] = (size, height)
        return size, height

    size, _ = walk(root, 0)
    if size > distinct + MAX_ALIAS_NODES:
        raise _FrontmatterTooBig(f"YAML aliases expand it beyond {MAX_ALIAS_NODES:,} extra values (an alias bomb?)")


class _BoundedYAMLHandler(YAMLHandler):
    def load(self, fm: str, **kwargs: object) -> Any:
        return yaml.load(fm, Loader=_BoundedLoader)


def load_frontmatter(fm_text: str) -> tuple[dict[str, Any], str | None]:
    """(metadata, warning); a frontmatter block that cannot be used is
    ignored with a warning, and the body is still indexed."""
    try:
        post = frontmatter.loads(fm_text, handler=_BoundedYAMLHandler())
        meta = dict(post.metadata) if isinstance(post.metadata, dict) else {}
        return meta, None
    except _FrontmatterTooBig as e:
        return {}, f"frontmatter ignored, indexed the body only ({e})"
    except RecursionError:
        return {}, "frontmatter ignored, indexed the body only (nested too deeply)"
    except Exception as e:  # noqa: BLE001 - YAMLError, bad dates, odd keys: the body still counts
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        return {}, f"broken YAML frontmatter, indexed the body only ({first})"


def jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)
