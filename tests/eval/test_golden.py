from __future__ import annotations

import json

import pytest

from groove.eval.golden import GoldenError, load_golden


def write(tmp_path, name, text):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_jsonl_loads_all_fields_and_hashes_the_file(tmp_path):
    p = write(tmp_path, "g.jsonl",
              '{"query": "sync", "expected": ["A.md"], "partial": ["B.md"], "kind": "natural", "lang": "en"}\n'
              '\n{"query": "x", "expected": "C.md", "vault": "v"}\n')
    gs = load_golden(p)
    assert [q.query for q in gs.queries] == ["sync", "x"]
    q = gs.queries[0]
    assert (q.expected, q.partial, q.kind, q.lang, q.line) == (("A.md",), ("B.md",), "natural", "en", 1)
    assert gs.queries[1].expected == ("C.md",) and gs.queries[1].kind == "unspecified"
    assert gs.queries[1].line == 3 and gs.queries[1].vault == "v"
    assert len(gs.sha256) == 64 and gs.warnings == []


def test_invalid_json_names_the_line(tmp_path):
    p = write(tmp_path, "g.jsonl", '{"query": "a", "expected": ["A.md"]}\n{"query": "b", expected}\n')
    with pytest.raises(GoldenError, match=r"g\.jsonl:2: invalid JSON"):
        load_golden(p)


def test_missing_fields_warn_naming_the_line_and_skip(tmp_path):
    p = write(tmp_path, "g.jsonl", "\n".join(json.dumps(o) for o in [
        {"query": "ok", "expected": ["A.md"]},
        {"expected": ["A.md"]},
        {"query": "no expected"},
        {"query": "empty", "expected": []},
    ]))
    gs = load_golden(p)
    assert [q.query for q in gs.queries] == ["ok"]
    assert len(gs.warnings) == 3
    assert ":2: missing or empty 'query'" in gs.warnings[0]
    assert ":3:" in gs.warnings[1] and "'expected'" in gs.warnings[1]


def test_empty_file_is_a_clear_error(tmp_path):
    with pytest.raises(GoldenError, match="empty"):
        load_golden(write(tmp_path, "g.jsonl", "\n  \n"))


def test_file_with_only_bad_entries_is_an_error(tmp_path):
    with pytest.raises(GoldenError, match="no usable golden queries"):
        load_golden(write(tmp_path, "g.jsonl", '{"query": "x"}\n'))


def test_yaml_list_and_queries_mapping_with_line_numbers(tmp_path):
    text = "- query: sync\n  expected: [A.md]\n  kind: keyword\n- query: bad\n"
    gs = load_golden(write(tmp_path, "g.yaml", text))
    assert [q.query for q in gs.queries] == ["sync"] and gs.queries[0].kind == "keyword"
    assert ":4:" in gs.warnings[0]
    gs2 = load_golden(write(tmp_path, "g2.yml", "queries:\n  - query: a\n    expected: A.md\n"))
    assert gs2.queries[0].expected == ("A.md",) and gs2.queries[0].line == 2


def test_invalid_yaml_names_the_line(tmp_path):
    with pytest.raises(GoldenError, match=r"g\.yaml:2: invalid YAML"):
        load_golden(write(tmp_path, "g.yaml", "- query: a\n  expected: [A.md]]\n- query: b\n"))


def test_paths_are_normalised_and_partial_never_repeats_expected(tmp_path):
    p = write(tmp_path, "g.jsonl", '{"query": "q", "expected": ["./Sub\\\\A.md"], "partial": ["Sub/A.md", "B.md"]}\n')
    q = load_golden(p).queries[0]
    assert q.expected == ("Sub/A.md",) and q.partial == ("B.md",)
