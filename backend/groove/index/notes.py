"""Note-level reads: the names every note goes by, the links graph, and a
note's nearest neighbours by embedding. Used by the note operations
(``notes.py``) and the title legs (``pipeline/titles.py``)."""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Iterator

import numpy as np

from ..engines.allowed import Allowed
from ..engines.vectors import knn
from ..storage.db import Index
from ..storage.migrations import LINK_TARGET_TAIL, rows_version
from ..vault.links import NoteName
from ..wire.bounds import MAX_KNN_K


def documents_signature(idx: Index) -> tuple:
    """Changes whenever a note is added, removed or re-indexed: the key of
    the caches built from the documents table. ``meta.rows_version`` (bumped
    by triggers on every note and chunk change, schema m003) is one row;
    the aggregate over the table, kept for an index without it, read all
    8k notes of a 100k-chunk vault on every search (1.3 ms)."""
    version = rows_version(idx.conn)
    if version is not None:
        return ("rows_version", version)
    row = idx.conn.execute("SELECT count(*), sum(id), max(id), max(indexed_at) FROM documents").fetchone()
    return tuple(row or ())


def _aliases(raw: str | None) -> list[str]:
    try:
        return [str(a) for a in json.loads(raw or "[]")]
    except ValueError:
        return []


def note_names(idx: Index) -> list[NoteName]:
    """Every indexed note: id, path, title and frontmatter aliases."""
    return [NoteName(did, path, title, tuple(_aliases(aliases)))
            for did, path, title, aliases in idx.conn.execute("SELECT id, path, title, aliases FROM documents")]


class CarriedNames:
    """Every note's title, aliases and tags, NFKC- and case-folded, one a
    line: the names a note carries besides its text (ADR 0251). The title
    and aliases are ``note_names``', the ones the title and named-note rules
    read, so a word the named-note rule finds a note by is never one "the
    vault never mentions"."""

    def __init__(self, names: Iterable[str]) -> None:
        self.text = "\n".join(fold(n) for n in names if n)

    def holds(self, word: str) -> bool:
        """``word`` inside any name, as the trigram match finds a word inside a longer one."""
        w = fold(word)
        return bool(w) and w in self.text


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def carried_names(idx: Index) -> CarriedNames:
    """The vault's ``CarriedNames``, cached on the index until a note changes."""
    key = documents_signature(idx)
    cached = idx.derived.get("carried_names")
    if cached is not None and cached[0] == key:
        return cached[1]
    names = [n for d in note_names(idx) for n in (d.title, *d.aliases)]
    names += [t for (t,) in idx.conn.execute("SELECT DISTINCT tag FROM tags")]
    out = CarriedNames(names)
    idx.derived["carried_names"] = (key, out)
    return out


def chunk_note_path(idx: Index, chunk_id: int) -> str | None:
    row = idx.conn.execute(
        "SELECT d.path FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id = ?", (int(chunk_id),)
    ).fetchone()
    return row[0] if row else None


def outgoing_links(idx: Index, doc_id: int, limit: int) -> list[tuple[str, str | None, str | None, bool, int]]:
    """(target, heading, block, embed, line) of the note's wikilinks, in line order."""
    return [(t, h, b, bool(e), ln) for t, h, b, e, ln in idx.conn.execute(
        "SELECT target, heading, block, embed, line FROM links WHERE doc_id = ? ORDER BY line LIMIT ?", (doc_id, limit)
    )]


def links_naming(idx: Index, keys: set[str], stem: str) -> Iterator[tuple[str, str, str, int]]:
    """(source path, source title, target, line) of every link whose target,
    lower-cased, is one of ``keys`` or ends with '/<stem>' (with or without
    '.md'): the candidates for a note's backlinks, in path and line order.
    Both conditions are read from indexes (schema m004)."""
    marks = ",".join("?" * len(keys))
    tail = LINK_TARGET_TAIL.replace("target", "l.target")
    return iter(idx.conn.execute(
        "SELECT d.path, d.title, l.target, l.line FROM links l JOIN documents d ON d.id = l.doc_id "
        f"WHERE lower(l.target) IN ({marks}) OR ({tail} IN (?, ?) AND instr(l.target, '/') > 0) "
        "ORDER BY d.path, l.line",
        (*keys, stem, stem + ".md"),
    ))


def nearest_notes_to(idx: Index, doc_id: int, chunk_id: int | None, limit: int) -> Iterator[tuple[int, float]]:
    """(note id, cosine) of other notes, nearest first, each once: near the
    mean of the note's chunk vectors, or of one chunk's. Enough chunks are
    searched to find ``limit`` notes in all but pathological cases."""
    if not idx.has_vec_table():
        return
    c = idx.conn
    own = [r[0] for r in c.execute("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]
    ids = [chunk_id] if chunk_id is not None else own
    if not ids:
        return
    held = idx.vectors.vectors_of(c, "vec_chunks", ids, as_stored=True)
    if held is not None:
        vecs = list(held[np.any(held != 0, axis=1)])  # ids without a vector come back as zero rows
    else:
        marks = ",".join(str(int(i)) for i in ids)
        vecs = [np.frombuffer(b, dtype=np.float32) for (b,) in c.execute(
            f"SELECT embedding FROM vec_chunks WHERE rowid IN ({marks})")]
    if not vecs:
        return
    q = np.mean(np.stack(vecs), axis=0)
    q = (q / max(float(np.linalg.norm(q)), 1e-12)).astype(np.float32)
    (total,) = c.execute("SELECT count(*) FROM chunks").fetchone() or (0,)
    k = min(int(total), max(100, limit * 10 + len(own)), MAX_KNN_K)  # a note of thousands of chunks
    if k <= 0:
        return
    # The vector engine: a big vault's in-memory copy (ADR 0121) when
    # current (sqlite-vec's scan of 100k chunks took ~75 ms of a ~90 ms
    # call), else sqlite-vec's KNN.
    near = knn.nearest(c, idx.vectors, "vec_chunks", knn.as_blob(q), k, Allowed())
    doc_of = idx.vectors.notes_of(c, [rid for rid, _ in near])
    if doc_of is None:
        marks = ",".join(str(rid) for rid, _ in near) or "NULL"
        doc_of = dict(c.execute(f"SELECT id, doc_id FROM chunks WHERE id IN ({marks})"))
    seen = {doc_id}
    for rid, cos in near:
        did = doc_of.get(rid, -1)
        if did < 0 or did in seen:
            continue
        seen.add(did)
        yield did, cos
