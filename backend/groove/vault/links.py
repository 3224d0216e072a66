"""Where an Obsidian wikilink points (ADR 0051): pure functions over the
vault's note names.

Obsidian's rules, as the table in editor-client/test/fixtures/
link-resolution.json writes them down (ADR 0107, 0117); names compared
NFC-normalised and case-folded:

1. ``|alias`` is display text; frontmatter aliases are not link targets.
2. ``./`` and ``../`` resolve against the linking note's folder only.
3. A path equal to a note's full vault path is that note (so a bare
   ``[[Name]]`` means the root note when there is one); a leading ``/``
   allows nothing else.
4. Otherwise the notes whose path ends with the link path: those under the
   linking note's folder (any depth) first, then the rest; each group by
   path length, shortest first.

Attachments are matched against the vault's other files the same way.
"""

from __future__ import annotations

import posixpath
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..errors import InvalidArgument
from ..types import WikiLink
from .markdown import parse_links


@dataclass(frozen=True)
class NoteName:
    id: int
    path: str
    title: str
    aliases: tuple[str, ...]

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)


def fold(s: str) -> str:
    return unicodedata.normalize("NFC", s).casefold()


def strip_md(p: str) -> str:
    return p[:-3] if p.lower().endswith(".md") else p


@dataclass
class NameIndex:
    """Every note by exact path, and by folded path, basename and alias."""

    docs: dict[str, NoteName] = field(default_factory=dict)  # exact path -> note
    by_path: dict[str, list[NoteName]] = field(default_factory=dict)  # folded path without .md
    by_stem: dict[str, list[NoteName]] = field(default_factory=dict)
    by_alias: dict[str, list[NoteName]] = field(default_factory=dict)

    @classmethod
    def build(cls, notes: Iterable[NoteName]) -> NameIndex:
        n = cls()
        for d in notes:
            n.docs[d.path] = d
            n.by_path.setdefault(fold(strip_md(d.path)), []).append(d)
            n.by_stem.setdefault(fold(strip_md(posixpath.basename(d.path))), []).append(d)
            for a in d.aliases:
                n.by_alias.setdefault(fold(a), []).append(d)
        return n

    def by_id(self) -> dict[int, NoteName]:
        return {d.id: d for d in self.docs.values()}

    def lookup(self, rel: str) -> NoteName | None:
        """The note a client means by ``rel``: exactly, or by folded path with or without '.md'."""
        hits = self.lookup_all(rel)
        return hits[0] if hits else None

    def lookup_all(self, rel: str) -> list[NoteName]:
        """Every note ``rel`` may mean: the exact one alone, else all those
        whose folded path (case and Unicode form aside) is ``rel``'s."""
        if rel in self.docs:
            return [self.docs[rel]]
        for cand in (rel, rel + ".md"):
            hit = self.by_path.get(fold(strip_md(cand)))
            if hit:
                return list(hit)
        return []


def pick(cands: list[NoteName], from_folder: str | None) -> NoteName:
    """Ambiguous name (rule 4): a note under the linking note's folder, at any
    depth, else any; then the shortest path, then alphabetical (Obsidian's
    own tie-break is its file load order)."""
    under = "" if not from_folder else from_folder + "/"
    return min(cands, key=lambda d: (0 if d.path.startswith(under) else 1, len(d.path), d.path))


def resolve_target(names: NameIndex, target: str, from_path: str | None) -> NoteName | None:
    """The note ``target`` (a link's path part) names, by the rules above."""
    t = target.strip().replace("\\", "/")
    if not t:
        return names.docs.get(from_path) if from_path else None
    from_folder = posixpath.dirname(from_path) if from_path is not None else None
    # 2. relative links never fall back
    if t.startswith(("./", "../")):
        joined = posixpath.normpath(posixpath.join(from_folder or "", strip_md(t)))
        if joined == ".." or joined.startswith("../"):
            return None
        hit = names.by_path.get(fold(joined))
        return min(hit, key=lambda d: d.path) if hit else None
    key = fold(strip_md(t.lstrip("/")))
    # 3. the full vault path
    hit = names.by_path.get(key)
    if hit:
        return min(hit, key=lambda d: d.path)
    if t.startswith("/"):
        return None
    # 4. a path suffix ("Deep/Dup" matches "Projects/Deep/Dup"), or the name
    if "/" in key:
        cands = [d for p, ds in names.by_path.items() if p.endswith("/" + key) for d in ds]
    else:
        cands = names.by_stem.get(key, [])
    return pick(cands, from_folder) if cands else None


# The files Obsidian opens besides notes (its help's "Accepted file formats"):
# a link to one is an attachment, listed apart, never a missing note (ADR 0257).
ATTACHMENT_SUFFIXES = frozenset(
    ".avif .bmp .gif .jpeg .jpg .png .svg .webp .flac .m4a .mp3 .ogg .wav .3gp .mkv .mov .mp4 .ogv .webm .pdf"
    .split())


def names_attachment(target: str) -> bool:
    """``target`` ends in a file type that is not a note (``Sleep-2026.webp``, ``Figure 1.png``)."""
    return posixpath.splitext(target.strip())[1].lower() in ATTACHMENT_SUFFIXES


def match_file(files: list[str], target: str) -> str | None:
    """An attachment ``target`` among the vault's other files (shortest path wins)."""
    key = fold(target.strip().lstrip("/").replace("\\", "/"))
    if not key or ".." in key.split("/"):
        return None
    hits = [f for f in files if fold(f) == key or fold(f).endswith("/" + key)]
    return min(hits, key=lambda f: (f.count("/"), len(f), f)) if hits else None


def parse_link_arg(link: str) -> WikiLink:
    """A link as a client passes it: '[[Note#H|alias]]', '![[x.png]]' or bare 'Note#H'."""
    if not isinstance(link, str) or not link.strip():
        raise InvalidArgument("'link' must be a non-empty string such as '[[Note#Heading|alias]]'", param="link")
    s = link.strip()
    if not s.lstrip("!").startswith("[["):
        s = f"[[{s}]]"
    found = parse_links(s)
    if not found:
        raise InvalidArgument(f"{link!r} is not a wikilink; expected e.g. '[[Note]]', '[[Note#Heading]]', "
                              "'[[Note^block]]'", param="link")
    return found[0]
