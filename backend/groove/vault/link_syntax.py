"""Links and tags in a note's text, as Obsidian reads them: ``[[Target#heading^block|alias]]``
and ``![[embeds]]`` (none inside code, ADR 0257), and inline ``#tags``."""

from __future__ import annotations

import re

from ..types import WikiLink
from .encoding import nfc

# A caret is a block id only after '#' ("[[Note#^id]]"); in "[[Note^id]]" it
# is part of the name, as in Obsidian.
_LINK = re.compile(r"(!?)\[\[([^\[\]\|#\n]*)(?:#([^\[\]\|\^\n]*)(?:\^([^\[\]\|\n]*))?)?(?:\|([^\[\]\n]*))?\]\]")
_TAG = re.compile(r"(?<![\w/#&])#([\w\-/]*[^\W\d][\w\-/]*)")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
# For links (ADR 0257): a fence in a list item or a quote is indented or
# quoted ("   ```", "> ```"), and an inline code span may open with several
# backticks ("`` [[x]] ``"); neither holds links in Obsidian.
_NESTED_FENCE = re.compile(r"^[ \t>]*(`{3,}|~{3,})")
_INLINE_CODE_RUNS = re.compile(r"(?<!`)(`+)(?!`).+?(?<!`)\1(?!`)")


def _strip_code(text: str, *, nested: bool = False) -> str:
    """Text without fenced and inline code, for tag/link extraction; with
    ``nested``, also fences indented in lists or quotes and inline code of
    several backticks (links)."""
    out: list[str] = []
    fence: str | None = None
    fence_re, inline_re = (_NESTED_FENCE, _INLINE_CODE_RUNS) if nested else (_FENCE, _INLINE_CODE)
    for line in text.split("\n"):
        m = fence_re.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(inline_re.sub("", line))
    return "\n".join(out)


def _part(s: str | None, before_alias: bool) -> str:
    """A link's part, without the backslash that escapes the alias bar in a
    table (``[[Target\\|alias]]`` names ``Target``, ADR 0257)."""
    s = (s or "").strip()
    return s[:-1].rstrip() if before_alias and s.endswith("\\") else s


def parse_links(text: str, first_line: int = 1) -> list[WikiLink]:
    """The wikilinks and embeds of ``text`` as Obsidian reads them: none in code."""
    links: list[WikiLink] = []
    for i, line in enumerate(_strip_code(text, nested=True).split("\n")):
        for m in _LINK.finditer(line):
            aliased = m.group(5) is not None
            # The part just before '|' is the one that may end in the escaping backslash.
            last = 4 if m.group(4) is not None else 3 if m.group(3) is not None else 2
            target = _part(m.group(2), aliased and last == 2)
            links.append(
                WikiLink(
                    target=target,
                    heading=_part(m.group(3), aliased and last == 3) or None,
                    block=_part(m.group(4), aliased and last == 4) or None,
                    alias=(m.group(5) or "").strip() or None,
                    embed=m.group(1) == "!",
                    line=first_line + i,
                )
            )
    return links


def parse_inline_tags(text: str) -> list[str]:
    # In NFC: a decomposed '#élan' would end at its combining accent (not \w).
    return [m.group(1) for m in _TAG.finditer(nfc(_strip_code(text)))]
