"""How much text of its own a chunk has (issue 49): one definition for
search's tiny-chunk prior (``pipeline/fusion.py``, ADR 0280), the hubness
scan's ``skip_empty`` (``space.py``) and related notes (``related_rank.py``).

A chunk's own text is its content without what is not its author's words
here: URLs, ``![[embeds]]``, ``![images](...)`` and heading lines (a
heading is in every chunk's context already). Its vector is otherwise little
more than its note's title, so a bare YouTube link or an image-only note
looks like its title to the vector legs.
"""

from __future__ import annotations

import re

from ..query.chars import CJK_LETTER

# What is not a chunk's own words: URLs, ![[embeds]], ![images](...), heading lines.
NOT_OWN = re.compile(r"https?://\S+|!\[\[[^\]]*\]\]|!\[[^\]]*\]\([^)]*\)|^#{1,6}[ \t].*$", re.M)
_LETTER = re.compile(r"[^\W\d_]")
_WORD = re.compile(r"[^\W\d_]+")


def own_text(content: str) -> str:
    return NOT_OWN.sub(" ", content)


def own_letters(content: str) -> int:
    """Letters of its own (related notes' length measure)."""
    return len(_LETTER.findall(own_text(content)))


def is_empty(content: str) -> bool:
    """No letter of its own: a bare URL, an embed or image, a heading alone."""
    return _LETTER.search(own_text(content)) is None


def own_words(content: str, cap: float | None = None) -> float:
    """Words of its own: runs of letters where the script spaces its words
    (Latin, Hangul, ...), and two characters a word in kanji and kana, which
    do not (a Chinese word is about two characters). On the four help vaults
    a chunk's median is then 33-48 words in every language.

    ``cap``: the count is needed only up to it (the prior is flat beyond),
    so a long chunk is read from its first lines when they hold as many
    (cut at a line end: embeds and headings do not span lines)."""
    if cap is not None and len(content) > _PREFIX:
        cut = content.rfind("\n", 0, _PREFIX)
        n = _count(content[:cut if cut > 0 else _PREFIX])
        if n >= cap:
            return cap
    n = _count(content)
    return n if cap is None else min(n, cap)


_PREFIX = 256  # characters: ~40 English words, ~120 Chinese


def _count(content: str) -> float:
    own = own_text(content)
    cjk = len(CJK_LETTER.findall(own))
    spaced = CJK_LETTER.sub(" ", own) if cjk else own
    return len(_WORD.findall(spaced)) + cjk / 2.0


def own_weight(words: float, scale: float) -> float:
    """The tiny-chunk prior: ``min(1, words / scale)``: 0 for a chunk with
    no word of its own, rising with each word, 1 from ``scale`` words on, so
    a chunk of that much text is untouched; 1 when the prior is off
    (``scale`` 0)."""
    if scale <= 0 or words >= scale:
        return 1.0
    return words / scale
