"""``where`` entries are parsed, typed and refused in one place (ADR 0191):
every surface gets the same conditions and the same errors."""

from __future__ import annotations

import pytest

from groove.config import SearchConfig
from groove.errors import InvalidArgument
from groove.pipeline import SearchParams, resolve_params
from groove.pipeline.where import parse_condition
from groove.vault.properties import property_values


@pytest.mark.parametrize("written, key, op, kind, value", [
    ("status=done", "status", "=", "text", "done"),
    ("Status = Done ", "status", "=", "text", "done"),
    ("priority>2", "priority", ">", "number", 2.0),
    ("priority<=-1.5", "priority", "<=", "number", -1.5),
    ("done=TRUE", "done", "=", "bool", "true"),
    ("due>=2026-12-05", "due", ">=", "date", "2026-12-05"),
    ('code="007"', "code", "=", "text", "007"),
    ("project!=[[Groove|g]]", "project", "!=", "text", "groove"),
    ("due date=next week", "due date", "=", "text", "next week"),
])
def test_entries_are_typed_by_how_the_value_reads(written, key, op, kind, value):
    c = parse_condition(written)
    assert (c.key, c.op, c.kind, c.value) == (key, op, kind, value)


@pytest.mark.parametrize("written, says", [
    ("status", "no operator"),
    ("=done", "no property name"),
    ("status=", "no value"),
    ("priority>high", "use = or !="),
    ("done<true", "a boolean"),
    ("due<2026-13-40", "not a day of the calendar"),
    ("a==b", "'==' is not an operator"),
    ("status=\ud800", "not valid Unicode text"),
])
def test_a_bad_entry_is_refused_with_what_to_write(written, says):
    with pytest.raises(InvalidArgument) as e:
        resolve_params(SearchParams(query="x", where=(written,)), SearchConfig())
    assert e.value.param == "where"
    assert says in str(e.value) and repr(written) in str(e.value)  # what is wrong, in which entry


def test_a_note_stores_each_scalar_value_once_typed():
    rows = property_values({"Status": "Done", "priority": 3, "done": True, "owners": ["Ann", "Bob", None],
                            "due": "2026-12-05T09:30:00", "nested": {"a": 1}, "empty": "", "n": "2.5"})
    got = {(r.key, r.text, r.num, r.day) for r in rows}
    assert got == {("status", "done", None, None), ("priority", "3", 3.0, None), ("done", "true", None, None),
                   ("owners", "ann", None, None), ("owners", "bob", None, None),
                   ("due", "2026-12-05t09:30:00", None, "2026-12-05"), ("n", "2.5", 2.5, None)}
