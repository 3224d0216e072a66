"""The note operations: reading a note, where a wikilink points (related
notes and unlinked connections are in ``related.py``) — shared by MCP and the socket daemon through the operation table
(``table.py``), so both answer with the same shapes (docs/protocol.md). Each
answers a client that may have guessed (ADR 0115): a path that names no note
lists the notes it may have meant, a link whose heading or block is missing
says so, and each backlink and outgoing link is listed once with its count.

Every path a client passes goes through the path gate (``vault/gate.py``,
ADR 0050) first, and every file read through the read gate, which applies
the indexer's ignore rules (ADR 0091). Link resolution follows Obsidian's rules (``vault/links.py``,
ADR 0051). Note text, headings and block ids are read from the file on disk
(the truth the user edits; ``vault/sections.py``); the index supplies the
list of notes, their aliases, vectors and the links graph (``index/notes.py``).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any, cast

from ..errors import InvalidArgument, NoteNotFound
from ..index.notes import documents_signature, note_names
from ..runtime import Runtime
from ..storage.db import Index
from ..types import ParsedNote, WikiLink
from ..vault.canvas import BadCanvas, is_canvas, read_canvas, reading_text
from ..vault.gate import check_readable, read_rules, safe_path
from ..vault.links import NameIndex, NoteName, match_file, names_attachment, parse_link_arg, resolve_target
from ..vault.reader import parse_file
from ..vault.scan import IgnoreRules, is_note_name, note_paths, other_files
from ..vault.sections import find_block, find_section, sections
from ..vault.suggest import close_paths
from ..wire.note_types import Document, Link, NoteText, ResolvedLink

# A whole note above this many characters is cut at a line boundary; the
# caller is told which lines it got and how to ask for the rest.
MAX_DOCUMENT_CHARS = 40_000
MIN_DOCUMENT_CHARS = 100
MAX_SUGGESTIONS = 5
MAX_OUTGOING = 500


# ----------------------------------------------------------------------------- names

_names_cache: weakref.WeakKeyDictionary[Index, tuple[tuple, NameIndex]] = weakref.WeakKeyDictionary()
_names_lock = threading.Lock()


def name_index(idx: Index) -> NameIndex:
    """Every indexed note by name, rebuilt only when the documents table changed."""
    sig = documents_signature(idx)
    with _names_lock:
        hit = _names_cache.get(idx)
        if hit and hit[0] == sig:
            return hit[1]
    n = NameIndex.build(note_names(idx))
    with _names_lock:
        _names_cache[idx] = (sig, n)
    return n


# ----------------------------------------------------------------------------- reading


@dataclass
class _Note:
    path: str
    abspath: Path
    data: bytes
    text: str
    lines: list[str]  # without line endings
    chunk_tokens: int

    @cached_property
    def parsed(self) -> ParsedNote:
        # Title, frontmatter and links, parsed like the indexer does; only
        # get_document needs them (resolving a link reads lines only).
        return parse_file(self.path, self.data, chunk_tokens=self.chunk_tokens)


def _lookup_note(rt: Runtime, user_path: str) -> tuple[Path, str]:
    """The note file a client means (as given, with '.md' added, or matched
    case-insensitively against the index), if the read gate lets it be read."""
    full, rel = _find_note(rt, user_path)
    check_readable(rt.vault, full, rel)
    return full, rel


def _find_note(rt: Runtime, user_path: str) -> tuple[Path, str]:
    full, rel = safe_path(rt.vault, user_path)
    if full.is_file():
        if not is_note_name(rel.rsplit("/", 1)[-1]):
            raise NoteNotFound(f"'{rel}' is not a note (only Markdown .md and canvas .canvas files can be read)")
        return full, rel
    hits = name_index(rt.index).lookup_all(rel)
    if len(hits) > 1:  # 'README.md' for 'Readme.md' and 'readme.md': which one is not ours to guess
        raise NoteNotFound(f"'{rel}' matches {len(hits)} notes that differ only in case or Unicode form: "
                           + ", ".join(repr(h.path) for h in sorted(hits, key=lambda h: h.path))
                           + "; pass one of them exactly")
    hit = hits[0] if hits else None
    if hit is not None:
        f2, r2 = safe_path(rt.vault, hit.path)
        if f2.is_file():
            return f2, r2
    if not rel.lower().endswith(".md"):
        f2, r2 = safe_path(rt.vault, rel + ".md")
        if f2.is_file():
            return f2, r2
    raise NoteNotFound(
        f"no note '{rel}' in the vault; use a path exactly as returned by search (e.g. 'Folder/Note.md')"
    )


def _read_note(rt: Runtime, user_path: str) -> _Note:
    full, rel = _lookup_note(rt, user_path)
    size = full.stat().st_size
    cap = rt.config.index.max_file_bytes
    if size > cap:
        raise InvalidArgument(f"'{rel}' is {size:,} bytes, above max_file_bytes ({cap:,}); not served", param="path")
    data = full.read_bytes()
    text = data.decode("utf-8", errors="replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # a final newline does not start another line
    lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    return _Note(rel, full, data, text, lines, rt.config.index.chunk_tokens)


def _check_line(name: str, v: Any) -> int | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, int):
        raise InvalidArgument(f"'{name}' must be an integer line number, got {v!r}", param=name)
    if v < 1:
        raise InvalidArgument(f"'{name}' must be at least 1 (lines are 1-based), got {v}", param=name)
    return v


class LinkResolver:
    """Resolves many links of one note: notes first, then attachments (the
    vault's other files, listed once, on first need). A note the ignore rules
    leave out (still in an index built before them) resolves to nothing."""

    def __init__(self, rt: Runtime, rules: IgnoreRules) -> None:
        self.vault = rt.vault
        self.names = name_index(rt.index)
        self.rules = rules
        self._files: list[str] | None = None
        self._disk: NameIndex | None = None

    def note(self, target: str, from_path: str | None) -> NoteName | None:
        d = resolve_target(self.names, target, from_path)
        if d is None and target.strip():
            d = resolve_target(self._on_disk(), target, from_path)
        return None if d is None or self.rules.skips(d.path) else d

    def _on_disk(self) -> NameIndex:
        """The notes on disk the index lacks: a link to a note the watcher has
        not reached yet resolves, as in Obsidian (listed once, on a miss).
        Asked only after the indexed notes gave no candidate at all, so these
        alone give what all the notes together would: indexing every name
        again cost ~55 ms a call at 8k notes."""
        if self._disk is None:
            known = set(self.names.docs)
            self._disk = NameIndex.build(
                [NoteName(-1, p, PurePosixPath(p).stem, ()) for p in note_paths(self.vault) if p not in known])
        return self._disk

    def __call__(self, target: str, from_path: str | None) -> str | None:
        return self.resolve(target, from_path)[0]

    def resolve(self, target: str, from_path: str | None) -> tuple[str | None, bool]:
        """(the note or file ``target`` names, or None; whether it is an
        attachment: a file that is not a note, found or named by its type)."""
        d = self.note(target, from_path)
        if d is not None:
            return d.path, False
        if not target.strip() or not PurePosixPath(target).suffix:
            return None, False
        if self._files is None:
            self._files = other_files(self.vault)
        found = match_file(self._files, target)
        return found, found is not None or names_attachment(target)


def _link_json(resolve: LinkResolver, link: WikiLink, from_path: str) -> Link:
    path, attachment = resolve.resolve(link.target, from_path)
    return {
        "target": link.target,
        "path": path,
        "heading": link.heading,
        "block": link.block,
        "alias": link.alias,
        "embed": link.embed,
        "line": link.line,
        "attachment": attachment,
    }


def suggestions(rt: Runtime, wanted: str, n: int = MAX_SUGGESTIONS) -> list[str]:
    """Indexed note paths close to ``wanted`` (``vault/suggest.close_paths``:
    the name spelled alike, the same folder first); the did-you-mean of
    get_document and of the CLI."""
    near = close_paths(wanted, ((d.path, d.aliases) for d in note_names(rt.index)), n * 2)
    rules = read_rules(rt.vault)  # an index older than the rules must not point at what they leave out
    return [p for p in near if not rules.skips(p)][:n]


def get_document(
    rt: Runtime,
    path: str,
    line_start: int | None = None,
    line_end: int | None = None,
    heading: str | None = None,
    max_chars: int | None = None,
) -> Document:
    """A note's text (whole, a line range, or one heading's section), its
    frontmatter and outgoing links. Over ``max_chars`` (default
    ``MAX_DOCUMENT_CHARS``) the text is cut at a line boundary and ends with a
    marker telling how to ask for the rest. A path that names no note says
    which notes it may have meant.

    Returns ``{path, title, content, frontmatter, links, line_range, truncated}``.
    """
    if max_chars is None:
        max_chars = MAX_DOCUMENT_CHARS
    elif isinstance(max_chars, bool) or not isinstance(max_chars, int):
        raise InvalidArgument(f"'max_chars' must be an integer, got {max_chars!r}", param="max_chars")
    elif max_chars < MIN_DOCUMENT_CHARS:
        raise InvalidArgument(f"'max_chars' must be at least {MIN_DOCUMENT_CHARS}, got {max_chars}",
                              param="max_chars")
    try:
        return _document(rt, path, line_start, line_end, heading, max_chars)
    except NoteNotFound as e:
        near = suggestions(rt, path) if isinstance(path, str) else []
        if not near:
            raise
        raise NoteNotFound(f"{e}. Did you mean: {', '.join(repr(p) for p in near)}?") from e


def _document(rt: Runtime, path: str, line_start: int | None, line_end: int | None, heading: str | None,
              max_chars: int) -> Document:
    line_start = _check_line("line_start", line_start)
    line_end = _check_line("line_end", line_end)
    if heading is not None and not isinstance(heading, str):
        raise InvalidArgument(f"'heading' must be a string, got {type(heading).__name__}", param="heading")
    if heading and (line_start or line_end):
        raise InvalidArgument("pass either 'heading' or 'line_start'/'line_end', not both", param="heading")
    note = _read_note(rt, path)
    if is_canvas(note.path):
        return _canvas_document(rt, note, line_start, line_end, heading, max_chars)
    total = len(note.lines)
    if heading:
        sec = find_section(sections(note.lines), heading.lstrip("#").strip())
        if sec is None:
            known = [repr(s.heading) for s in sections(note.lines)]
            # Whole names only, within what an error may say: clipped, a name came back cut in two.
            shown = [h for k, h in enumerate(known) if sum(map(len, known[:k + 1])) + 2 * k <= 300]
            more = f", and {len(known) - len(shown)} more" if len(shown) < len(known) else ""
            raise InvalidArgument(
                f"no heading {heading!r} in '{note.path}'; its headings are: "
                + (", ".join(shown) + more if known else "(none)"),
                param="heading",
            )
        a, b = sec.line_start, sec.line_end
    else:
        a = line_start or 1
        b = min(line_end or total, total)
        if total == 0:
            a, b = 1, 0
        elif a > total:
            raise InvalidArgument(f"'line_start' {a} is past the end of '{note.path}' ({total} lines)",
                                  param="line_start")
        if b < a and total:
            raise InvalidArgument(f"'line_end' ({line_end}) is before 'line_start' ({a})", param="line_end")
    picked = note.lines[a - 1:b]
    out: list[str] = []
    used = 0
    truncated = False
    cut_line = False
    for ln in picked:
        if used + len(ln) + 1 > max_chars:
            truncated = True
            if not out:  # one enormous line: give its start rather than nothing
                out.append(ln[:max_chars])
                cut_line = True
            break
        out.append(ln)
        used += len(ln) + 1
    last = a + len(out) - 1
    content = "\n".join(out)
    if truncated:
        more = f"line {a} alone is longer than {max_chars} characters and was cut" if cut_line else (
            f"showing lines {a}-{last} of {total}")
        content += (
            f"\n\n[truncated: {more}. Ask for the rest with line_start={last + 1} "
            "(and line_end), or read one section with heading]"
        )
    resolve = LinkResolver(rt, read_rules(rt.vault))
    links = [_link_json(resolve, ln, note.path) for ln in note.parsed.links[:MAX_OUTGOING]]
    return {
        "path": note.path,
        "title": note.parsed.title,
        "content": content,
        "frontmatter": note.parsed.frontmatter,
        "links": links,
        "line_range": _pair(a, max(last, a - 1) if total else 0),
        "truncated": truncated,
    }


def _canvas_document(rt: Runtime, note: _Note, line_start: int | None, line_end: int | None,
                     heading: str | None, max_chars: int) -> Document:
    """get_document of a canvas: its cards' text (``vault/canvas.py``, ADR 0195)."""
    try:
        canvas = read_canvas(note.data)
    except BadCanvas as e:
        raise InvalidArgument(f"'{note.path}' cannot be read as a canvas: {e}", param="path") from None
    content, line_range, truncated = reading_text(canvas, note.path, len(note.lines), line_start, line_end,
                                                  heading, max_chars)
    resolve = LinkResolver(rt, read_rules(rt.vault))
    links = [_link_json(resolve, ln, note.path) for ln in note.parsed.links[:MAX_OUTGOING]]
    return {"path": note.path, "title": note.parsed.title, "content": content, "frontmatter": {},
            "links": links, "line_range": _pair(*line_range), "truncated": truncated}


def read_note(rt: Runtime, path: str) -> NoteText:
    """A note's whole text as stored (MCP's note resource): ``{path, text}``."""
    note = _read_note(rt, path)
    return {"path": note.path, "text": note.text}


# ----------------------------------------------------------------------------- links


def resolve_link(rt: Runtime, link: str, from_path: str | None = None) -> ResolvedLink:
    """Where a wikilink points: ``{path | null, heading, block, line_range | null, exists,
    anchor_found}`` (and ``warning`` when the anchor is missing).

    ``from_path`` (the note the link is in) decides ambiguous names (notes
    under its folder first; ``vault/links.py``) and relative links. ``line_range`` is the heading's section,
    the block's line(s), or the whole note. ``anchor_found`` is false when the
    note exists but the heading or block the link names does not, null when it names none.
    """
    r = _resolve(rt, link, from_path)
    anchored = bool(r.get("heading") or r.get("block"))
    r["anchor_found"] = (r["line_range"] is not None) if (anchored and r["exists"]) else None
    if r["anchor_found"] is False:
        what = f"heading {r['heading']!r}" if r.get("heading") else f"block ^{r['block']}"
        r["warning"] = f"'{r['path']}' exists but has no {what}; read the whole note with get_document"
    return r


def _resolve(rt: Runtime, link: str, from_path: str | None) -> ResolvedLink:
    parsed = parse_link_arg(link)
    src: str | None = None
    if from_path:
        _, src = safe_path(rt.vault, from_path, param="from_path")
    names = name_index(rt.index)
    if src is not None and src not in names.docs and not src.lower().endswith(".md"):
        src = src + ".md" if src + ".md" in names.docs else src
    heading = parsed.heading
    block = parsed.block
    resolve = LinkResolver(rt, read_rules(rt.vault))
    doc = resolve.note(parsed.target, src)
    result: ResolvedLink = {"path": None, "heading": heading, "block": block, "line_range": None, "exists": False}
    if doc is None:
        if parsed.target and not heading and not block:
            att = resolve(parsed.target, src)
            if att:
                result["path"], result["exists"] = att, True
        return result
    try:
        note = _read_note(rt, doc.path)
    except NoteNotFound:
        return result  # indexed but gone from disk
    result["path"], result["exists"] = note.path, True
    if block:
        rng = find_block(note.lines, block)
        result["line_range"] = _pair(*rng) if rng else None
    elif heading:
        sec = find_section(sections(note.lines), heading)
        result["line_range"] = _pair(sec.line_start, sec.line_end) if sec else None
    else:
        result["line_range"] = _pair(1, len(note.lines)) if note.lines else None
    return result


def _pair(a: int, b: int) -> tuple[int, int]:
    """A line range as replies carry it: a JSON array of two, built as a list
    (note_types.py), since the schema validator takes a list, not a tuple;
    the wire type stays the 2-tuple, which the schema describes exactly."""
    return cast(tuple[int, int], [a, b])
