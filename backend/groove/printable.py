"""One way to print text a user or a vault supplied (a note path, a query,
a client's name) to a terminal or a log line."""

from __future__ import annotations

import unicodedata

# Bidirectional embeddings, overrides and isolates: they reorder what follows.
_BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# os.fsdecode keeps a byte that is not UTF-8 as one of these (surrogateescape).
_ESCAPED_BYTES = range(0xDC80, 0xDD00)


def _escaped(ch: str) -> str:
    if ord(ch) in _ESCAPED_BYTES:
        return f"\\x{ord(ch) - 0xDC00:02x}"  # the file name's own byte, as vault/scan.py shows it
    return ascii(ch)[1:-1]


def escape_controls(text: str) -> str:
    """``text`` with control characters, line/paragraph separators, bidi
    controls and lone surrogates as Python escapes, so it cannot forge a line,
    send a terminal escape or fail to encode; everything else (a Japanese
    path, an ideographic space, an emoji with its joiners) as it is."""
    if text.isprintable():
        return text
    return "".join(_escaped(ch) if unicodedata.category(ch) in ("Cc", "Cs", "Zl", "Zp") or ch in _BIDI else ch
                   for ch in text)
