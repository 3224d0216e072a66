"""The query's items, as the compiler (``compiler``) reads them: quoted
phrases (``"..."``, ``+"..."``), exclusions (``-item``) and plain text, each
with its span in the query. Rules in the compiler's docstring."""

from __future__ import annotations

from dataclasses import dataclass

from groove.query.chars import SEP, char_type


@dataclass
class Item:
    text: str  # the phrase text (quoted: unescaped content)
    quoted: bool
    negated: bool
    start: int  # span in the sanitized query, including '-' or '+' and quotes
    end: int
    required: bool = False  # +"...": the phrase must be in the note


def lex(q: str) -> list[Item]:
    items: list[Item] = []
    i, n = 0, len(q)
    while i < n:
        if q[i].isspace():
            i += 1
            continue
        start = i
        negated = False
        if q[i] == "+" and i + 1 < n and q[i + 1] == '"':
            content, close = scan_quoted(q, i + 1)
            if close is not None:  # +"phrase": required; a lone '+' before a stray quote stays text
                items.append(Item(content, True, False, start, close, required=True))
                i = close
                continue
        # `--flag` is text (a command-line option), not the exclusion of `-flag`;
        # `->` too: no letter or digit follows, so there is nothing to exclude.
        if q[i] == "-" and i + 1 < n and not q[i + 1].isspace() and q[i + 1] != "-" \
                and _excludes_something(q, i + 1):
            negated = True
            i += 1
        if q[i] == '"':
            content, close = scan_quoted(q, i)
            if close is not None:
                items.append(Item(content, True, negated, start, close))
                i = close
                continue
            i += 1  # unpaired quote: a separator; the rest is unquoted text
            if negated:
                start = i
        # Unquoted item: up to whitespace or the next paired quote.
        j = i
        while j < n and not q[j].isspace():
            if q[j] == '"' and scan_quoted(q, j)[1] is not None:
                break
            j += 1
        if j > i:
            items.append(Item(q[i:j], False, negated, start, j))
        i = j
    return items


def _excludes_something(q: str, i: int) -> bool:
    """Whether the item at ``i`` (after a '-') can be excluded: a quoted
    phrase, or text holding a letter or digit before the next whitespace or
    quoted phrase (the unquoted item's extent in ``lex``)."""
    if q[i] == '"':
        if scan_quoted(q, i)[1] is not None:
            return True
        i += 1  # an unpaired quote is a separator
    j = i
    while j < len(q) and not q[j].isspace():
        if q[j] == '"' and scan_quoted(q, j)[1] is not None:
            return False
        if char_type(q[j]) != SEP:
            return True
        j += 1
    return False


def scan_quoted(q: str, i: int) -> tuple[str, int | None]:
    """Parse ``"..."`` at ``i``; returns (content, end index) or (_, None)."""
    buf = []
    j = i + 1
    n = len(q)
    while j < n:
        if q[j] == '"':
            if j + 1 < n and q[j + 1] == '"':
                buf.append('"')
                j += 2
                continue
            return "".join(buf), j + 1
        buf.append(q[j])
        j += 1
    return "", None
