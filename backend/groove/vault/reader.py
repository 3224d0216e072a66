"""A vault file's bytes as the note the index stores, by the file's kind:
Markdown (``markdown.py``) or JSON Canvas (``canvas.py``, ADR 0195). The
indexer and the note reader call this, so both see a file the same way."""

from __future__ import annotations

from ..tokens import estimate_tokens
from ..types import ParsedNote
from .canvas import BadCanvas, is_canvas, parse_canvas
from .markdown import TokenCounter, parse_note

__all__ = ["NotANote", "parse_file"]

# What a file holds that no note can be made of; its message is the skip reason.
NotANote = BadCanvas


def parse_file(path: str, data: bytes, *, chunk_tokens: int = 400,
               count_tokens: TokenCounter = estimate_tokens) -> ParsedNote:
    """Raises ``NotANote`` for a file whose content is not of its kind (a
    canvas that is not JSON Canvas)."""
    parse = parse_canvas if is_canvas(path) else parse_note
    return parse(path, data, chunk_tokens=chunk_tokens, count_tokens=count_tokens)
