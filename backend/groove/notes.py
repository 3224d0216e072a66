"""Reading notes, related notes and wikilink resolution — shared by MCP and the
socket daemon, so both answer with the same shapes (docs/protocol.md).

Every path a client passes goes through :func:`safe_path` first (ADR 0050).
Link resolution follows Obsidian's rules (ADR 0051). Note text, headings and
block ids are read from the file on disk (the truth the user edits); the index
supplies the list of notes, their aliases, vectors and the links graph.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import threading
import unicodedata
import weakref
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote

import numpy as np

from .errors import InvalidArgument, NoteNotFound, PathOutsideVault
from .index.db import Index
from .runtime import Runtime
from .types import Link, ParsedNote
from .vault.markdown import parse_links, parse_note
from .vault.scan import SKIP_DIRS

# A whole note above this many characters is cut at a line boundary; the
# caller is told which lines it got and how to ask for the rest.
MAX_DOCUMENT_CHARS = 40_000
MAX_RELATED = 50
MAX_OUTGOING = 500

_DRIVE = re.compile(r"^[A-Za-z]:")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
NOTE_URI_PREFIX = "groove://note/"


# ----------------------------------------------------------------------------- paths


def _escape_reason(p: str) -> str | None:
    """Why ``p`` (one spelling of the user's path) could leave the vault, or None."""
    if "\x00" in p:
        return "contains a NUL byte"
    if p.startswith(("\\\\", "//")):
        return "is a UNC / network path"
    if _DRIVE.match(p):
        return "is an absolute Windows path (drive letter)"
    if _SCHEME.match(p):
        return "is a URL, not a vault-relative path"
    if p.startswith(("/", "\\")):
        return "is an absolute path"
    if p == "~" or p.startswith(("~/", "~\\")):
        return "starts with '~' (home folder), not a vault-relative path"
    if ".." in re.split(r"[\\/]", p):
        return "contains '..'"
    return None


def safe_path(vault: Path, user_path: str, *, param: str = "path") -> tuple[Path, str]:
    """Resolve a client-supplied, vault-relative path; refuse anything that
    could name a file outside ``vault``.

    Returns (absolute path inside the vault, vault-relative '/'-separated path).
    The relative path is the lexical one (a symlinked note inside the vault
    keeps the name the index knows it by); the check is on the fully resolved
    path, so a symlink pointing outside is refused.
    """
    if not isinstance(user_path, str):
        raise InvalidArgument(f"'{param}' must be a string, got {type(user_path).__name__}", param=param)
    raw = user_path.strip()
    if raw.startswith(NOTE_URI_PREFIX):
        raw = unquote(raw[len(NOTE_URI_PREFIX):])
    if not raw:
        raise InvalidArgument(f"'{param}' is empty; pass a vault-relative note path such as 'Folder/Note.md'",
                              param=param)
    # Check the path as given and as it would read after one or two rounds of
    # URL-decoding: a layer that decodes later must not turn it into an escape.
    spelling = raw
    for _ in range(3):
        why = _escape_reason(spelling)
        if why:
            raise PathOutsideVault(f"path {user_path!r} {why}; paths must stay inside the vault")
        decoded = unquote(spelling)
        if decoded == spelling:
            break
        spelling = decoded
    if any(unicodedata.category(c) == "Cc" for c in raw):
        raise PathOutsideVault(f"path {user_path!r} contains control characters")
    rel = posixpath.normpath(raw.replace("\\", "/"))
    if rel in (".", "") or rel.startswith("../"):
        raise PathOutsideVault(f"path {user_path!r} does not name a note inside the vault")
    root = Path(vault).resolve()
    full = root / rel
    try:
        full.resolve().relative_to(root)
    except (ValueError, OSError, RuntimeError):  # RuntimeError: symlink loop
        raise PathOutsideVault(
            f"path {user_path!r} resolves outside the vault (a symlink pointing elsewhere?)"
        ) from None
    return full, rel


def _is_hidden(rel: str) -> bool:
    return any(part.startswith(".") or part in SKIP_DIRS for part in rel.split("/")[:-1])


# ----------------------------------------------------------------------------- names


@dataclass(frozen=True)
class _Doc:
    id: int
    path: str
    title: str
    aliases: tuple[str, ...]

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.path)


def _fold(s: str) -> str:
    return unicodedata.normalize("NFC", s).casefold()


def _strip_md(p: str) -> str:
    return p[:-3] if p.lower().endswith(".md") else p


@dataclass
class _Names:
    """Every indexed note by lower-cased path, basename and alias."""

    docs: dict[str, _Doc] = field(default_factory=dict)  # exact path -> doc
    by_path: dict[str, list[_Doc]] = field(default_factory=dict)  # folded path without .md
    by_stem: dict[str, list[_Doc]] = field(default_factory=dict)
    by_alias: dict[str, list[_Doc]] = field(default_factory=dict)


_names_cache: "weakref.WeakKeyDictionary[Index, tuple[tuple, _Names]]" = weakref.WeakKeyDictionary()
_names_lock = threading.Lock()


def _names(idx: Index) -> _Names:
    # Rebuilt only when the documents table changed (count, ids or index time).
    sig = tuple(idx.conn.execute("SELECT count(*), sum(id), max(indexed_at) FROM documents").fetchone())
    with _names_lock:
        hit = _names_cache.get(idx)
        if hit and hit[0] == sig:
            return hit[1]
    n = _Names()
    for did, path, title, aliases in idx.conn.execute("SELECT id, path, title, aliases FROM documents"):
        try:
            al = tuple(str(a) for a in json.loads(aliases or "[]"))
        except ValueError:
            al = ()
        d = _Doc(did, path, title, al)
        n.docs[path] = d
        n.by_path.setdefault(_fold(_strip_md(path)), []).append(d)
        n.by_stem.setdefault(_fold(_strip_md(posixpath.basename(path))), []).append(d)
        for a in al:
            n.by_alias.setdefault(_fold(a), []).append(d)
    with _names_lock:
        _names_cache[idx] = (sig, n)
    return n


def _pick(cands: list[_Doc], from_folder: str | None) -> _Doc:
    """Ambiguous name: the note in the linking note's folder, else the
    shortest path (fewest folders, then fewest characters), then alphabetical."""
    return min(
        cands,
        key=lambda d: (
            0 if from_folder is not None and d.folder == from_folder else 1,
            d.path.count("/"),
            len(d.path),
            d.path,
        ),
    )


def _resolve_target(names: _Names, target: str, from_path: str | None) -> _Doc | None:
    t = target.strip().replace("\\", "/")
    if not t:
        return names.docs.get(from_path) if from_path else None
    from_folder = posixpath.dirname(from_path) if from_path is not None else None
    key = _fold(_strip_md(t.lstrip("/")))
    # 1. relative to the linking note's folder ("Note" next to it, "./x", "../x")
    if from_folder is not None or t.startswith(("./", "../")):
        joined = posixpath.normpath(posixpath.join(from_folder or "", _strip_md(t)))
        if not joined.startswith("../"):
            hit = names.by_path.get(_fold(joined))
            if hit:
                return hit[0]
        if t.startswith(("./", "../")):
            return None
    # 2. the full vault path
    hit = names.by_path.get(key)
    if hit:
        return _pick(hit, from_folder)
    # 3. basename, or a path suffix ("folder/Note" matches "a/folder/Note")
    if "/" in key:
        cands = [d for p, ds in names.by_path.items() if p.endswith("/" + key) for d in ds]
    else:
        cands = names.by_stem.get(key, [])
    if cands:
        return _pick(cands, from_folder)
    # 4. a frontmatter alias
    cands = names.by_alias.get(_fold(t), [])
    if cands:
        return _pick(cands, from_folder)
    return None


def _vault_files(vault: Path) -> list[str]:
    """Vault-relative paths of the files that are not notes (attachments)."""
    out: list[str] = []
    for dirpath, dirnames, filenames in os.walk(vault):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIP_DIRS)
        rel_dir = Path(dirpath).relative_to(vault).as_posix()
        for f in filenames:
            if not f.lower().endswith(".md"):
                out.append(f if rel_dir == "." else f"{rel_dir}/{f}")
    return out


def _match_file(files: list[str], target: str) -> str | None:
    key = _fold(target.strip().lstrip("/").replace("\\", "/"))
    if not key or ".." in key.split("/"):
        return None
    hits = [f for f in files if _fold(f) == key or _fold(f).endswith("/" + key)]
    return min(hits, key=lambda f: (f.count("/"), len(f), f)) if hits else None


# ----------------------------------------------------------------------------- sections


@dataclass(frozen=True)
class Section:
    level: int
    heading: str
    heading_path: tuple[str, ...]
    line_start: int
    line_end: int  # inclusive; includes sub-sections


_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")


def _body_start(lines: list[str]) -> int:
    """Index of the first line after a YAML frontmatter block (0 if none)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in ("---", "..."):
            return i + 1
    return 0


def sections(lines: list[str]) -> list[Section]:
    """Heading sections of a note (``lines`` without line endings): a section
    runs from its heading to just before the next heading of the same or a
    higher level, trailing blank lines dropped.

    Headings come from mistletoe, like the chunker's, but from the text itself:
    chunks may merge a heading-only section into the next one, so their ranges
    do not tell where a heading is.
    """
    import mistletoe
    import mistletoe.block_token as bt

    first = _body_start(lines)
    body = [ln + "\n" for ln in lines[first:]]
    heads: list[tuple[int, int, str]] = []  # (0-based line in the file, level, text)
    for tok in mistletoe.Document(body).children or []:
        ln = getattr(tok, "line_number", None)
        if ln is None or not isinstance(tok, (bt.Heading, bt.SetextHeading)):
            continue
        i = first + ln - 1
        m = _ATX.match(lines[i])
        if m:
            heads.append((i, len(m.group(1)), (m.group(2) or "").strip()))
        else:
            under = lines[i + 1].strip() if i + 1 < len(lines) else ""
            heads.append((i, 1 if under.startswith("=") else 2, lines[i].strip()))
    out: list[Section] = []
    stack: list[tuple[int, str]] = []
    for k, (i, level, text) in enumerate(heads):
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, text))
        end = len(lines)
        for j, lv, _ in heads[k + 1:]:
            if lv <= level:
                end = j
                break
        while end - 1 > i and not lines[end - 1].strip():
            end -= 1
        out.append(Section(level, text, tuple(h for _, h in stack), i + 1, end))
    return out


def _norm_heading(h: str) -> str:
    # Obsidian drops these characters from heading links; compare case-insensitively.
    h = re.sub(r"[\[\]#|^:%*_`]", " ", h)
    return " ".join(_fold(h).split())


def find_section(secs: list[Section], heading: str) -> Section | None:
    """``heading`` is one heading or a path "H1#H2" (the last one, under the others)."""
    parts = [_norm_heading(p) for p in heading.split("#") if p.strip()]
    if not parts:
        return None
    *parents, last = parts
    for s in secs:
        if _norm_heading(s.heading) != last:
            continue
        above = [_norm_heading(h) for h in s.heading_path[:-1]]
        it = iter(above)
        if all(any(p == a for a in it) for p in parents):  # parents in order
            return s
    return None


_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def find_block(lines: list[str], block: str) -> tuple[int, int] | None:
    """Line range of block ``^id`` (Obsidian's rules): a list item or a
    paragraph whose last line ends with `` ^id``; or, when the id stands alone
    on its line, the structured block (quote, callout, list, table) above it,
    blank lines in between skipped. Ids inside fenced code do not count."""
    bid = block.lstrip("^").strip()
    if not bid:
        return None
    pat = re.compile(r"(?:^|\s)\^" + re.escape(bid) + r"\s*$")
    fence: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE_LINE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        if not pat.search(line):
            continue
        n = i + 1
        if line.strip() != "^" + bid:
            if _LIST_ITEM.match(line):
                return n, n
            j = i  # back to the start of the paragraph
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].lstrip().startswith("#") \
                    and not _LIST_ITEM.match(lines[j - 1]):
                j -= 1
            return j + 1, n
        end = i
        while end > 0 and not lines[end - 1].strip():
            end -= 1
        if end == 0:
            return n, n
        j = end - 1
        while j > 0 and lines[j - 1].strip():
            j -= 1
        return j + 1, n
    return None


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
        return parse_note(self.path, self.data, chunk_tokens=self.chunk_tokens)


def _lookup_note(rt: Runtime, user_path: str) -> tuple[Path, str]:
    """The note file a client means: as given, with '.md' added, or matched
    case-insensitively against the index."""
    full, rel = safe_path(rt.vault, user_path)
    if _is_hidden(rel):
        raise NoteNotFound(f"'{rel}' is inside a hidden or ignored folder, not a note")
    if full.is_file():
        if not rel.lower().endswith(".md"):
            raise NoteNotFound(f"'{rel}' is not a Markdown note (only .md files can be read)")
        return full, rel
    names = _names(rt.index)
    for cand in (rel, rel + ".md"):
        hit = names.by_path.get(_fold(_strip_md(cand)))
        if hit:
            f2, r2 = safe_path(rt.vault, hit[0].path)
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


class _Resolver:
    """Resolves many links of one note: notes first, then attachments (the
    vault's other files, listed once, on first need)."""

    def __init__(self, rt: Runtime) -> None:
        self.vault = rt.vault
        self.names = _names(rt.index)
        self._files: list[str] | None = None

    def __call__(self, target: str, from_path: str | None) -> str | None:
        d = _resolve_target(self.names, target, from_path)
        if d is not None:
            return d.path
        if not target.strip() or not PurePosixPath(target).suffix:
            return None
        if self._files is None:
            self._files = _vault_files(self.vault)
        return _match_file(self._files, target)


def _link_json(resolve: _Resolver, link: Link, from_path: str) -> dict[str, Any]:
    return {
        "target": link.target,
        "path": resolve(link.target, from_path),
        "heading": link.heading,
        "block": link.block,
        "alias": link.alias,
        "embed": link.embed,
        "line": link.line,
    }


def get_document(
    rt: Runtime,
    path: str,
    line_start: int | None = None,
    line_end: int | None = None,
    heading: str | None = None,
    *,
    max_chars: int = MAX_DOCUMENT_CHARS,
) -> dict[str, Any]:
    """A note's text (whole, a line range, or one heading's section), its
    frontmatter and outgoing links. Over ``max_chars`` the text is cut at a
    line boundary and ends with a marker telling how to ask for the rest.

    Returns ``{path, title, content, frontmatter, links, line_range, truncated}``.
    """
    line_start = _check_line("line_start", line_start)
    line_end = _check_line("line_end", line_end)
    if heading is not None and not isinstance(heading, str):
        raise InvalidArgument(f"'heading' must be a string, got {type(heading).__name__}", param="heading")
    if heading and (line_start or line_end):
        raise InvalidArgument("pass either 'heading' or 'line_start'/'line_end', not both", param="heading")
    note = _read_note(rt, path)
    total = len(note.lines)
    if heading:
        sec = find_section(sections(note.lines), heading.lstrip("#").strip())
        if sec is None:
            known = [s.heading for s in sections(note.lines)][:30]
            raise InvalidArgument(
                f"no heading {heading!r} in '{note.path}'; its headings are: "
                + (", ".join(repr(h) for h in known) if known else "(none)"),
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
    resolve = _Resolver(rt)
    links = [_link_json(resolve, ln, note.path) for ln in note.parsed.links[:MAX_OUTGOING]]
    return {
        "path": note.path,
        "title": note.parsed.title,
        "content": content,
        "frontmatter": note.parsed.frontmatter,
        "links": links,
        "line_range": [a, max(last, a - 1) if total else 0],
        "truncated": truncated,
    }


def read_note_text(rt: Runtime, path: str) -> str:
    """The whole text of a note (for the MCP resource); same path checks."""
    return _read_note(rt, path).text


# ----------------------------------------------------------------------------- links


def _parse_link_arg(link: str) -> Link:
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


def resolve_link(rt: Runtime, link: str, from_path: str | None = None) -> dict[str, Any]:
    """Where a wikilink points: ``{path | null, heading, block, line_range | null, exists}``.

    ``from_path`` (the note the link is in) decides ambiguous names (same
    folder first) and relative links. ``line_range`` is the heading's section,
    the block's line(s), or the whole note.
    """
    parsed = _parse_link_arg(link)
    src: str | None = None
    if from_path:
        _, src = safe_path(rt.vault, from_path, param="from_path")
    names = _names(rt.index)
    if src is not None and src not in names.docs and not src.lower().endswith(".md"):
        src = src + ".md" if src + ".md" in names.docs else src
    heading = parsed.heading
    block = parsed.block
    doc = _resolve_target(names, parsed.target, src)
    result: dict[str, Any] = {"path": None, "heading": heading, "block": block, "line_range": None, "exists": False}
    if doc is None:
        if parsed.target and not heading and not block:
            att = _Resolver(rt)(parsed.target, src)
            if att:
                result.update(path=att, exists=True)
        return result
    try:
        note = _read_note(rt, doc.path)
    except NoteNotFound:
        return result  # indexed but gone from disk
    result.update(path=note.path, exists=True)
    if block:
        rng = find_block(note.lines, block)
        result["line_range"] = list(rng) if rng else None
    elif heading:
        sec = find_section(sections(note.lines), heading)
        result["line_range"] = [sec.line_start, sec.line_end] if sec else None
    else:
        result["line_range"] = [1, len(note.lines)] if note.lines else None
    return result


# ----------------------------------------------------------------------------- related


def _indexed_doc(rt: Runtime, path: str) -> _Doc:
    _, rel = safe_path(rt.vault, path)
    names = _names(rt.index)
    if rel in names.docs:
        return names.docs[rel]
    for cand in (rel, rel + ".md"):
        hit = names.by_path.get(_fold(_strip_md(cand)))
        if hit:
            return hit[0]
    raise NoteNotFound(f"'{rel}' is not an indexed note (check the path, or run reindex if it is new)")


def _similar(rt: Runtime, doc: _Doc, chunk_id: int | None, limit: int) -> list[dict[str, Any]]:
    idx = rt.index
    if not idx.has_vec_table():
        return []
    c = idx.conn
    own = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc.id,))]
    ids = [chunk_id] if chunk_id is not None else own
    if not ids:
        return []
    marks = ",".join(str(int(i)) for i in ids)
    vecs = [np.frombuffer(b, dtype=np.float32) for (b,) in c.execute(
        f"SELECT embedding FROM vec_chunks WHERE rowid IN ({marks})")]
    if not vecs:
        return []
    q = np.mean(np.stack(vecs), axis=0)
    q = (q / max(float(np.linalg.norm(q)), 1e-12)).astype(np.float32)
    total = c.execute("SELECT count(*) FROM chunks").fetchone()[0]
    k = min(int(total), max(100, limit * 10 + len(own)))
    if k <= 0:
        return []
    rows = c.execute(
        "SELECT v.rowid, v.distance, ch.doc_id FROM vec_chunks v JOIN chunks ch ON ch.id = v.rowid "
        "WHERE v.embedding MATCH ? AND k = ? ORDER BY v.distance",
        (q.tobytes(), k),
    )
    by_id = {d.id: d for d in _names(idx).docs.values()}
    out: list[dict[str, Any]] = []
    seen = {doc.id}
    for _, dist, did in rows:
        if did in seen or did not in by_id:
            continue
        seen.add(did)
        d = by_id[did]
        # Unit vectors: cosine = 1 - L2^2 / 2.
        out.append({"path": d.path, "title": d.title, "score": round(1.0 - float(dist) ** 2 / 2.0, 4)})
        if len(out) >= limit:
            break
    return out


def _backlinks(rt: Runtime, doc: _Doc) -> list[dict[str, Any]]:
    names = _names(rt.index)
    stem = _strip_md(posixpath.basename(doc.path)).lower()
    keys = {_strip_md(doc.path).lower(), doc.path.lower(), stem, stem + ".md"} | {a.lower() for a in doc.aliases}
    marks = ",".join("?" * len(keys))
    like = "%/" + stem.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = rt.index.conn.execute(
        "SELECT d.path, d.title, l.target, l.line FROM links l JOIN documents d ON d.id = l.doc_id "
        f"WHERE lower(l.target) IN ({marks}) OR lower(l.target) LIKE ? ESCAPE '\\' "
        "OR lower(l.target) LIKE ? ESCAPE '\\' ORDER BY d.path, l.line",
        (*keys, like, like + ".md"),
    )
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    for src, title, target, line in rows:
        if src == doc.path or (src, line) in seen:
            continue
        hit = _resolve_target(names, target, src)
        if hit is not None and hit.id == doc.id:
            seen.add((src, line))
            out.append({"path": src, "title": title, "line": line})
    return out


def related_notes(rt: Runtime, path: str, limit: int = 10, *, chunk_id: int | None = None) -> dict[str, Any]:
    """Notes near this one by embedding (the mean of its chunk vectors, or one
    chunk's vector), plus the notes linking here and the links going out.

    Returns ``{path, similar: [{path, title, score}], backlinks: [{path, title, line}],
    outgoing: [{target, path | null, heading, line}]}``.
    """
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise InvalidArgument(f"'limit' must be an integer, got {limit!r}", param="limit")
    if limit < 1:
        raise InvalidArgument(f"'limit' must be at least 1, got {limit}", param="limit")
    limit = min(limit, MAX_RELATED)
    if chunk_id is not None:
        row = rt.index.conn.execute(
            "SELECT d.path FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?", (int(chunk_id),)
        ).fetchone()
        if row is None:
            raise NoteNotFound(f"no chunk {chunk_id} in the index (chunk ids come from search results)")
        doc = _names(rt.index).docs[row[0]]
    else:
        doc = _indexed_doc(rt, path)
    resolve = _Resolver(rt)
    outgoing = [
        {"target": target, "path": resolve(target, doc.path), "heading": heading, "line": line}
        for target, heading, line in rt.index.conn.execute(
            "SELECT target, heading, line FROM links WHERE doc_id = ? ORDER BY line LIMIT ?", (doc.id, MAX_OUTGOING)
        )
    ]
    return {
        "path": doc.path,
        "similar": _similar(rt, doc, chunk_id, limit),
        "backlinks": _backlinks(rt, doc),
        "outgoing": outgoing,
    }


__all__ = [
    "MAX_DOCUMENT_CHARS",
    "safe_path",
    "get_document",
    "related_notes",
    "resolve_link",
    "read_note_text",
    "sections",
    "find_section",
    "find_block",
    "Section",
]
