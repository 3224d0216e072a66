"""Did-you-mean for a note path that names no note: which indexed notes the
caller probably meant (ADR 0250).

The note's name and its folder are weighed separately. People misremember
a name's spelling more than its folder, so the name decides whether a note
is offered at all (``MIN_SIMILARITY``) and the folder only orders the
offers: the same folder first, then a folder spelled alike.

A name is compared as a whole and word by word. difflib's ratio alone
offers names that share scattered letters ("dhcp leasng" ~ "cpu flag" is
0.63, above its usual 0.6 cut): comparing each word of the wanted name with
its closest word of the candidate, and back, tells a misspelt word from
letters in common.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Iterable, Sequence
from difflib import SequenceMatcher

# A name this alike (0-1) is offered: "plam" ~ "plan" is 0.75, "cronn" ~
# "cron" 0.89, "dhcp leasng" ~ "dhcp lease time" 0.73; letters in common
# without a word in common score about 0.6 ("dhcp leasng" ~ "cpu flag").
MIN_SIMILARITY = 0.68
FOLDER_WEIGHT = 0.1  # the folder orders offers, it never decides one
_WORD = re.compile(r"\w+")


def _key(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _stem(path: str) -> str:
    name = posixpath.basename(path)
    return name[:-3] if name.lower().endswith(".md") else name


def _ratio(a: str, b: str) -> float:
    return SequenceMatcher(None, a, b, autojunk=False).ratio()


def _words_toward(a: list[str], b: list[str]) -> float:
    """Each word of ``a`` against its closest word of ``b``, weighted by length."""
    total = sum(len(w) for w in a)
    return sum(len(w) * max(_ratio(w, x) for x in b) for w in a) / total


def name_similarity(wanted: str, name: str) -> float:
    """How alike two note names are, 0-1: the mean of the whole names'
    ratio and the word-by-word ratio both ways (a candidate with words the
    wanted name lacks scores less than one without)."""
    a, b = _key(wanted), _key(name)
    if a == b:
        return 1.0
    wa, wb = _WORD.findall(a), _WORD.findall(b)
    whole = _ratio(a, b)
    if not wa or not wb:
        return whole
    return (whole + _words_toward(wa, wb) + _words_toward(wb, wa)) / 3


def close_paths(wanted: str, notes: Iterable[tuple[str, Sequence[str]]], n: int) -> list[str]:
    """The ``n`` note paths most like ``wanted`` (a vault-relative path or a
    bare name, '.md' optional), best first. ``notes``: (path, aliases) of
    every note; an alias counts as another name of its note. A name that
    holds the wanted one as a whole word ("Hotkeys" for "Obsidian hotkeys")
    is offered after the spelled-alike ones."""
    wanted = wanted.strip().strip("/")
    name = _stem(wanted)
    if not _key(name):
        return []
    folder = _key(posixpath.dirname(wanted))
    key = _key(name)
    inside = re.compile(r"(?<!\w)" + re.escape(key) + r"(?!\w)") if len(key) >= 3 else None
    scored: dict[str, float] = {}
    contained: list[str] = []
    for path, aliases in notes:
        best = max(name_similarity(name, x) for x in (_stem(path), *aliases))
        if best >= MIN_SIMILARITY:
            where = _key(posixpath.dirname(path))
            near = 1.0 if where == folder else _ratio(folder, where) if folder and where else 0.0
            scored[path] = best + FOLDER_WEIGHT * near
        elif inside is not None and any(inside.search(_key(x)) for x in (_stem(path), *aliases)):
            contained.append(path)
    ranked = sorted(scored, key=lambda p: (-scored[p], p))
    return list(dict.fromkeys(ranked + sorted(contained)))[:n]


__all__ = ["MIN_SIMILARITY", "close_paths", "name_similarity"]
