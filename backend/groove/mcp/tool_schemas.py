"""The tools' schemas as a client loads them into a model's context
(ADR 0252): every character of ``tools/list`` is paid for in every
conversation, so what is published says how to call a tool and what comes
back, and no more.

* Input schemas: the same constraints, written short. pydantic's per-field
  ``title`` (the name again, capitalised) is dropped, an optional argument
  is ``"type": ["integer", "null"]`` rather than an ``anyOf`` with a null
  branch, and a ``null`` default is left out (omitted is null). These are
  exact rewrites: ``strict.check_arguments`` validates against the published
  schema and accepts and refuses what it did. One bound is left out:
  ``maximum`` 2**53-1, JSON's safe-integer limit (``constraints.MAX_INT``);
  the SDK's argument model still refuses a larger number.
* Output schemas: the top-level keys with their JSON types; a nested
  object is ``object``, and a list of objects names its items' keys in its
  description (what a model reads a hit or a listed note by). What the
  keys mean is the tool's description's to say. A tool whose text is its
  structured result as JSON publishes none (``GrooveMCP.json_text_tools``):
  the model reads every key in the text. The structured result keeps
  its full types in the code (``wire/mcp_outputs.py``, ``note_types.py``,
  ``status_types.py``): the SDK still validates each result against them
  before it is sent, and the client validates it against this summary.
"""

from __future__ import annotations

from typing import Any

from ..wire.constraints import MAX_INT

Schema = dict[str, Any]


def compact_input(schema: Schema) -> Schema:
    """``schema`` (a tool's input schema) rewritten short, accepting the same arguments."""
    out = {k: v for k, v in schema.items() if k != "title"}
    out["properties"] = {name: _short_argument(p) for name, p in (schema.get("properties") or {}).items()}
    return out


def _short_argument(prop: Schema) -> Schema:
    p = {k: v for k, v in prop.items() if k != "title"}
    if "default" in p and p["default"] is None:
        del p["default"]
    if p.get("maximum") == MAX_INT:
        del p["maximum"]  # JSON's safe-integer limit says nothing to a model; the argument model still holds it
    if p.get("minimum") == -MAX_INT:
        del p["minimum"]
    branches = p.get("anyOf")
    if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
        other = next(b for b in branches if b != {"type": "null"})
        if isinstance(other.get("type"), str) and "anyOf" not in other and "$ref" not in other:
            del p["anyOf"]
            p = {**other, **p, "type": [other["type"], "null"]}
    return p


def compact_output(schema: Schema) -> Schema:
    """``schema`` (a tool's output schema) as its top-level keys, typed and described briefly."""
    defs: Schema = schema.get("$defs") or {}
    props = {name: _summary(p, defs) for name, p in (schema.get("properties") or {}).items()}
    out: Schema = {"type": "object", "properties": props}
    if schema.get("required"):
        out["required"] = list(schema["required"])
    return out


def _resolve(s: Schema, defs: Schema) -> Schema:
    while isinstance(s, dict) and isinstance(s.get("$ref"), str):
        target = defs.get(s["$ref"].rsplit("/", 1)[-1], {})
        s = {**target, **{k: v for k, v in s.items() if k != "$ref"}}
    return s


def _variants(s: Schema, defs: Schema) -> list[Schema]:
    s = _resolve(s, defs)
    for key in ("anyOf", "oneOf"):
        if isinstance(s.get(key), list):
            return [v for b in s[key] for v in _variants(b, defs)]
    return [s]


def _type_of(s: Schema) -> list[str]:
    t = s.get("type")
    if isinstance(t, list):
        return t
    if isinstance(t, str):
        return [t]
    if "properties" in s:
        return ["object"]
    if "enum" in s or "const" in s:
        values = s.get("enum", [s.get("const")])
        return list(dict.fromkeys({bool: "boolean", int: "integer", float: "number", str: "string",
                                   type(None): "null"}.get(type(v), "string") for v in values))
    return []


def _summary(prop: Schema, defs: Schema) -> Schema:
    variants = _variants(prop, defs)
    types = list(dict.fromkeys(t for v in variants for t in _type_of(v)))
    out: Schema = {}
    if types:
        out["type"] = types[0] if len(types) == 1 else types
    keys: list[str] = []
    for v in variants:
        if "array" in _type_of(v) and isinstance(v.get("items"), dict):
            item_variants = _variants(v["items"], defs)
            item_types = list(dict.fromkeys(t for iv in item_variants for t in _type_of(iv)))
            if item_types:
                out["items"] = {"type": item_types[0] if len(item_types) == 1 else item_types}
            keys += [k for iv in item_variants for k in (iv.get("properties") or {})]
    if keys:
        out["description"] = "items: " + ", ".join(dict.fromkeys(keys))
    return out


__all__ = ["compact_input", "compact_output"]
