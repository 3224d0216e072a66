"""The query compiler's character classes: where a query's words and runs
begin and end (ADR 0010, 0013). ``query`` compiles with them, and
``highlight`` and ``terms`` read the same words for match_spans."""

from __future__ import annotations

import re
import unicodedata

from groove.query.words import split_at

# Character types: run boundaries fall where the type changes (ADR 0010, 0013).
SEP, KANJI, HIRA, KATA, WORD, HANGUL = 0, 1, 2, 3, 4, 5

# A kana-free run of at least this many kanji is read as Chinese (ADR 0160):
# Japanese writes its questions with kana between the kanji, Chinese has no
# such boundary, so a whole sentence is one run.
HAN_SENTENCE = 5

# The classes above as regexes, for text too long for a call per character
# (the calibration's letter shares scan a sample of the whole vault; a test
# checks them against ``char_type``): kanji, hiragana and katakana; kana; Hangul.
CJK_LETTER = re.compile("[\u3005-\u3007\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
                        "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff]")
KANA_LETTER = re.compile("[\u3041-\u309f\u30a0-\u30fa\u30fc-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
HANGUL_LETTER = re.compile("[\uac00-\ud7a3\u1100-\u11ff\u3131-\u318e\ua960-\ua97f\ud7b0-\ud7ff]")
ASCII_LETTER = re.compile(r"[A-Za-z]")


def char_type(ch: str) -> int:
    """The character class used for run boundaries (ADR 0010, 0013)."""
    o = ord(ch)
    if 0x4E00 <= o <= 0x9FFF or 0x3400 <= o <= 0x4DBF or 0x20000 <= o <= 0x3FFFF \
            or 0xF900 <= o <= 0xFAFF or o in (0x3005, 0x3006, 0x3007):
        return KANJI
    if 0x3041 <= o <= 0x309F:
        return HIRA
    # U+30FB (katakana middle dot) is punctuation: a separator, not a letter.
    if (0x30A0 <= o <= 0x30FF and o != 0x30FB) or 0x31F0 <= o <= 0x31FF \
            or 0xFF66 <= o <= 0xFF9F:
        return KATA
    if 0xAC00 <= o <= 0xD7A3 or 0x1100 <= o <= 0x11FF or 0x3131 <= o <= 0x318E \
            or 0xA960 <= o <= 0xA97F or 0xD7B0 <= o <= 0xD7FF:
        return HANGUL
    if ch.isalnum() or ch == "_":
        return WORD
    if unicodedata.category(ch)[0] == "M":
        return WORD  # a combining mark at word start; mid-word it joins its base
    return SEP


def is_cjk(ch: str) -> bool:
    """A kanji/kana or Hangul letter: the characters the short-CJK bigram index holds.

    Letters and digits only (Unicode L*/N*), because the bigram table's
    unicode61 tokenizer treats every other category as a separator.
    """
    return char_type(ch) in (KANJI, HIRA, KATA, HANGUL) and unicodedata.category(ch)[0] in "LN"


def is_han_sentence(run: str, kana_free: bool) -> bool:
    """A kana-free kanji run of ``HAN_SENTENCE``+ characters: a Chinese sentence (ADR 0160)."""
    return kana_free and len(run) >= HAN_SENTENCE and char_type(run[0]) == KANJI


def runs(word: str) -> list[str]:
    """Split a separator-free word at character-type boundaries."""
    out: list[str] = []
    prev = -1
    for ch in word:
        t = char_type(ch)
        if unicodedata.category(ch)[0] == "M" and out:
            out[-1] += ch  # combining marks never start a new run
            continue
        if t == prev:
            out[-1] += ch
        else:
            out.append(ch)
            prev = t
    return out


def words(text: str) -> list[str]:
    """Split unquoted text at separators; combining marks stay with their base."""
    return split_at(text, lambda ch: char_type(ch) == SEP)
