"""A vault file's bytes as the note the index stores, by the file's kind:
Markdown (``markdown.py``) or JSON Canvas (``canvas.py``, ADR 0195). The
indexer and the note reader call this, so both see a file the same way."""

from __future__ import annotations

from ..tokens import estimate_tokens
from ..types import ParsedNote
from .canvas import BadCanvas, is_canvas, parse_canvas
from .markdown import TokenCounter, parse_note
from .scan import NoteFile, read_regular_file

__all__ = ["CHANGED_WHILE_READ", "NotANote", "parse_file", "read_consistently"]

CHANGED_WHILE_READ = "changed while indexing (will be picked up by the next run)"

# What a file holds that no note can be made of; its message is the skip reason.
NotANote = BadCanvas


def parse_file(path: str, data: bytes, *, chunk_tokens: int = 400,
               count_tokens: TokenCounter = estimate_tokens) -> ParsedNote:
    """Raises ``NotANote`` for a file whose content is not of its kind (a
    canvas that is not JSON Canvas)."""
    parse = parse_canvas if is_canvas(path) else parse_note
    return parse(path, data, chunk_tokens=chunk_tokens, count_tokens=count_tokens)


def read_consistently(nf: NoteFile, max_file_bytes: int) -> tuple[bytes | None, str | None, int, int]:
    """(bytes, skip reason, size, mtime_ns) of a note file, read consistently: a file that
    changes while it is read is reported, not stored half old, half new."""
    data, st, reason = read_regular_file(nf.abspath, max_file_bytes)
    if reason or st is None:
        return None, reason or "unreadable", 0, 0
    if data is None or len(data) > max_file_bytes:
        size = max(st.st_size, len(data or b""))
        return None, (
            f"too large ({size:,} bytes > max_file_bytes {max_file_bytes:,}; "
            "raise [index] max_file_bytes in groove.toml to index it)"
        ), 0, 0
    try:
        st2 = nf.abspath.stat()
    except FileNotFoundError:
        return None, "deleted while indexing", 0, 0
    except OSError as e:
        return None, f"unreadable ({e.strerror or e})", 0, 0
    if (st2.st_size, st2.st_mtime_ns) != (st.st_size, st.st_mtime_ns) or len(data) != st2.st_size:
        return None, CHANGED_WHILE_READ, 0, 0
    return data, None, st2.st_size, st2.st_mtime_ns
