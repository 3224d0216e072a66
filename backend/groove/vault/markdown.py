"""Parse one note: frontmatter, heading sections, tags, wikilinks -> ParsedNote.

Offsets are computed on the raw bytes (split at b"\\n"), so ``byte_start`` /
``byte_end`` point into the file even when it is not valid UTF-8 (such lines
are decoded with replacement characters and a warning); a byte-order mark
is not counted, and UTF-16 notes are parsed as their UTF-8 form (see
``encoding.py``).

Block structure comes from mistletoe: sections start at heading tokens, and a
long section is split only between top-level blocks (paragraphs, lists,
fenced code, tables), so a code block is never cut in half.

No note may take the process (ADR 0093): mistletoe runs without its inline
parser (only block starts are used, and inline parsing is quadratic on
inputs like ``"[a](" * 10000``); a note nested deeper than
``MAX_BLOCK_NESTING`` (mistletoe recurses per level) is split by blank lines
and ``#`` headings instead; YAML aliases in frontmatter may not expand
beyond a bounded number of nodes (``properties.py``). Each of these keeps the
note indexed with a warning.
"""

from __future__ import annotations

import contextlib
import gc
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import mistletoe
import mistletoe.block_token as bt
import mistletoe.span_token

from ..tokens import estimate_tokens
from ..types import Chunk, ParsedNote
from .encoding import decode_note_bytes
from .link_syntax import parse_inline_tags, parse_links
from .properties import as_list, jsonable, load_frontmatter, note_date

# Deeper block nesting (quotes, lists) than this is not handed to mistletoe,
# which recurses ~5 Python frames per level (a list nested 200 levels, or
# ">" * 500, raised RecursionError). Real notes stay far below.
MAX_BLOCK_NESTING = 64
TokenCounter = Callable[[str], int]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


@dataclass
class _Line:
    text: str  # decoded, with its line ending
    byte_start: int
    byte_end: int


def _split_lines(data: bytes) -> tuple[list[_Line], bool]:
    lines: list[_Line] = []
    bad = False
    pos = 0
    for raw in _split_lf(data):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("utf-8", errors="replace")
            bad = True
        lines.append(_Line(text, pos, pos + len(raw)))
        pos += len(raw)
    return lines, bad


def _split_lf(data: bytes) -> list[bytes]:
    # bytes.splitlines also splits at a lone "\r"; files with CRLF keep "\r\n"
    # inside one line, so split at "\n" only.
    parts = data.split(b"\n")
    out = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def _frontmatter_end(lines: list[_Line]) -> int:
    """Index of the first body line (0 when there is no frontmatter block)."""
    if not lines or lines[0].text.rstrip("\r\n").rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].text.rstrip("\r\n").rstrip() in ("---", "..."):
            return i + 1
    return 0


class _BlockNestingTooDeep(Exception):
    pass


_spans = threading.local()
_mistletoe_lock = threading.Lock()  # Document() keeps its root in a module global
_tokenize_inner = mistletoe.span_token.tokenize_inner


def _tokenize_inner_unless_off(content: str) -> Any:
    return [] if getattr(_spans, "off", False) else _tokenize_inner(content)


# Block tokens look span_token.tokenize_inner up at call time: route it
# through a per-thread switch so the chunker can skip inline parsing while
# every other caller of mistletoe in the process keeps it.
mistletoe.span_token.tokenize_inner = _tokenize_inner_unless_off


@contextlib.contextmanager
def _blocks_only() -> Iterator[None]:
    # The cyclic collector is paused while mistletoe builds its tree: each of
    # its full passes walks every token made so far, which made a note of many
    # deep quotes parse in superlinear time (2,000 blocks of 40 levels: 31x the
    # time of 200, 7-11x with the collector paused). The tree's cycles are
    # collected once it resumes.
    with _mistletoe_lock:
        _spans.off = True
        collecting = gc.isenabled()
        gc.disable()
        try:
            yield
        finally:
            _spans.off = False
            if collecting:
                gc.enable()


_LIST_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])[ \t]")
_NEST_PREFIX = re.compile(r"[ \t]*(?:(?:>|[-+*][ \t]|\d{1,9}[.)][ \t])[ \t]*)*")


def block_nesting(lines: list[str]) -> int:
    """An upper estimate of how deeply blocks nest: per line, its quote and
    list markers, plus its indentation in two-column steps when it has a
    marker (nested list items are indented). Indentation alone (code,
    ASCII art) nests nothing."""
    deepest = 0
    for line in lines:
        m = _NEST_PREFIX.match(line)
        prefix = m.group(0) if m else ""  # the pattern matches every line (all of it is optional)
        if len(prefix) <= deepest:
            continue  # every level takes at least one character
        markers = prefix.count(">") + len(_LIST_MARKER.findall(prefix))
        if not markers:
            continue
        indent = len(prefix.expandtabs(4)) - len(prefix.lstrip(" \t").expandtabs(4))
        deepest = max(deepest, markers + indent // 2)
    return deepest


def _block_starts(body: list[_Line]) -> list[tuple[int, str]]:
    """(line index in body, kind) of each top-level block, from mistletoe."""
    texts = [ln.text for ln in body]
    if block_nesting(texts) > MAX_BLOCK_NESTING:
        raise _BlockNestingTooDeep
    with _blocks_only():
        doc = mistletoe.Document(texts)
    out: list[tuple[int, str]] = []
    for tok in doc.children or []:
        ln = getattr(tok, "line_number", None)
        if ln is None:
            continue
        kind = "heading" if isinstance(tok, (bt.Heading, bt.SetextHeading)) else (
            "code" if isinstance(tok, (bt.CodeFence, bt.BlockCode)) else "block"
        )
        idx = ln - 1
        # Setext headings report the line of their text; that's where they start.
        out.append((idx, kind))
    return out


def _plain_block_starts(body: list[_Line]) -> list[tuple[int, str]]:
    """The fallback for notes mistletoe cannot take: ATX headings, fenced
    code, and paragraphs separated by blank lines."""
    out: list[tuple[int, str]] = []
    fence: str | None = None
    prev_blank = True
    for i, ln in enumerate(body):
        line = ln.text.rstrip("\r\n")
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            prev_blank = False
            continue
        if m:
            fence = m.group(1)
            out.append((i, "code"))
        elif _ATX.match(line):
            out.append((i, "heading"))
        elif line.strip() and prev_blank:
            out.append((i, "block"))
        prev_blank = not line.strip()
    return out


def _heading_text(lines: list[_Line], idx: int) -> tuple[int, str]:
    m = _ATX.match(lines[idx].text.rstrip("\r\n"))
    if m:
        return len(m.group(1)), (m.group(2) or "").strip()
    # setext: the underline on the next line tells the level
    nxt = lines[idx + 1].text.strip() if idx + 1 < len(lines) else ""
    return (1 if nxt.startswith("=") else 2), lines[idx].text.strip()


def parse_note(
    path: str,
    data: bytes,
    *,
    chunk_tokens: int = 400,
    count_tokens: TokenCounter = estimate_tokens,
) -> ParsedNote:
    warnings: list[str] = []
    text = decode_note_bytes(data)  # a byte-order mark would hide the frontmatter's "---"
    data = text.data
    if text.recoded:
        warnings.append(text.warning or f"{text.encoding} text: indexed as UTF-8 (byte ranges refer to the UTF-8 text)")
    lines, bad_utf8 = _split_lines(data)
    if bad_utf8:
        warnings.append("invalid UTF-8 (decoded with replacement characters)")
    fm_end = _frontmatter_end(lines)
    meta: dict[str, Any] = {}
    if fm_end:
        meta, problem = load_frontmatter("".join(ln.text for ln in lines[:fm_end]))
        if problem:
            warnings.append(problem)
    body = lines[fm_end:]

    stem = PurePosixPath(path).stem
    title = str(meta.get("title") or stem).strip() or stem
    aliases = as_list(meta.get("aliases") or meta.get("alias"))
    fm_tags = [t.lstrip("#") for t in as_list(meta.get("tags") or meta.get("tag"))]
    description = str(meta.get("description") or "").strip()
    date = note_date(meta)

    body_text = "".join(ln.text for ln in body)
    tags = list(dict.fromkeys(fm_tags + parse_inline_tags(body_text)))
    links = parse_links(body_text, first_line=fm_end + 1)
    chunks = _chunk(body, fm_end, title, chunk_tokens, count_tokens, warnings)
    safe_meta = jsonable(meta)
    return ParsedNote(path, title, aliases, tags, description, date, safe_meta, chunks, links, warnings)


@dataclass
class _Section:
    level: int
    heading: str
    heading_path: list[str]
    start: int  # index into body lines
    end: int  # exclusive
    blocks: list[tuple[int, str]]  # (start index, kind) of blocks inside, in order


def _sections(body: list[_Line], warnings: list[str]) -> list[_Section]:
    if not body:
        return []
    try:
        starts = _block_starts(body)
    except (_BlockNestingTooDeep, RecursionError):
        warnings.append(f"blocks nested more than {MAX_BLOCK_NESTING} levels deep: split by blank lines "
                        "and # headings only")
        starts = _plain_block_starts(body)
    sections: list[_Section] = []
    stack: list[tuple[int, str]] = []  # (level, heading)
    cur = _Section(0, "", [], 0, len(body), [])
    for idx, kind in starts:
        if kind == "heading":
            cur.end = idx
            sections.append(cur)
            level, text = _heading_text(body, idx)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, text))
            cur = _Section(level, text, [h for _, h in stack], idx, len(body), [])
        else:
            cur.blocks.append((idx, kind))
    sections.append(cur)
    sections = [s for s in sections if s.end > s.start and "".join(ln.text for ln in body[s.start:s.end]).strip()]
    # A heading with no text of its own ("## Setup" directly followed by
    # "### Linux") is not worth a chunk: it joins the deeper section after it.
    merged: list[_Section] = []
    carry: int | None = None
    for i, s in enumerate(sections):
        if carry is not None:
            s.start = carry
            carry = None
        own = "".join(ln.text for ln in body[s.start:s.end]).strip()
        heading_only = s.level > 0 and all(
            not body[j].text.strip() or j in {s.start} or _ATX.match(body[j].text.rstrip("\r\n"))
            for j in range(s.start, s.end)
        )
        nxt = sections[i + 1] if i + 1 < len(sections) else None
        if heading_only and own and nxt is not None and nxt.level > s.level:
            carry = s.start
            continue
        merged.append(s)
    return merged


def _context(title: str, heading_path: list[str]) -> str:
    parts = list(heading_path)
    # A note usually opens with an H1 equal to its title: don't say it twice.
    if parts and parts[0].strip().lower() == title.strip().lower():
        parts = parts[1:]
    return " > ".join([title] + parts)


def _chunk(
    body: list[_Line], offset: int, title: str, budget: int, count: TokenCounter, warnings: list[str]
) -> list[Chunk]:
    pieces = _pieces(body, budget, count, warnings)
    if len(pieces) > max(PACK_ABOVE_CHUNKS, PACK_RATIO * -(-sum(t for *_, t in pieces) // budget)):
        pieces = _packed(body, pieces, budget, count)
    chunks: list[Chunk] = []
    for sec, a, b, tokens in pieces:
        text = "".join(ln.text for ln in body[a:b])
        chunks.append(
            Chunk(
                ordinal=len(chunks),
                level=sec.level,
                heading=sec.heading,
                heading_path=sec.heading_path,
                context=_context(title, sec.heading_path),
                content=text,
                byte_start=body[a].byte_start,
                byte_end=body[b - 1].byte_end,
                line_start=offset + a + 1,
                line_end=offset + b,
                token_count=tokens,
            )
        )
    return chunks


# A note of many tiny sections (100,000 "# hN" lines, issue 50 R2) would cost
# an embedding per section, 100x what its text costs. Past this many pieces,
# and PACK_RATIO times what its text needs at the budget, neighbouring pieces
# are packed into chunks up to the budget, so a note costs about what its
# text costs (ADR 0231). Ordinary notes, far below both, keep their chunks as they were.
PACK_ABOVE_CHUNKS = 256
PACK_RATIO = 4
_Piece = tuple[_Section, int, int, int]  # section, first line, end line (exclusive), tokens


def _pieces(body: list[_Line], budget: int, count: TokenCounter, warnings: list[str]) -> list[_Piece]:
    """Each chunk's lines: a section, or a section cut between blocks to fit the budget."""
    pieces: list[_Piece] = []

    def emit(sec: _Section, a: int, b: int) -> None:
        while b > a and not body[b - 1].text.strip():
            b -= 1  # trailing blank lines belong to nobody
        if b <= a:
            return
        text = "".join(ln.text for ln in body[a:b])
        if text.strip():
            pieces.append((sec, a, b, count(text)))

    for sec in _sections(body, warnings):
        text = "".join(ln.text for ln in body[sec.start:sec.end])
        if count(text) <= budget:
            emit(sec, sec.start, sec.end)
            continue
        # Cut points: every top-level block start; inside a huge non-code
        # block, every line. Never inside a code block.
        bounds = [sec.start] + [i for i, _ in sec.blocks if i > sec.start] + [sec.end]
        cuts: list[int] = []
        kinds = {i: k for i, k in sec.blocks}
        for a, b in zip(bounds, bounds[1:]):
            cuts.append(a)
            if kinds.get(a) != "code" and count("".join(ln.text for ln in body[a:b])) > budget:
                cuts.extend(range(a + 1, b))
        cuts.append(sec.end)
        # Greedy packing over segment sizes counted once (linear, even for a
        # huge one-section note); the sum slightly overestimates, which is safe.
        sizes = [count("".join(ln.text for ln in body[a:b])) for a, b in zip(cuts, cuts[1:])]
        start, acc = cuts[0], 0
        for i, size in enumerate(sizes):
            if acc and acc + size > budget:
                emit(sec, start, cuts[i])
                start, acc = cuts[i], 0
            acc += size
        emit(sec, start, sec.end)
    return pieces


def _packed(body: list[_Line], pieces: list[_Piece], budget: int, count: TokenCounter) -> list[_Piece]:
    """Neighbouring pieces joined while they fit the budget (with the lines
    between them); a joined chunk is under its first piece's heading."""
    out: list[_Piece] = []
    group: list[_Piece] = []
    acc = 0

    def close() -> None:
        if group:
            sec, a, b = group[0][0], group[0][1], group[-1][2]
            out.append((sec, a, b, group[0][3] if len(group) == 1 else count("".join(ln.text for ln in body[a:b]))))

    for p in pieces:
        if group and acc + p[3] > budget:
            close()
            group, acc = [], 0
        group.append(p)
        acc += p[3]
    close()
    return out


# ----------------------------------------------------------------------------- for readers of a note's lines
# Public, so the note reader (vault/sections.py) finds headings and fences
# exactly as the chunker does.

CODE_FENCE = _FENCE


def headings(lines: list[str]) -> list[tuple[int, int, str]]:
    """(0-based line, level, text) of each heading of a note given as lines
    without their endings, the frontmatter skipped: the headings the chunker
    sees (mistletoe's block tokens, ATX or setext)."""
    first = _frontmatter_end([_Line(t, 0, 0) for t in lines])
    body = [_Line(t + "\n", 0, 0) for t in lines[first:]]
    return [(first + i, *_heading_text(body, i)) for i, kind in _block_starts(body) if kind == "heading"]


def chunk_markdown(
    text: str, title: str, *, chunk_tokens: int = 400, count_tokens: TokenCounter = estimate_tokens,
    warnings: list[str] | None = None,
) -> list[Chunk]:
    """Chunks of a Markdown text that is not a note file of its own (a
    canvas card): heading sections and block-boundary cuts as for a note,
    no frontmatter; ``byte_*`` are UTF-8 offsets into ``text``, lines 1-based in it."""
    lines, _ = _split_lines(text.encode("utf-8"))
    return _chunk(lines, 0, title, chunk_tokens, count_tokens, warnings if warnings is not None else [])


def context_of(title: str, heading_path: list[str]) -> str:
    """The contextual prefix the chunker gives a chunk under ``heading_path``."""
    return _context(title, heading_path)
