"""Which characters of a chunk's Markdown a person reads in `groove search`'s
snippet: a link as its display text (``[[Target|alias]]`` -> alias,
``[text](url)`` -> text), an embed by its name, no emphasis or heading
markers, callout tags and quote marks; code is kept as written. The text is
never rewritten, only characters hidden, so the match spans (offsets into
the content) still land on the same words (the editors' ``display.ts``
does the same for the panels, issue 47)."""

from __future__ import annotations

import re

_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")  # inline code: left as it is
_WIKI = re.compile(r"!?\[\[([^\]|\n]+?)(?:\\?\|([^\]\n]*))?\]\]")
_MDLINK = re.compile(r"!?\[([^\]\n]*)\]\((?:[^()\n]|\([^()\n]*\))*\)")  # a URL may hold (one level of) ()
_EMPHASIS = re.compile(r"(\*\*|__|~~|==)(?=\S)([^\n]*?\S)\1|(?<![\w*])\*(?=[^\s*])([^*\n]*?[^\s*])\*(?![\w*])")
# A heading's marks, a quote's and a callout's, and a heading's inside a quote ("> ### Title").
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|(?:>[ \t]?)+(?:\[![\w-]+\][+-]?[ \t]*)?(?:#{1,6}[ \t]+)?)", re.M)


def shown(content: str) -> bytearray:
    """One byte per character of ``content``: 1 where it is shown, 0 where it is markup."""
    keep = bytearray(b"\x01" * len(content))
    code = bytearray(len(content))
    for m in _CODE.finditer(content):
        code[m.start():m.end()] = b"\x01" * (m.end() - m.start())

    def hide(a: int, b: int) -> None:
        keep[a:b] = bytes(b - a)

    def free(m: re.Match[str]) -> bool:
        return not any(code[m.start():m.end()])

    for m in _LINE_MARK.finditer(content):
        if free(m):
            hide(m.start(), m.end())
    for m in _WIKI.finditer(content):
        if not free(m):
            continue
        if m.group(2) is not None and m.group(2).strip():  # [[Target|alias]]: the alias
            hide(m.start(), m.start(2))
            hide(m.end(2), m.end())
        else:  # [[Target]] / ![[image.png]]: the name; [[#Heading]] (this note's): the heading
            own = len(m.group(1)) - len(m.group(1).lstrip("#^"))
            hide(m.start(), m.start(1) + own)
            hide(m.end(1), m.end())
    for m in _MDLINK.finditer(content):
        if free(m):
            hide(m.start(), m.start(1))
            hide(m.end(1), m.end())
    for m in _EMPHASIS.finditer(content):
        if not free(m):
            continue
        inner = 2 if m.group(1) else 3
        hide(m.start(), m.start(inner))
        hide(m.end(inner), m.end())
    return keep
