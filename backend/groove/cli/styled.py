"""Styled terminal text for `groove search`'s hits, without rich.

rich costs 12 ms to import, an eighth of a cold `groove search` answered by
the daemon (issue 16), and the hit list needs four colours and bold, not
layout. Styles use rich's words ("bold cyan", "black on yellow") so the
other commands' rich output and this one read alike. Colour only goes to a
terminal, never to a pipe; ``NO_COLOR`` turns it off and ``FORCE_COLOR`` on
(https://no-color.org). On a terminal, lines wrap at spaces (or between
Japanese/Chinese characters) to its width, continued under their indent;
the terminal's own wrap cut words and lost the indent. A pipe gets whole
lines to grep.
"""

from __future__ import annotations

import os
import shutil
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import IO

from ..printable import escape_controls

_COLOURS = ("black", "red", "green", "yellow", "blue", "magenta", "cyan", "white")
_ATTRS = {"bold": "1", "dim": "2", "italic": "3", "underline": "4"}


def sgr(style: str) -> str:
    """The ANSI SGR parameters of a rich-like style ("bold black on yellow" -> "1;30;43")."""
    codes: list[str] = []
    background = False
    for word in style.split():
        if word == "on":
            background = True
        elif word in _ATTRS:
            codes.append(_ATTRS[word])
        elif word in _COLOURS:
            codes.append(str((40 if background else 30) + _COLOURS.index(word)))
        else:
            raise ValueError(f"unknown style word {word!r} in {style!r}")
    return ";".join(codes)


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    style: str


@dataclass
class Styled:
    """Text with styled ranges (character offsets into ``plain``)."""

    plain: str = ""
    spans: list[Span] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.plain = escape_controls(self.plain)

    def append(self, text: str, style: str | None = None) -> Styled:
        # Vault text (a path, a heading, a note's words) may hold terminal
        # escapes or line breaks: shown escaped, so a note cannot set the
        # title, clear the screen or forge a line (issue 50 R11).
        text = escape_controls(text)
        if style and text:
            self.spans.append(Span(len(self.plain), len(self.plain) + len(text), style))
        self.plain += text
        return self

    def extend(self, other: Styled) -> Styled:
        """``other`` appended, its styles kept."""
        at = len(self.plain)
        self.spans += [Span(sp.start + at, sp.end + at, sp.style) for sp in other.spans]
        self.plain += other.plain
        return self

    def rstrip(self) -> Styled:
        return self.slice(0, len(self.plain.rstrip(" ")))

    def slice(self, start: int, end: int) -> Styled:
        """The text from ``start`` to ``end``, its styles clipped to it."""
        out = Styled()
        out.plain = self.plain[start:end]  # escaped already
        out.spans = [Span(max(s.start, start) - start, min(s.end, end) - start, s.style)
                     for s in self.spans if s.start < end and s.end > start]
        return out

    def render(self, colour: bool) -> str:
        if not colour:
            return self.plain
        out, at = [], 0
        for s in self.spans:
            out.append(self.plain[at:s.start])
            out.append(f"\x1b[{sgr(s.style)}m{self.plain[s.start:s.end]}\x1b[0m")
            at = s.end
        out.append(self.plain[at:])
        return "".join(out)


def wants_colour(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb" or not (hasattr(stream, "isatty") and stream.isatty()):
        return False
    return os.name != "nt" or _windows_vt(stream)


def _windows_vt(stream: IO[str]) -> bool:
    """Turn on escape-sequence processing in a Windows console (off by default
    in the old conhost); False, so plain text, where that is refused."""
    if sys.platform != "win32":
        return False
    try:
        import ctypes
        import msvcrt

        kernel32 = ctypes.windll.kernel32
        handle = msvcrt.get_osfhandle(stream.fileno())
        mode = ctypes.c_uint32()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        return bool(kernel32.SetConsoleMode(handle, mode.value | 0x0004))  # ENABLE_VIRTUAL_TERMINAL_PROCESSING
    except (AttributeError, OSError, ValueError, ImportError):
        return False


def cells(ch: str) -> int:
    """Terminal columns of one character: 2 for wide (CJK) ones, 0 for marks and joiners."""
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


_NO_LINE_START = set("、。，．・：；！？）」』】〕〉》ー々ぁぃぅぇぉっゃゅょァィゥェォッャュョ")
_NO_LINE_END = set("（「『【〔〈《")


def _breakable(a: str, b: str) -> bool:
    """A line may end between ``a`` and ``b``: one of them is a wide character
    (Japanese and Chinese need no space to break), but not before a closing
    mark or small kana, nor after an opening bracket."""
    return (cells(a) == 2 or cells(b) == 2) and b not in _NO_LINE_START and a not in _NO_LINE_END


def wrap(text: Styled, width: int, hang: int) -> list[Styled]:
    """``text`` in lines of at most ``width`` columns, broken at a space (which
    is dropped) or next to a wide character, a word longer than a line cut
    where it must; lines after the first start with ``hang`` spaces."""
    plain, lines, start, first = text.plain, [], 0, True
    while True:
        room = width - (0 if first else hang)
        used, i, cut = 0, start, -1
        while i < len(plain):
            w = cells(plain[i])
            if used + w > room and i > start:
                break
            if plain[i] == " ":
                cut = i
            elif i > start and _breakable(plain[i - 1], plain[i]):
                cut = i
            used += w
            i += 1
        if i >= len(plain):
            lines.append(text.slice(start, len(plain)))
            break
        if plain[i] == " " or _breakable(plain[i - 1], plain[i]):
            cut = i
        end = cut if cut > start else i
        lines.append(text.slice(start, end).rstrip())
        start = end
        while start < len(plain) and plain[start] == " ":
            start += 1
        if start >= len(plain):
            break
        first = False
    return [line if k == 0 else Styled(" " * hang).extend(line) for k, line in enumerate(lines)]


def terminal_width(stream: IO[str]) -> int | None:
    """The columns of the terminal ``stream`` writes to; None for a pipe or a file."""
    if not (hasattr(stream, "isatty") and stream.isatty()):
        return None
    return max(20, shutil.get_terminal_size((80, 24)).columns)


class Printer:
    """Prints styled lines to one stream, coloured when it is a terminal and
    wrapped to its width."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self.colour = wants_colour(self.stream)
        self.width = terminal_width(self.stream)

    def line(self, *parts: Styled | tuple[str, str | None] | str, hang: int | None = None) -> None:
        """One line of ``parts``; on a terminal wrapped, the rest under ``hang``
        columns (default: the line's own indent)."""
        text = Styled()
        for p in parts:
            if isinstance(p, Styled):
                text.extend(p)
            elif isinstance(p, tuple):
                text.append(*p)
            else:
                text.append(p)
        if self.width is None or sum(map(cells, text.plain)) <= self.width:
            self.stream.write(text.render(self.colour) + "\n")
            return
        indent = len(text.plain) - len(text.plain.lstrip(" ")) if hang is None else hang
        for piece in wrap(text, self.width, min(indent, self.width // 2)):
            self.stream.write(piece.render(self.colour) + "\n")
