"""Where a heading's section or a ``^block`` sits in a note's lines.

Pure functions over the note's lines (without line endings), read from the
file on disk: chunks may merge a heading-only section into the next one, so
their ranges do not tell where a heading is. Headings and code fences are
found by ``vault/markdown.py``, the chunker's own parser.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .markdown import CODE_FENCE, headings


@dataclass(frozen=True)
class Section:
    level: int
    heading: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int  # inclusive; includes sub-sections


def sections(lines: list[str]) -> list[Section]:
    """Heading sections of a note: a section runs from its heading to just
    before the next heading of the same or a higher level, trailing blank
    lines dropped."""
    heads = headings(lines)
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    for k, (i, level, text) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        end = len(lines)
        for j, lv, _ in heads[k + 1:]:
            if lv <= level:
                end = j
                break
        while end - 1 > i and not lines[end - 1].strip():
            end -= 1
        out.append(Section(level, text, tuple(h for _, h in stack), i + 1, end))
    return out


def _norm_heading(h: str) -> str:
    # Obsidian drops these characters from heading links; compare case-insensitively.
    h = re.sub(r"[\[\]#|^:%*_`]", " ", h)
    return " ".join(unicodedata.normalize("NFC", h).casefold().split())


def find_section(secs: list[Section], heading: str) -> Section | None:
    """``heading`` is one heading or a path "H1#H2" (the last one, under the others)."""
    parts = [_norm_heading(p) for p in heading.split("#") if p.strip()]
    if not parts:
        return None
    *parents, last = parts
    for s in secs:
        if _norm_heading(s.heading) != last:
            continue
        above = [_norm_heading(h) for h in s.heading_path[:-1]]
        it = iter(above)
        if all(any(p == a for a in it) for p in parents):  # parents in order
            return s
    return None


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")


def find_block(lines: list[str], block: str) -> tuple[int, int] | None:
    """Line range of block ``^id`` (Obsidian's rules): a list item or a
    paragraph whose last line ends with `` ^id``; or, when the id stands alone
    on its line, the structured block (quote, callout, list, table) above it,
    blank lines in between skipped. Ids inside fenced code do not count."""
    bid = block.lstrip("^").strip()
    if not bid:
        return None
    pat = re.compile(r"(?:^|\s)\^" + re.escape(bid) + r"\s*$")
    fence: str | None = None
    for i, line in enumerate(lines):
        m = CODE_FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if not pat.search(line):
            continue
        n = i + 1
        if line.strip() != "^" + bid:
            if _LIST_ITEM.match(line):
                return n, n
            j = i  # back to the start of the paragraph
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].lstrip().startswith("#") \
                    and not _LIST_ITEM.match(lines[j - 1]):
                j -= 1
            return j + 1, n
        end = i
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        if end == 0:
            return n, n
        j = end - 1
        while j > 0 and lines[j - 1].strip():
            j -= 1
        return j + 1, n
    return None
