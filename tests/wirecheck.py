"""Check a value against one of protocol.json's named types: the schema
holds (jsonschema) and no object carries a key the type does not declare
(the types are open on the wire, so the schema alone would not say)."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from groove.wire.generate import PATH

_DOC = json.loads(PATH.read_text(encoding="utf-8"))


def _undeclared(value: Any, schema: dict[str, Any], where: str) -> list[str]:
    if "$ref" in schema:
        return _undeclared(value, _DOC["$defs"][schema["$ref"].rsplit("/", 1)[-1]], where)
    for alt in schema.get("anyOf", []):
        try:
            jsonschema.validate(value, {"$defs": _DOC["$defs"], **alt})
        except jsonschema.ValidationError:
            continue
        return _undeclared(value, alt, where)
    out: list[str] = []
    if isinstance(value, dict) and "properties" in schema:
        for k, v in value.items():
            if k not in schema["properties"]:
                out.append(f"{where}.{k}")
            else:
                out += _undeclared(v, schema["properties"][k], f"{where}.{k}")
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        for i, v in enumerate(value):
            out += _undeclared(v, schema["items"], f"{where}[{i}]")
    return out


def problems(value: Any, type_name: str) -> list[str]:
    """What is wrong with ``value`` as a ``type_name``; [] when nothing."""
    schema = {"$defs": _DOC["$defs"], "$ref": f"#/$defs/{type_name}"}
    errors = [e.message for e in jsonschema.Draft202012Validator(schema).iter_errors(value)]
    return errors + [f"undeclared key {k}" for k in _undeclared(value, schema, type_name)]
