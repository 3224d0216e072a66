"""The plugins' TypeScript types are generated from protocol.json, which is
generated from the models: either file out of date fails here."""

from __future__ import annotations

import json

from groove.wire import typescript as protocol_ts


def _schema() -> dict:
    return json.loads(protocol_ts.SCHEMA.read_text(encoding="utf-8"))


def test_the_committed_protocol_ts_is_the_one_generated_from_protocol_json():
    assert protocol_ts.OUT.read_text(encoding="utf-8") == protocol_ts.render(_schema()), (
        "editor-client/src/protocol.ts is out of date: run `make protocol` (python -m groove.wire.typescript)")


def test_a_new_search_param_in_the_schema_reaches_the_typescript_type():
    schema = _schema()
    schema["$defs"]["SearchParams"]["properties"]["max_age_days"] = {"type": ["integer", "null"],
                                                                      "description": "Only notes this recent"}
    text = protocol_ts.render(schema)
    block = text[text.index("export interface SearchParams {"):]
    block = block[:block.index("\n}")]
    assert "  /** Only notes this recent */\n  max_age_days?: number | null;" in block


def test_schema_shapes_map_to_typescript():
    t = protocol_ts.ts_type
    assert t({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "integer"}]}) == "[number, number]"
    assert t({"type": "array", "items": {"enum": ["a", "b"]}}) == 'Array<"a" | "b">'
    assert t({"anyOf": [{"$ref": "#/$defs/IndexProgress"}, {"type": "null"}]}) == "IndexProgress | null"
    assert t({"type": "object"}) == "Record<string, unknown>"
    assert t({"const": 1, "type": "integer"}) == "1"
    assert t({}) == "unknown"


def test_every_method_has_params_and_result_names_the_plugins_import():
    text = protocol_ts.OUT.read_text(encoding="utf-8")
    for method in _schema()["methods"]:
        stem = protocol_ts.pascal(method)
        for kind in ("Params", "Result"):
            assert f" {stem}{kind} " in text or f"interface {stem}{kind} " in text, f"{stem}{kind}"
