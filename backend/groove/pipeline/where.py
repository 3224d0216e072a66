"""``where`` filters on frontmatter properties: ``key=value``, ``key!=value``,
``key<value`` ... (ADR 0191).

The value is typed by how it reads: ``true``/``false`` a boolean, ``3`` or
``2.5`` a number, ``2026-12-05`` a day, anything else text (quote it,
``"3"``, to compare as text). ``=`` matches a note when any of the
property's values equals the value (a list property: when it contains it),
text compared without case; ``!=`` matches every note ``=`` does not, those
without the property included. ``<``, ``>``, ``<=``, ``>=`` order numbers
and days, and match only notes whose property holds such a value.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass

from ..errors import InvalidArgument
from ..vault.properties import number_of, property_key, property_text

OPERATORS = ("!=", "<=", ">=", "=", "<", ">")
ORDERING = frozenset({"<", ">", "<=", ">="})
_SPLIT = re.compile(r"^(?P<key>[^=!<>]*?)\s*(?P<op>!=|<=|>=|=|<|>)\s*(?P<value>.*)$", re.DOTALL)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_HOW = ("write key=value, key!=value, key<value, key>value, key<=value or key>=value, "
        "e.g. status=done, priority>2, due<=2026-12-31")


@dataclass(frozen=True)
class Condition:
    key: str  # folded as the index folds property names
    op: str  # one of OPERATORS
    kind: str  # "text" | "bool" | "number" | "date"
    value: str | float  # folded text, "true"/"false", a float, or an ISO day
    written: str  # as the caller wrote it, for filter_applied and errors

    @property
    def column(self) -> str:
        """The note_properties column this condition compares."""
        return {"number": "value_num", "date": "value_date"}.get(self.kind, "value_text")


def _fail(written: str, why: str) -> InvalidArgument:
    return InvalidArgument(f"'where' filter {written!r}: {why}", param="where")


def parse_condition(written: str) -> Condition:
    """One ``where`` entry, checked: a clear error names what is wrong."""
    try:
        written.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON allows "\ud800"): SQLite cannot take it
        raise _fail(written, "not valid Unicode text") from None
    m = _SPLIT.match(written.strip())
    if not m:
        raise _fail(written, f"no operator; {_HOW}")
    key, op, raw = m.group("key").strip(), m.group("op"), m.group("value").strip()
    if not key:
        raise _fail(written, f"no property name before {op!r}; {_HOW}")
    if not raw:
        raise _fail(written, f"no value after {op!r}; {_HOW}")
    if raw[0] in "=<>!":
        raise _fail(written, f"{op + raw[0]!r} is not an operator; {_HOW}")
    kind, value = _typed(written, raw)
    if op in ORDERING and kind not in ("number", "date"):
        raise _fail(written, f"{op} orders numbers and dates (like priority>2 or due<2026-12-31), and "
                             f"{raw!r} is {'a boolean' if kind == 'bool' else 'text'}: use = or != for it")
    return Condition(property_key(key), op, kind, value, written.strip())


def _typed(written: str, raw: str) -> tuple[str, str | float]:
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'":
        return "text", property_text(raw[1:-1])
    if raw.lower() in ("true", "false"):
        return "bool", raw.lower()
    num = number_of(raw)
    if num is not None:
        return "number", num
    if _DAY.fullmatch(raw):
        try:
            return "date", _dt.date.fromisoformat(raw).isoformat()
        except ValueError:
            raise _fail(written, f"{raw!r} is not a day of the calendar (dates are YYYY-MM-DD)") from None
    return "text", property_text(raw)


def parse_where(entries: tuple[str, ...]) -> tuple[Condition, ...]:
    return tuple(parse_condition(e) for e in entries)


def condition_sql(cond: Condition) -> tuple[str, tuple]:
    """A subquery of the notes ``cond`` holds for, and its arguments."""
    op = "=" if cond.op == "!=" else cond.op  # != is the complement of =, taken by the caller
    sql = f"SELECT doc_id FROM note_properties WHERE key = ? AND {cond.column} {op} ?"
    return sql, (cond.key, cond.value)
