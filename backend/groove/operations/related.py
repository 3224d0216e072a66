"""Related notes (ADR 0200 marks each ``linked``): the notes nearest one
note by meaning, the notes that link to it and the links going out, each
once. A note operation like those of ``notes.py`` (served through
``table.py``), and ``unlinked_connections`` (``unlinked.py``) reads it."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from ..errors import InvalidArgument, NoteNotFound
from ..index.notes import chunk_note_path, links_naming, nearest_notes_to, outgoing_links
from ..index.related_rank import rank_related
from ..runtime import Runtime
from ..vault.gate import check_readable, read_rules, safe_path
from ..vault.links import NoteName, resolve_target, strip_md
from ..vault.scan import IgnoreRules
from ..wire.bounds import MAX_RELATED
from ..wire.note_types import Attachment, Backlink, Outgoing, OwnHeading, Related, Similar
from .notes import MAX_OUTGOING, LinkResolver, name_index, suggestions


def _indexed_doc(rt: Runtime, path: str) -> NoteName:
    full, rel = safe_path(rt.vault, path)
    doc = name_index(rt.index).lookup(rel)
    if doc is None:
        check_readable(rt.vault, full, rel)  # a note the rules leave out: say which rule (ADR 0190), not "reindex"
        near = suggestions(rt, path)  # the same did-you-mean as get_document
        hint = f" Did you mean: {', '.join(repr(p) for p in near)}?" if near else ""
        raise NoteNotFound(f"'{rel}' is not an indexed note.{hint} If it is new, index it first "
                           "(`groove index`, or the reindex tool over MCP).")
    return doc


def _check_indexed(rt: Runtime, doc: NoteName, rules: IgnoreRules) -> None:
    """The read gate for a note named by the index (it may predate the rules)."""
    full, rel = safe_path(rt.vault, doc.path)
    check_readable(rt.vault, full, rel, rules)


def _similar(rt: Runtime, doc: NoteName, chunk_id: int | None, limit: int, rules: IgnoreRules,
             linked: set[str], unlinked_only: bool) -> list[Similar]:
    """The nearest notes, each marked ``linked``; ``unlinked_only`` drops those before ``limit``.
    Ranked by ``index.related_rank`` (ADR 0276); plain KNN when it has no vectors to work on."""
    by_id = name_index(rt.index).by_id()
    out: list[Similar] = []
    for did, cos, relevance in _candidates(rt, doc, chunk_id, limit + (len(linked) if unlinked_only else 0)):
        d = by_id.get(did)
        if d is None or rules.skips(d.path):
            continue
        if unlinked_only and d.path in linked:
            continue
        hit: Similar = {"path": d.path, "title": d.title, "score": round(cos, 4), "linked": d.path in linked}
        if relevance is not None:
            hit["relevance"] = round(relevance, 2)
        out.append(hit)
        if len(out) >= limit:
            break
    return out


def _candidates(rt: Runtime, doc: NoteName, chunk_id: int | None, depth: int
                ) -> Iterator[tuple[int, float, float | None]]:
    """(note id, cosine, relevance or None), best first."""
    names = name_index(rt.index)

    def resolve(target: str, src: str) -> int | None:
        hit = resolve_target(names, target, src)
        return hit.id if hit is not None else None

    ranked = rank_related(rt.index, doc.id, chunk_id, resolve, limit=depth + 100)  # room for notes the rules skip
    if ranked is None:  # as many more as may be dropped, so the search looks deep enough
        yield from ((did, cos, None) for did, cos in nearest_notes_to(rt.index, doc.id, chunk_id, depth))
    else:
        yield from ((r.doc_id, r.cosine, r.relevance) for r in ranked)


def _backlinks(rt: Runtime, doc: NoteName, rules: IgnoreRules) -> list[Backlink]:
    names = name_index(rt.index)
    stem = strip_md(posixpath.basename(doc.path)).lower()
    keys = {strip_md(doc.path).lower(), doc.path.lower(), stem, stem + ".md"} | {a.lower() for a in doc.aliases}
    out: list[Backlink] = []
    seen: set[tuple[str, int]] = set()
    for src, title, target, line in links_naming(rt.index, keys, stem):
        if src == doc.path or (src, line) in seen or rules.skips(src):
            continue
        hit = resolve_target(names, target, src)
        if hit is not None and hit.id == doc.id:
            seen.add((src, line))
            out.append({"path": src, "title": title, "line": line})
    return out


def related_notes(
    rt: Runtime, path: str | None = None, limit: int = 10, *, chunk_id: int | None = None,
    unlinked_only: bool = False,
) -> Related:
    """Notes near this one by embedding (the mean of its chunk vectors, or one
    chunk's vector), plus the notes linking here and the links going out, each
    once (the first line it appears on, and how often). Each similar note is
    marked ``linked`` when a link joins the two notes in either direction
    (resolved as backlinks and outgoing links are); ``unlinked_only`` leaves
    those out before ``limit`` applies (ADR 0200). The ranking is the same either way.

    Returns ``{path, similar: [{path, title, score, linked, relevance?}], backlinks: [{path, title, line, occurrences}],
    outgoing: [{target, path | null, heading, line, occurrences}], attachments: [{target, path | null,
    embed, line, occurrences}], own_headings: [{heading, block, line, occurrences}]}``: links to other
    notes, to files that are not notes, and to the note's own headings, apart (ADR 0257).
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidArgument(f"'limit' must be an integer, got {limit!r}", param="limit")
    if limit < 1:
        raise InvalidArgument(f"'limit' must be at least 1, got {limit}", param="limit")
    if not isinstance(unlinked_only, bool):
        raise InvalidArgument(f"'unlinked_only' must be true or false, got {unlinked_only!r}", param="unlinked_only")
    limit = min(limit, MAX_RELATED)
    doc, rules, backlinks, out = _note_links(rt, path, chunk_id)
    linked = {b["path"] for b in backlinks} | {o["path"] for o in out.notes if o["path"]}
    return {"path": doc.path, "similar": _similar(rt, doc, chunk_id, limit, rules, linked, unlinked_only),
            "backlinks": backlinks, "outgoing": out.notes, "attachments": out.attachments,
            "own_headings": out.own_headings}


@dataclass
class LinksOut:
    notes: list[Outgoing]
    attachments: list[Attachment]
    own_headings: list[OwnHeading]


def _note_links(rt: Runtime, path: str | None, chunk_id: int | None
                ) -> tuple[NoteName, IgnoreRules, list[Backlink], LinksOut]:
    """The note named (by path or a chunk), the vault's rules, its backlinks and outgoing links."""
    if chunk_id is not None:
        where = chunk_note_path(rt.index, chunk_id)
        if where is None:
            raise NoteNotFound(f"no chunk {chunk_id} in the index (chunk ids come from search results)")
        doc = name_index(rt.index).docs[where]
    elif path:
        doc = _indexed_doc(rt, path)
    else:
        raise InvalidArgument("pass 'path' (a vault-relative note path) or 'chunk_id' (from a search hit)",
                              param="path")
    rules = read_rules(rt.vault)
    _check_indexed(rt, doc, rules)
    return doc, rules, _once(_backlinks(rt, doc, rules), lambda b: b["path"]), _links_out(rt, doc, rules)


def _links_out(rt: Runtime, doc: NoteName, rules: IgnoreRules) -> LinksOut:
    """The note's links as Obsidian reads them (ADR 0257): to other notes, to
    files that are not notes (attachments), and to its own headings."""
    resolve = LinkResolver(rt, rules)
    out = LinksOut([], [], [])
    for target, heading, block, embed, line in outgoing_links(rt.index, doc.id, MAX_OUTGOING):
        path, attachment = resolve.resolve(target, doc.path)
        if (not target.strip() or path == doc.path) and (heading or block):
            out.own_headings.append({"heading": heading, "block": block, "line": line})
        elif attachment:
            out.attachments.append({"target": target, "path": path, "embed": embed, "line": line})
        else:
            out.notes.append({"target": target, "path": path, "heading": heading, "line": line})
    return LinksOut(_once(out.notes, lambda o: (o["path"] or o["target"].casefold(), o["heading"])),
                    _once(out.attachments, lambda a: a["path"] or a["target"].casefold()),
                    _once(out.own_headings, lambda h: (h["heading"], h["block"])))


L = TypeVar("L", Backlink, Outgoing, Attachment, OwnHeading)


def _once(items: list[L], key: Callable[[L], Any]) -> list[L]:
    seen: dict[Any, L] = {}
    for it in items:
        k = key(it)
        if k in seen:
            seen[k]["occurrences"] += 1
        else:
            seen[k] = {**it, "occurrences": 1}
    return list(seen.values())
