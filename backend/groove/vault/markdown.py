"""Parse one note: frontmatter, heading sections, tags, wikilinks -> ParsedNote.

Offsets are computed on the raw bytes (split at b"\\n"), so ``byte_start`` /
``byte_end`` point into the file even when it is not valid UTF-8 (such lines
are decoded with replacement characters and a warning).

Block structure comes from mistletoe: sections start at heading tokens, and a
long section is split only between top-level blocks (paragraphs, lists,
fenced code, tables), so a code block is never cut in half.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import frontmatter
import mistletoe
import mistletoe.block_token as bt
import yaml

from ..types import Chunk, Link, ParsedNote

TokenCounter = Callable[[str], int]

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_LINK = re.compile(r"(!?)\[\[([^\[\]\|#\^\n]*)(?:#([^\[\]\|\^\n]*))?(?:\^([^\[\]\|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
_TAG = re.compile(r"(?<![\w/#&])#([\w\-/]*[^\W\d][\w\-/]*)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"`[^`\n]*`")


def estimate_tokens(text: str) -> int:
    """The fallback estimator (also used for rows with NULL token_count)."""
    return max(1, len(text) // 4)


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


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if v is not None and str(v).strip()]
    return [str(value)]


def _iso_date(value: Any) -> str | None:
    if isinstance(value, _dt.datetime):
        return value.date().isoformat()
    if isinstance(value, _dt.date):
        return value.isoformat()
    if isinstance(value, str):
        m = re.match(r"^\d{4}-\d{2}-\d{2}", value.strip())
        return m.group(0) if m else None
    return None


def _block_starts(body: list[_Line]) -> list[tuple[int, str]]:
    """(line index in body, kind) of each top-level block, from mistletoe."""
    doc = mistletoe.Document([ln.text for ln in body])
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


def _heading_text(lines: list[_Line], idx: int) -> tuple[int, str]:
    m = _ATX.match(lines[idx].text.rstrip("\r\n"))
    if m:
        return len(m.group(1)), (m.group(2) or "").strip()
    # setext: the underline on the next line tells the level
    nxt = lines[idx + 1].text.strip() if idx + 1 < len(lines) else ""
    return (1 if nxt.startswith("=") else 2), lines[idx].text.strip()


def _strip_code(text: str) -> str:
    """Text without fenced and inline code, for tag/link extraction."""
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(_INLINE_CODE.sub("", line))
    return "\n".join(out)


def parse_links(text: str, first_line: int = 1) -> list[Link]:
    links: list[Link] = []
    for i, line in enumerate(_strip_code(text).split("\n")):
        for m in _LINK.finditer(line):
            target = m.group(2).strip()
            links.append(
                Link(
                    target=target,
                    heading=(m.group(3) or "").strip() or None,
                    block=(m.group(4) or "").strip() or None,
                    alias=(m.group(5) or "").strip() or None,
                    embed=m.group(1) == "!",
                    line=first_line + i,
                )
            )
    return links


def parse_inline_tags(text: str) -> list[str]:
    return [m.group(1) for m in _TAG.finditer(_strip_code(text))]


def parse_note(
    path: str,
    data: bytes,
    *,
    chunk_tokens: int = 400,
    count_tokens: TokenCounter = estimate_tokens,
) -> ParsedNote:
    warnings: list[str] = []
    lines, bad_utf8 = _split_lines(data)
    if bad_utf8:
        warnings.append("invalid UTF-8 (decoded with replacement characters)")
    fm_end = _frontmatter_end(lines)
    meta: dict[str, Any] = {}
    if fm_end:
        fm_text = "".join(ln.text for ln in lines[:fm_end])
        try:
            post = frontmatter.loads(fm_text)
            meta = dict(post.metadata) if isinstance(post.metadata, dict) else {}
        except (yaml.YAMLError, ValueError, TypeError, AttributeError) as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            warnings.append(f"broken YAML frontmatter, indexed the body only ({first})")
            meta = {}
    body = lines[fm_end:]

    stem = PurePosixPath(path).stem
    title = str(meta.get("title") or stem).strip() or stem
    aliases = _as_list(meta.get("aliases") or meta.get("alias"))
    fm_tags = [t.lstrip("#") for t in _as_list(meta.get("tags") or meta.get("tag"))]
    description = str(meta.get("description") or "").strip()
    date = _iso_date(meta.get("date") or meta.get("created"))

    body_text = "".join(ln.text for ln in body)
    tags = list(dict.fromkeys(fm_tags + parse_inline_tags(body_text)))
    links = parse_links(body_text, first_line=fm_end + 1)
    chunks = _chunk(body, fm_end, title, chunk_tokens, count_tokens)
    safe_meta = _jsonable(meta)
    return ParsedNote(path, title, aliases, tags, description, date, safe_meta, chunks, links, warnings)


def _jsonable(v: Any) -> Any:
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, (_dt.date, _dt.datetime)):
        return v.isoformat()
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    return str(v)


@dataclass
class _Section:
    level: int
    heading: str
    heading_path: list[str]
    start: int  # index into body lines
    end: int  # exclusive
    blocks: list[tuple[int, str]]  # (start index, kind) of blocks inside, in order


def _sections(body: list[_Line]) -> list[_Section]:
    if not body:
        return []
    starts = _block_starts(body)
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
    body: list[_Line], offset: int, title: str, budget: int, count: TokenCounter
) -> list[Chunk]:
    chunks: list[Chunk] = []

    def emit(sec: _Section, a: int, b: int) -> None:
        while b > a and not body[b - 1].text.strip():
            b -= 1  # trailing blank lines belong to nobody
        if b <= a:
            return
        text = "".join(ln.text for ln in body[a:b])
        if not text.strip():
            return
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
                token_count=count(text),
            )
        )

    for sec in _sections(body):
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
    return chunks


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
