"""One escaper for user- and vault-supplied text on a terminal or in a log."""

from __future__ import annotations

import os

from groove.printable import escape_controls


def test_a_japanese_path_with_an_ideographic_space_prints_as_it_is():
    assert escape_controls("日記/朝の　メモ.md") == "日記/朝の　メモ.md"
    assert escape_controls("👩‍💻 notes.md") == "👩‍💻 notes.md"  # the joiner stays: the emoji stays whole


def test_controls_separators_and_bidi_overrides_become_escapes():
    assert escape_controls("a\nb\x1b[31mc") == "a\\nb\\x1b[31mc"
    assert escape_controls("x\u2028y\u202ez") == "x\\u2028y\\u202ez"


def test_a_file_name_byte_that_is_not_utf8_shows_as_that_byte():
    name = os.fsdecode(b"caf\xe9.md")
    shown = escape_controls(name)
    assert shown == "caf\\xe9.md"
    shown.encode("utf-8")  # printable to any UTF-8 terminal
