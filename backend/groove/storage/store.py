"""Writes to the index: one note at a time, each inside one transaction."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..engines.lexical import shortcjk
from ..types import ParsedNote
from ..vault.properties import note_date, property_values
from ..vault.recheck import file_moved_on
from ..vault.scan import NoteFile
from . import migrations
from .migrations import PROPERTY_COLUMNS

if TYPE_CHECKING:
    from ..models.base import Embedder
    from .db import Index


@dataclass(frozen=True)
class DocRow:
    id: int
    path: str
    size: int
    mtime_ns: int
    content_hash: str


@dataclass(frozen=True)
class FileStamp:
    """The file a note's rows were written from: its stat and its bytes' hash."""

    size: int
    mtime_ns: int
    content_hash: str


@dataclass(frozen=True)
class SkipRow:
    path: str
    reason: str
    size: int | None  # the file's stat when skipped, if known
    mtime_ns: int | None
    sticky: bool  # the reason is the content's: not retried while stat and groove version stay
    groove_version: str


def skipped_notes(idx: Index) -> dict[str, SkipRow]:
    rows = idx.conn.execute(
        "SELECT path, reason, size, mtime_ns, sticky, groove_version FROM skipped ORDER BY path")
    return {r[0]: SkipRow(r[0], r[1], r[2], r[3], bool(r[4]), r[5] or "") for r in rows}


def record_skipped(idx: Index, rows: list[SkipRow], *, scope: set[str] | None) -> None:
    """Replace the skipped-notes record: all of it (``scope`` None, a full
    run), or what concerns the paths in ``scope`` (a partial run)."""
    now = time.time()
    with idx.atomic() as c:
        if scope is None:
            c.execute("DELETE FROM skipped")
        else:
            c.executemany("DELETE FROM skipped WHERE path = ?", [(p,) for p in scope])
        c.executemany(
            "INSERT OR REPLACE INTO skipped(path, reason, size, mtime_ns, sticky, groove_version, at) "
            "VALUES (?,?,?,?,?,?,?)",
            [(r.path, r.reason, r.size, r.mtime_ns, int(r.sticky), r.groove_version, now) for r in rows],
        )


def all_docs(idx: Index) -> dict[str, DocRow]:
    rows = idx.conn.execute("SELECT id, path, size, mtime_ns, content_hash FROM documents")
    return {r[1]: DocRow(*r) for r in rows}


def fts_context(note: ParsedNote, context: str) -> str:
    """What the FTS ``context`` column holds for a chunk of ``note``."""
    return context


# Bumped whenever the passage text below changes: an index embedded under
# another recipe is refused with a --rebuild hint (storage/db.py).
# 2: adds the note-summary vectors (vec_notes, ADR-0076)
# 3: a note vector is the mean of its summary's passage and query views (ADR-0077)
# 4: a note vector is its summary's passage view alone again (ADR-0128)
# 5: the mean of the summary's query view and the note's first chunk vector (ADR-0142)
EMBED_RECIPE = 5
# Recipes whose chunk vectors are this recipe's: only the note vectors differ,
# so such an index is upgraded in place (note_vector_upgrade.upgrade_note_vectors).
NOTE_VECTOR_ONLY_RECIPES = frozenset({2, 3, 4})


def embed_text(context: str, content: str) -> str:
    """The text the embedder (and the reranker) sees for a chunk: the
    contextual prefix, then the section as written. A folder prefix plus
    markup-free "reader text" was measured and rejected (ADR-0070)."""
    return f"{context}\n{content}"


def note_text(note: ParsedNote) -> str:
    """What the note-level vector embeds: the note's own summary of itself —
    title, aliases, description, its section headings, the opening text."""
    heads = list(dict.fromkeys(ch.heading_path[-1] for ch in note.chunks if ch.heading_path))[:12]
    intro = note.chunks[0].content[:600] if note.chunks else ""
    parts = [note.title, *note.aliases, note.description, " / ".join(heads), intro]
    return "\n".join(p for p in parts if p)


def note_vectors(embedder: Embedder, texts: list[str], first_chunks: np.ndarray) -> np.ndarray:
    """The note leg's vectors: the normalised mean of each summary
    (``note_text``) embedded as a query and the note's first chunk vector
    (``first_chunks``, one row per summary, already embedded).

    A summary is short and topical like a question, so e5's query view puts
    it near questions about the note (ADR-0077); its passage side, which the
    query view alone lacks, is mostly the note's opening — what the first
    chunk already holds. So one embedding per note buys what two did: on the
    questions that did not guide the choice it ranks as the two-view mean
    (14 better, 14 worse of 176) at half its cost, and above the passage
    view alone (17 better, 11 worse; ADR-0142). A model without distinct
    prefixes embeds its one view."""
    if not len(texts):
        return np.zeros((0, embedder.dim), dtype=np.float32)
    m = embedder.embed_queries(texts) + np.asarray(first_chunks, dtype=np.float32)
    return m / np.maximum(np.linalg.norm(m, axis=1, keepdims=True), 1e-12)


def first_chunk_vector(idx: Index, doc_id: int) -> np.ndarray | None:
    """The stored vector of a note's first chunk (None without one)."""
    row = idx.conn.execute(
        "SELECT v.embedding FROM chunks c JOIN vec_chunks v ON v.rowid = c.id WHERE c.doc_id = ? "
        "ORDER BY c.ordinal LIMIT 1", (doc_id,)).fetchone()
    return np.frombuffer(row[0], dtype=np.float32).copy() if row else None


def _delete_doc_rows(c, doc_id: int) -> None:
    ids = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]
    for cid in ids:
        c.execute("DELETE FROM fts_chunks WHERE rowid = ?", (cid,))
        shortcjk.delete(c, cid)
    if _has_vec(c):
        c.executemany("DELETE FROM vec_chunks WHERE rowid = ?", [(i,) for i in ids])
        c.execute("DELETE FROM vec_notes WHERE rowid = ?", (doc_id,))
    c.execute("DELETE FROM chunks WHERE doc_id = ?", (doc_id,))
    c.execute("DELETE FROM links WHERE doc_id = ?", (doc_id,))
    c.execute("DELETE FROM tags WHERE doc_id = ?", (doc_id,))
    c.execute("DELETE FROM note_properties WHERE doc_id = ?", (doc_id,))
    c.execute("DELETE FROM note_lines WHERE doc_id = ?", (doc_id,))


def _insert_properties(c, doc_id: int, note: ParsedNote) -> None:
    c.executemany(f"INSERT INTO note_properties({PROPERTY_COLUMNS}) VALUES (?,?,?,?,?)",
                  [(doc_id, *v) for v in property_values(note.frontmatter)])


def _has_vec(c) -> bool:
    return bool(c.execute("SELECT 1 FROM sqlite_master WHERE name = 'vec_chunks'").fetchone())


def upsert_if_unchanged(idx: Index, note: ParsedNote, nf: NoteFile, content_hash: str, **rows: Any) -> bool:
    """``upsert_note`` unless the file moved on since it was read (``nf`` is
    the stat of the bytes read): asked inside the write transaction, so an
    older text never lands over the newer one another writer (a daemon)
    stored meanwhile. False when nothing was written."""
    with idx.atomic():
        if file_moved_on(nf, content_hash):
            return False
        upsert_note(idx, note, FileStamp(nf.size, nf.mtime_ns, content_hash), **rows)
    return True


def upsert_note(
    idx: Index,
    note: ParsedNote,
    stamp: FileStamp,
    *,
    vectors: np.ndarray | Sequence[np.ndarray | None] | None,
    note_vector: np.ndarray | None = None,
    lines: dict[int, bool] | None = None,
) -> int:
    """Replace everything stored for ``note.path`` in one transaction.
    ``vectors``: one per chunk, None for a chunk that is not embedded (all
    template boilerplate); ``lines``: the note's line census rows (line key
    -> left out of its vectors, index/boilerplate.py)."""
    with idx.atomic() as c:
        row = c.execute("SELECT id FROM documents WHERE path = ?", (note.path,)).fetchone()
        values = (
            note.title,
            json.dumps(note.aliases, ensure_ascii=False),
            json.dumps(note.tags, ensure_ascii=False),
            note.description,
            note.date,
            json.dumps(note.frontmatter, ensure_ascii=False, default=str),
            stamp.size,
            stamp.mtime_ns,
            stamp.content_hash,
            time.time(),
        )
        if row:
            doc_id = row[0]
            _delete_doc_rows(c, doc_id)
            c.execute(
                "UPDATE documents SET title=?, aliases=?, tags=?, description=?, date=?, "
                "frontmatter=?, size=?, mtime_ns=?, content_hash=?, indexed_at=? WHERE id=?",
                values + (doc_id,),
            )
        else:
            c.execute(
                "INSERT INTO documents(path, title, aliases, tags, description, date, frontmatter, "
                "size, mtime_ns, content_hash, indexed_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (note.path,) + values,
            )
            doc_id = c.last_insert_rowid()
        _insert_chunks(c, doc_id, note, vectors)
        if note_vector is not None:
            c.execute(
                "INSERT INTO vec_notes(rowid, embedding) VALUES (?, ?)",
                (doc_id, np.ascontiguousarray(note_vector, dtype=np.float32).tobytes()),
            )
        c.executemany(
            "INSERT INTO tags(doc_id, tag) VALUES (?, ?)", [(doc_id, t) for t in note.tags]
        )
        _insert_properties(c, doc_id, note)
        if lines is not None:
            c.executemany("INSERT INTO note_lines(doc_id, h, suppressed) VALUES (?, ?, ?)",
                          [(doc_id, k, int(v)) for k, v in lines.items()])
        c.executemany(
            "INSERT INTO links(doc_id, target, heading, block, alias, embed, line) VALUES (?,?,?,?,?,?,?)",
            [(doc_id, ln.target, ln.heading, ln.block, ln.alias, int(ln.embed), ln.line) for ln in note.links],
        )
        return doc_id


def _insert_chunks(c, doc_id: int, note: ParsedNote,
                   vectors: np.ndarray | Sequence[np.ndarray | None] | None) -> None:
    if vectors is not None and len(vectors) != len(note.chunks):
        raise ValueError("one vector per chunk expected")
    for i, ch in enumerate(note.chunks):
        c.execute(
            "INSERT INTO chunks(doc_id, ordinal, level, heading, heading_path, context, content, "
            "byte_start, byte_end, line_start, line_end, token_count) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                doc_id, ch.ordinal, ch.level, ch.heading,
                json.dumps(ch.heading_path, ensure_ascii=False), ch.context, ch.content,
                ch.byte_start, ch.byte_end, ch.line_start, ch.line_end, ch.token_count,
            ),
        )
        cid = c.last_insert_rowid()
        ctx = fts_context(note, ch.context)
        c.execute(
            "INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?, ?, ?, ?)",
            (cid, ch.heading, ctx, ch.content),
        )
        shortcjk.upsert(c, cid, ch.heading, ctx, ch.content)
        if vectors is not None and vectors[i] is not None:
            c.execute(
                "INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)",
                (cid, np.ascontiguousarray(vectors[i], dtype=np.float32).tobytes()),
            )


def move_note(
    idx: Index, old_path: str, note: ParsedNote, *, size: int, mtime_ns: int, content_hash: str
) -> bool:
    """A rename/move with unchanged bytes: keep the vectors, refresh the text
    rows (the title, hence the context prefix, comes from the file name).

    Accepted roughness: the kept vectors were embedded with the old title in
    their prefix. Returns False when the chunking differs (caller re-embeds)."""
    with idx.atomic() as c:
        row = c.execute("SELECT id FROM documents WHERE path = ?", (old_path,)).fetchone()
        if not row:
            return False
        doc_id = row[0]
        old = list(
            c.execute(
                "SELECT id FROM chunks WHERE doc_id = ? ORDER BY ordinal", (doc_id,)
            )
        )
        if len(old) != len(note.chunks):
            return False
        c.execute("DELETE FROM documents WHERE path = ? AND id != ?", (note.path, doc_id))
        c.execute(
            "UPDATE documents SET path=?, title=?, aliases=?, tags=?, description=?, date=?, "
            "frontmatter=?, size=?, mtime_ns=?, content_hash=?, indexed_at=? WHERE id=?",
            (
                note.path, note.title, json.dumps(note.aliases, ensure_ascii=False),
                json.dumps(note.tags, ensure_ascii=False), note.description, note.date,
                json.dumps(note.frontmatter, ensure_ascii=False, default=str),
                size, mtime_ns, content_hash, time.time(), doc_id,
            ),
        )
        c.execute("DELETE FROM note_properties WHERE doc_id = ?", (doc_id,))
        _insert_properties(c, doc_id, note)
        for (cid,), ch in zip(old, note.chunks):
            ctx = fts_context(note, ch.context)
            c.execute("UPDATE chunks SET context = ? WHERE id = ?", (ch.context, cid))
            c.execute("DELETE FROM fts_chunks WHERE rowid = ?", (cid,))
            c.execute(
                "INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?, ?, ?, ?)",
                (cid, ch.heading, ctx, ch.content),
            )
            shortcjk.delete(c, cid)
            shortcjk.upsert(c, cid, ch.heading, ctx, ch.content)
        return True


def touch_doc(idx: Index, path: str, size: int, mtime_ns: int) -> None:
    """Same bytes, new mtime (e.g. `touch`, a git checkout): remember the stat."""
    with idx.atomic() as c:
        c.execute("UPDATE documents SET size=?, mtime_ns=? WHERE path=?", (size, mtime_ns, path))


def delete_doc(idx: Index, path: str) -> bool:
    with idx.atomic() as c:
        row = c.execute("SELECT id FROM documents WHERE path = ?", (path,)).fetchone()
        if not row:
            return False
        _delete_doc_rows(c, row[0])
        c.execute("DELETE FROM documents WHERE id = ?", (row[0],))
        return True


def redate(idx: Index, daily_day: Callable[[str], str | None]) -> int:
    """Give every note the date the indexer would give it now: its daily-note
    day (``daily_day(path)``), else its frontmatter ``date``/``created``
    (ADR 0191). For a change of the daily-notes settings: nothing is
    re-read or re-embedded. Returns how many notes changed date."""
    changed = []
    for doc_id, path, raw, old in idx.conn.execute("SELECT id, path, frontmatter, date FROM documents"):
        try:
            meta = json.loads(raw or "{}")
        except ValueError:
            meta = {}
        new = daily_day(path) or (note_date(meta) if isinstance(meta, dict) else None)
        if new != old:
            changed.append((new, doc_id))
    if changed:
        with idx.atomic() as c:
            c.executemany("UPDATE documents SET date = ? WHERE id = ?", changed)
    return len(changed)


def clear_all(idx: Index) -> None:
    """For --rebuild: drop every row and the vector table (its dim may change)."""
    with idx.atomic() as c:
        c.execute("DELETE FROM chunks")
        c.execute("DELETE FROM documents")
        c.execute("DELETE FROM links")
        c.execute("DELETE FROM tags")
        c.execute("DELETE FROM note_properties")
        c.execute("DELETE FROM skipped")
        c.execute("DELETE FROM note_lines")
        c.execute("DELETE FROM fts_chunks")
        c.execute(f"INSERT INTO {shortcjk.TABLE}({shortcjk.TABLE}) VALUES ('delete-all')")
        migrations.drop_vec_tables(c)
        c.execute("DELETE FROM meta WHERE key IN ('embedder', 'chunk_tokens')")
