"""What text a note's bytes hold: UTF-8 (with or without a byte-order mark),
UTF-16 or UTF-32 with a byte-order mark, or not text at all.

Notes are parsed as UTF-8 text without a byte-order mark, and the chunks'
``byte_*`` offsets are offsets into that text, which is what an editor
holds once it has opened the file (ADR 0094): for a UTF-8 note without a
BOM (nearly all of them) they are file offsets; a UTF-8 BOM is not counted;
a UTF-16/32 note (Windows tools still write them) is decoded and re-encoded
as UTF-8, and its offsets are into that. Line numbers are the file's.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

UTF8_BOM = codecs.BOM_UTF8


def nfc(name: str) -> str:
    """A name, glob or tag in Unicode normal form C: what every comparison of
    names compares (issue 35 F5). macOS writes file names decomposed (NFD),
    a keyboard types them composed (NFC); 'résumé' is one name either way."""
    return name if name.isascii() else unicodedata.normalize("NFC", name)

# Longest BOM first: UTF-32 LE starts with the UTF-16 LE mark.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32 LE"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32 BE"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16 LE"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16 BE"),
)


@dataclass(frozen=True)
class DecodedNote:
    """The bytes to parse (UTF-8, maybe invalid in places) and how they were found."""

    data: bytes  # UTF-8, no byte-order mark
    encoding: str  # "UTF-8", "UTF-8 with BOM", "UTF-16 LE", ...
    recoded: bool  # True for UTF-16/32: ``data`` is the text re-encoded as UTF-8
    warning: str | None = None


def decode_note_bytes(raw: bytes) -> DecodedNote:
    """UTF-16/32 notes (recognised by their byte-order mark) become UTF-8;
    a UTF-8 BOM is dropped; anything else is passed through for the UTF-8
    parser (which replaces invalid bytes and says so)."""
    if raw.startswith(UTF8_BOM):
        return DecodedNote(raw[len(UTF8_BOM):], "UTF-8 with BOM", False)
    for bom, codec, name in _BOMS:
        if raw.startswith(bom):
            warning = None
            try:
                text = raw.decode(codec)  # the codec consumes the BOM
            except UnicodeDecodeError:
                text = raw.decode(codec, errors="replace")
                warning = f"invalid {name} (decoded with replacement characters)"
            return DecodedNote(text.encode("utf-8"), name, True, warning)
    return DecodedNote(raw, "UTF-8", False)


def binary_reason(data: bytes) -> str | None:
    """Why ``data`` (already through ``decode_note_bytes``) is not a note, or None."""
    head = data[:8192]
    if b"\x00" not in head:
        return None
    if _looks_like_bomless_utf16(head):
        return ("UTF-16 text without a byte-order mark, not supported: save it as UTF-8 "
                "(or as UTF-16 with a BOM) to index it")
    return "binary file (contains NUL bytes), not a Markdown note"


def _looks_like_bomless_utf16(head: bytes) -> bool:
    """Mostly-ASCII UTF-16 has a NUL in every other byte."""
    if len(head) < 4:
        return False
    even, odd = head[0::2], head[1::2]
    for zeros, other in ((even, odd), (odd, even)):
        if zeros.count(0) >= 0.9 * len(zeros) and other.count(0) <= 0.1 * len(other):
            return True
    return False
