"""Unlinked connections (ADR 0200): the notes most like one note that no
link joins to it, each with the wikilink to write to link it. The list is
``related_notes``' own (notes.py) with the linked notes left out: the
ranking is the same."""

from __future__ import annotations

import posixpath

from ..runtime import Runtime
from ..vault.links import NameIndex, fold, strip_md
from ..wire.note_types import Connection, UnlinkedConnections
from .notes import name_index
from .related import related_notes


def unlinked_connections(rt: Runtime, path: str, limit: int = 10) -> UnlinkedConnections:
    """The notes most similar to ``path`` that no link joins to it (either
    way), each with the ``[[link]]`` to write in ``path`` to link it
    (``link_text``): its name, or its path without '.md' when another note
    has the same name; frontmatter aliases are never link targets (ADR 0051),
    so they are listed for ``[[link|alias]]`` display text."""
    rel = related_notes(rt, path, limit, unlinked_only=True)
    names = name_index(rt.index)
    out: list[Connection] = []
    for s in rel["similar"]:
        d = names.docs.get(s["path"])
        aliases = list(d.aliases) if d is not None else []
        out.append({"path": s["path"], "title": s["title"], "score": s["score"],
                    "link": f"[[{link_text(names, s['path'])}]]", "aliases": aliases})
    return {"path": rel["path"], "connections": out}


def link_text(names: NameIndex, path: str) -> str:
    """What Obsidian writes for a link to ``path`` with its default "shortest
    path when possible": the bare name when no other note has it, else the
    vault path; '.md' left off either way."""
    stem = strip_md(posixpath.basename(path))
    same = names.by_stem.get(fold(stem), [])
    return stem if len(same) <= 1 else strip_md(path)
