"""JSON Canvas files (Obsidian's ``.canvas``, jsoncanvas.org 1.0) as notes (ADR 0195).

What a canvas gives the index, as a ``ParsedNote``:

* each text card's Markdown, chunked as a note's body is (headings inside a
  card and the token budget included), under the labels of the groups that
  contain the card on the canvas (outermost first) as the start of its
  heading path: its context reads "Canvas > Group > Heading";
* each file card a link to its file (``subpath`` "#Heading" or "#^block"
  kept), and each ``[[wikilink]]`` in a text card a link, so the notes a
  canvas places have it among their backlinks; link cards (URLs) are not
  vault links;
* the tags written in text cards.

Positions (what a hit's ranges mean for a canvas): ``content`` is the card
text as JSON decodes it (what Obsidian shows on the card), ending with a
newline; ``byte_range`` is where that text is written in the file, inside
its JSON string (escapes included, so for most cards it is longer than
``content``), as UTF-8 offsets into the text without a byte-order mark like
a note's (ADR 0094); ``line_range`` the file lines it is written on (one
line per card in the files Obsidian writes). Editors that cannot match
``content`` to the file bytes fall back to ``line_range``: the card's line.

A file that is not a canvas (not JSON, or not the shapes the spec gives
nodes and edges) raises ``BadCanvas``, whose message is the skip reason.
An empty file is an empty canvas (Obsidian creates new canvases empty).
"""

from __future__ import annotations

import bisect
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from ..errors import InvalidArgument
from ..tokens import estimate_tokens
from ..types import Chunk, ParsedNote, WikiLink
from .encoding import decode_note_bytes
from .markdown import TokenCounter, chunk_markdown, context_of, parse_inline_tags, parse_links

CANVAS_SUFFIX = ".canvas"
_FIX = "fix it (the format is jsoncanvas.org) and it is indexed on the next run"
_GEOMETRY = ("x", "y", "width", "height")
_SURROGATE = re.compile("[\ud800-\udfff]")


class BadCanvas(ValueError):
    """A ``.canvas`` file that is not JSON Canvas; ``str()`` is the skip reason."""


def is_canvas(path: str) -> bool:
    return path.lower().endswith(CANVAS_SUFFIX)


@dataclass(frozen=True)
class Card:
    """One node of a canvas, with where it is written and the groups around it."""

    id: str
    kind: str  # "text", "file", "link", "group" (other types are left out)
    node: dict[str, Any]
    groups: tuple[str, ...]  # labels of the groups containing it, outermost first
    line_start: int  # file lines of the node's JSON object, 1-based inclusive
    line_end: int
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # key -> char span of its string literal

    def reading_text(self) -> str:
        """The card as get_document shows it: a text card's Markdown, a file
        card as the embed Obsidian would write, a link card's URL."""
        if self.kind == "text":
            return str(self.node["text"])
        if self.kind == "file":
            return f"![[{self.node['file']}{self.node.get('subpath') or ''}]]"
        if self.kind == "link":
            return str(self.node["url"])
        return ""


@dataclass
class Canvas:
    text: str  # the file's text (UTF-8, no byte-order mark), what offsets refer to
    cards: list[Card]  # text, file and link cards in reading order (see read_canvas)
    groups: list[Card]
    warnings: list[str]
    newlines: list[int] = field(default_factory=list)  # char index of each "\n"
    bytes_at: dict[int, int] = field(default_factory=dict)  # char index -> UTF-8 offset, for the cards' strings

    def line_of(self, char: int) -> int:
        return bisect.bisect_left(self.newlines, char) + 1

    def byte_of(self, char: int) -> int:
        return char if self.text.isascii() else self.bytes_at[char]


# ----------------------------------------------------------------------------- reading the file


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check(data: Any) -> list[str]:
    """Raise BadCanvas unless ``data`` has the spec's shapes; warnings for what is only left out."""
    if not isinstance(data, dict):
        raise BadCanvas(f"not a JSON Canvas (the top level is a JSON {type(data).__name__}, not an object "
                        f"with 'nodes' and 'edges'); {_FIX}")
    warnings: list[str] = []
    for key in ("nodes", "edges"):
        if key in data and not isinstance(data[key], list):
            raise BadCanvas(f"not a valid JSON Canvas ('{key}' is not a list); {_FIX}")
    for i, n in enumerate(data.get("nodes") or []):
        where = f"node {i + 1}"
        if not isinstance(n, dict):
            raise BadCanvas(f"not a valid JSON Canvas ({where} is not an object); {_FIX}")
        if not isinstance(n.get("id"), str) or not isinstance(n.get("type"), str):
            raise BadCanvas(f"not a valid JSON Canvas ({where} has no string 'id' and 'type'); {_FIX}")
        where = f"node {i + 1} (id {n['id']!r})"
        bad = [k for k in _GEOMETRY if not _number(n.get(k))]
        if bad:
            raise BadCanvas(f"not a valid JSON Canvas ({where} has no numeric {', '.join(repr(k) for k in bad)}); "
                            f"{_FIX}")
        need = {"text": "text", "file": "file", "link": "url"}.get(n["type"])
        if need and not isinstance(n.get(need), str):
            raise BadCanvas(f"not a valid JSON Canvas ({where} is a {n['type']} node without a string "
                            f"'{need}'); {_FIX}")
        for opt in ("subpath", "label"):
            if opt in n and not isinstance(n[opt], str):
                raise BadCanvas(f"not a valid JSON Canvas ({where} has a '{opt}' that is not a string); {_FIX}")
        if n["type"] not in ("text", "file", "link", "group"):
            warnings.append(f"{where} has the type {n['type']!r}, which JSON Canvas does not define: left out")
    for i, e in enumerate(data.get("edges") or []):
        if not isinstance(e, dict) or not isinstance(e.get("fromNode"), str) or not isinstance(e.get("toNode"), str):
            raise BadCanvas(f"not a valid JSON Canvas (edge {i + 1} is not an object with string 'fromNode' and "
                            f"'toNode'); {_FIX}")
    return warnings


_WS = " \t\n\r"


def _node_places(s: str) -> list[tuple[int, int, dict[str, tuple[int, int]]]] | None:
    """For each element of the top-level "nodes" array: the char span of its
    JSON object and of its string values by key (the json module gives no
    positions). None when the text does not walk as expected."""
    dec = json.JSONDecoder()

    def ws(i: int) -> int:
        while i < len(s) and s[i] in _WS:
            i += 1
        return i

    def members(i: int, visit: Any) -> int:
        """Walk the object at ``i`` calling visit(key, value_start); returns its end."""
        i = ws(i + 1)
        while s[i] != "}":
            key, i = dec.raw_decode(s, i)
            i = ws(i)
            if s[i] != ":":
                raise ValueError
            i = ws(i + 1)
            i = visit(key, i)
            i = ws(i)
            if s[i] == ",":
                i = ws(i + 1)
        return i + 1

    def node(i: int) -> tuple[int, tuple[int, int, dict[str, tuple[int, int]]]]:
        strings: dict[str, tuple[int, int]] = {}

        def visit(key: str, j: int) -> int:
            end = dec.raw_decode(s, j)[1]
            if s[j] == '"':
                strings[key] = (j, end)
            return end

        end = members(i, visit)
        return end, (i, end, strings)

    found: list[list[tuple[int, int, dict[str, tuple[int, int]]] | None]] = []

    def top(key: str, j: int) -> int:
        if key != "nodes" or s[j] != "[":
            return dec.raw_decode(s, j)[1]
        items: list[tuple[int, int, dict[str, tuple[int, int]]] | None] = []
        j = ws(j + 1)
        while s[j] != "]":
            if s[j] == "{":
                j, place = node(j)
                items.append(place)
            else:
                j = dec.raw_decode(s, j)[1]
                items.append(None)
            j = ws(j)
            if s[j] == ",":
                j = ws(j + 1)
        found.append(items)  # a repeated key: the last one counts, as in json.loads
        return j + 1

    try:
        start = ws(0)
        if s[start] != "{":
            return None
        members(start, top)
    except (ValueError, IndexError):
        return None
    if not found or any(p is None for p in found[-1]):
        return None
    return [p for p in found[-1] if p is not None]


def _inside(inner: dict[str, Any], outer: dict[str, Any]) -> bool:
    return (outer["x"] <= inner["x"] and outer["y"] <= inner["y"]
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"]
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"])


def read_canvas(data: bytes) -> Canvas:
    """The canvas in ``data`` (a file's bytes); raises BadCanvas."""
    raw = decode_note_bytes(data).data
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise BadCanvas(f"not a valid JSON Canvas (not UTF-8 text: byte {e.start}); {_FIX}") from None
    if not text.strip():
        return Canvas(text, [], [], [])
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as e:
        raise BadCanvas(f"not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); {_FIX}") from None
    except RecursionError:
        raise BadCanvas(f"not a valid JSON Canvas (nested too deeply); {_FIX}") from None
    warnings = _check(parsed)
    nodes: list[dict[str, Any]] = parsed.get("nodes") or []
    places = _node_places(text)
    if places is not None and len(places) != len(nodes):
        places = None
    if places is None and nodes:
        warnings.append("node positions in the file could not be found: hits open the canvas at its first line")
    canvas = Canvas(text, [], [], warnings, [m.start() for m in re.finditer("\n", text)])
    if places and not text.isascii():  # one pass over the file for every string's byte offset
        pos = byte = 0
        for at in sorted({a for _, _, spans in places for a, _ in spans.values()}):
            byte += len(text[pos:at].encode("utf-8", "surrogatepass"))
            pos = at
            canvas.bytes_at[at] = byte
    groups = [n for n in nodes if n["type"] == "group"]
    # Outermost first: a group holding another is the larger one.
    groups_by_area = sorted(groups, key=lambda g: -(g["width"] * g["height"]))
    top: dict[int, dict[str, Any]] = {}
    for i, n in enumerate(nodes):
        if n["type"] not in ("text", "file", "link", "group"):
            continue
        around = [g for g in groups_by_area if g is not n and _inside(n, g)]
        labels = tuple(lb for g in around if (lb := str(g.get("label") or "").strip()))
        start, end, spans = places[i] if places else (0, 0, {})
        card = Card(n["id"], n["type"], n, labels, canvas.line_of(start), canvas.line_of(max(start, end - 1)), spans)
        (canvas.groups if n["type"] == "group" else canvas.cards).append(card)
        top[id(card)] = around[0] if around else n
    # Reading order: the cards of one outermost group together, groups and
    # free cards top to bottom, then left to right; inside a group the same.
    order = {id(c): k for k, c in enumerate(canvas.cards)}
    canvas.cards.sort(key=lambda c: (top[id(c)]["y"], top[id(c)]["x"], c.node["y"], c.node["x"], order[id(c)]))
    return canvas


# ----------------------------------------------------------------------------- positions inside a JSON string


def _raw_starts(lit: str) -> list[int]:
    """Where each character of a JSON string literal's value starts in the
    literal (quotes included), then where the value ends."""
    out: list[int] = []
    i, n = 1, len(lit) - 1
    while i < n:
        out.append(i)
        if lit[i] != "\\":
            i += 1
        elif lit[i + 1] != "u":
            i += 2
        else:
            cp = int(lit[i + 2:i + 6], 16)
            i += 6
            if 0xD800 <= cp < 0xDC00 and lit.startswith("\\u", i) and 0xDC00 <= int(lit[i + 2:i + 6], 16) < 0xE000:
                i += 6  # a surrogate pair decodes to one character
    out.append(n)
    return out


class _Places:
    """File offsets of positions in one card's string value (``key``):
    UTF-8 byte offsets into the file's text, and the 1-based file line of
    the string (a JSON string cannot hold a raw line break: one line)."""

    def __init__(self, canvas: Canvas, card: Card, value: str, key: str) -> None:
        span = card.spans.get(key)
        lit = canvas.text[span[0]:span[1]] if span else ""
        starts = _raw_starts(lit) if lit else []
        if span is None or len(starts) != len(value) + 1:  # no place found: the card's first line
            self.base, self.lit, self.starts = None, "", []
            self.at_line = card.line_start
        else:
            self.base, self.lit, self.starts = canvas.byte_of(span[0]), lit, starts
            self.at_line = canvas.line_of(span[0])

    def byte(self, char: int) -> int:
        if self.base is None:
            return 0
        return self.base + len(self.lit[:self.starts[char]].encode("utf-8", "surrogatepass"))


# ----------------------------------------------------------------------------- the note


def _clean(s: str) -> str:
    """A lone surrogate (an unpaired \\ud83d escape) cannot be stored as UTF-8: one '?' for one."""
    return s.encode("utf-8", "replace").decode("utf-8") if _SURROGATE.search(s) else s


def _file_link(card: Card, line: int) -> WikiLink | None:
    target = card.node["file"].strip()
    if not target:
        return None
    sub = (card.node.get("subpath") or "").lstrip("#").strip()
    block = sub[1:] if sub.startswith("^") else None
    heading = sub if sub and block is None else None
    # A file card shows the file on the canvas, as ![[file]] shows it in a note.
    return WikiLink(target, heading, block or None, None, True, line)


def parse_canvas(
    path: str, data: bytes, *, chunk_tokens: int = 400, count_tokens: TokenCounter = estimate_tokens,
) -> ParsedNote:
    """A canvas file as the note the indexer stores (see the module doc); raises BadCanvas."""
    canvas = read_canvas(data)
    title = PurePosixPath(path).stem
    warnings = list(canvas.warnings)
    chunks: list[Chunk] = []
    links: list[WikiLink] = []
    tags: list[str] = []
    for card in canvas.cards:
        if card.kind == "file":
            link = _file_link(card, _Places(canvas, card, card.node["file"], "file").at_line)
            if link:
                links.append(link)
            continue
        if card.kind != "text":
            continue
        value = card.node["text"]
        body = _clean(value)
        at = _Places(canvas, card, value, "text")
        for ln in parse_links(body):
            links.append(WikiLink(ln.target, ln.heading, ln.block, ln.alias, ln.embed, at.at_line))
        tags += parse_inline_tags(body)  # per card: an unclosed fence in one card hides nothing in the next
        utf8 = body.encode("utf-8")
        for ck in chunk_markdown(body, title, chunk_tokens=chunk_tokens, count_tokens=count_tokens,
                                 warnings=warnings):
            a = len(utf8[:ck.byte_start].decode("utf-8"))
            b = len(utf8[:ck.byte_end].decode("utf-8"))
            content = ck.content if ck.content.endswith("\n") else ck.content + "\n"
            heading_path = list(card.groups) + ck.heading_path
            chunks.append(Chunk(
                ordinal=len(chunks), level=ck.level, heading=ck.heading, heading_path=heading_path,
                context=context_of(title, heading_path), content=content,
                byte_start=at.byte(a), byte_end=at.byte(b),
                line_start=at.at_line, line_end=at.at_line,
                token_count=count_tokens(content),
            ))
    return ParsedNote(path, title, [], list(dict.fromkeys(tags)), "", None, {}, chunks, links, warnings)


# ----------------------------------------------------------------------------- reading a canvas as text


def reading_text(canvas: Canvas, path: str, total_lines: int, line_start: int | None, line_end: int | None,
                 heading: str | None, max_chars: int) -> tuple[str, list[int], bool]:
    """What get_document returns for a canvas: (content, line_range, truncated).

    The cards' text in reading order (``Card.reading_text``), separated by a
    blank line, each run of cards in one group preceded by a line
    ``## Outer > Inner`` of its labels. Lines are the file's, as in search
    hits: ``line_start``/``line_end`` pick the cards written on those lines,
    ``heading`` the cards inside the group with that label. Over
    ``max_chars`` the cards of the first file lines that fit are shown and
    ``line_range`` ends at their last line, so the rest is asked for as a
    note's is, from the next line."""
    cards = canvas.cards
    if heading:
        want = heading.lstrip("#").strip().casefold()
        cards = [c for c in cards if any(g.casefold() == want for g in c.groups)]
        if not cards:
            labels = sorted({str(g.node.get("label") or "").strip() for g in canvas.groups} - {""})[:30]
            raise InvalidArgument(f"no group {heading!r} in '{path}'; its groups are: "
                                  + (", ".join(repr(lb) for lb in labels) if labels else "(none)"), param="heading")
        a, b = min(c.line_start for c in cards), max(c.line_end for c in cards)
    else:
        a, b = line_start or 1, min(line_end or total_lines, total_lines)
        if total_lines and a > total_lines:
            raise InvalidArgument(f"'line_start' {a} is past the end of '{path}' ({total_lines} lines)",
                                  param="line_start")
        if total_lines and b < a:
            raise InvalidArgument(f"'line_end' ({line_end}) is before 'line_start' ({a})", param="line_end")
        cards = [c for c in cards if c.line_end >= a and c.line_start <= b]
    # Pages are cut by file lines, so "the rest" is line_start = the last line + 1 (as for
    # notes) and nothing is lost or repeated; each page reads in reading order.
    page = sorted(cards, key=lambda c: c.line_start)
    used = 0
    for k, c in enumerate(page):
        used += len(c.reading_text()) + 2 + (len(" > ".join(c.groups)) + 5 if c.groups else 0)
        if k and used > max_chars:
            cut = c.line_start
            page = [p for p in page[:k] if p.line_end < cut] or page[:k]
            break
    truncated = len(page) < len(cards)
    if truncated:
        b = max(c.line_end for c in page)
    shown = set(map(id, page))
    parts: list[str] = []
    groups: tuple[str, ...] = ()
    for c in cards:
        if id(c) not in shown:
            continue
        block = c.reading_text().strip("\n")
        if c.groups and c.groups != groups:
            block = "## " + " > ".join(c.groups) + "\n\n" + block
        groups = c.groups
        if len(block) > max_chars:  # one enormous card: its start rather than nothing
            block, truncated = block[:max_chars], True
        parts.append(block)
    content = "\n\n".join(parts)
    if truncated:
        content += (f"\n\n[truncated: showing {len(parts)} of {len(cards)} cards, those written on lines {a}-{b}; "
                    f"ask for the rest with line_start={b + 1}, or read one group with heading]")
    return content, ([a, b] if total_lines else [1, 0]), truncated
