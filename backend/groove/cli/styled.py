"""Styled terminal text for `groove search`'s hits, without rich.

rich costs 12 ms to import, an eighth of a cold `groove search` answered by
the daemon (issue 16), and the hit list needs four colours and bold, not
layout. Styles use rich's words ("bold cyan", "black on yellow") so the
other commands' rich output and this one read alike. Colour only goes to a
terminal, never to a pipe; ``NO_COLOR`` turns it off and ``FORCE_COLOR`` on
(https://no-color.org). Lines are not wrapped: the terminal does that, and a
pipe gets whole lines to grep.
"""

from __future__ import annotations

import os
import sys
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


class Printer:
    """Prints styled lines to one stream, coloured when it is a terminal."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream or sys.stdout
        self.colour = wants_colour(self.stream)

    def line(self, *parts: Styled | tuple[str, str | None] | str) -> None:
        text = Styled()
        for p in parts:
            if isinstance(p, Styled):
                for s in p.spans:
                    text.spans.append(Span(s.start + len(text.plain), s.end + len(text.plain), s.style))
                text.plain += p.plain
            elif isinstance(p, tuple):
                text.append(*p)
            else:
                text.append(p)
        self.stream.write(text.render(self.colour) + "\n")
