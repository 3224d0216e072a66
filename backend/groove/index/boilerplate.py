"""Template boilerplate: lines that many notes of the vault share, left out of
what is embedded (ADR 0210).

A daily-note template repeats its scaffold ("## Tasks", "Mood::", a fixed
checklist, a ```dataview block) in hundreds of notes. Embedded as written,
those lines pull every daily toward every other one, and a section that is
only scaffold becomes a vector that answers any question about the scaffold.
So the *embedding view* of a chunk drops the vault's common lines; the
stored chunk (full text, display, ``match_spans``) stays as written.

A line is common when its normalised form (``line_key``) is in at least
``max(MIN_NOTES, share x notes)`` notes of the vault; once common it stays so
until it falls below ``KEEP`` of that (so a line near the threshold does not
flip, and re-embed its notes, with every note added).

The census is kept in the index: ``note_lines`` holds each note's distinct
line keys and whether its stored vectors left each one out; triggers keep
``line_counts`` (notes per key, and how many of them suppressed it). A run
decides the common set before it embeds anything (``plan``), and afterwards
re-embeds the chunks of every other note whose suppressed lines differ from
what the set now says (``refresh``): a line that becomes common later (a
template edited) is taken out of the notes embedded before, and one that
stops being common is put back. Each note's vectors and flags change in one
transaction, so a killed run leaves every note consistent with its flags.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np

from ..storage import store
from ..storage.db import Index
from ..types import Chunk, ParsedNote
from ..vault.encoding import decode_note_bytes
from ..vault.scan import NoteFile, read_regular_file

if TYPE_CHECKING:
    from ..config import IndexConfig
    from ..models.base import Embedder

# Fewer notes than this never make a line common: in a small vault a shared
# line cannot crowd a result list, and a coincidence is likelier than a template.
MIN_NOTES = 10
# A common line stays common until its count falls below this share of the threshold.
KEEP = 0.8
REFRESH_BATCH_CHUNKS = 32

# List, quote, heading and task markers: "- [x] Water plants" is the template's
# "- [ ] Water plants" ticked.
_MARKERS = re.compile(r"^(?:[>#]+[ \t]*|[-*+][ \t]+|\d{1,9}[.)][ \t]+|\[[ xX/\-]\][ \t]*)+")
_DIGITS = re.compile(r"\d")
_SPACES = re.compile(r"\s+")


def line_key(line: str) -> int | None:
    """The census key of one line: NFC, markers stripped, case folded, digits
    as 0 (a template's dates and counters), whitespace collapsed; None for a
    line without a letter or digit (a fence, a rule, a blank), which says
    nothing by itself and is never counted."""
    s = _MARKERS.sub("", unicodedata.normalize("NFC", line).strip())
    if not any(ch.isalnum() for ch in s):
        return None
    s = _SPACES.sub(" ", _DIGITS.sub("0", s.casefold())).strip()
    return int.from_bytes(hashlib.blake2b(s.encode("utf-8"), digest_size=8).digest(), "little", signed=True)


def content_keys(texts: Iterable[str]) -> set[int]:
    """The distinct keys of the lines of ``texts`` (a note's chunk contents)."""
    out: set[int] = set()
    for text in texts:
        for line in text.split("\n"):
            k = line_key(line)
            if k is not None:
                out.add(k)
    return out


def body_keys(text: str) -> set[int]:
    """The keys of a note's body, read from its text without parsing it:
    the lines after the frontmatter, which are exactly the lines its chunks
    hold (the chunker drops only blank lines)."""
    lines = text.split("\n")
    start = 0
    if lines and lines[0].rstrip("\r").rstrip() == "---":
        for i in range(1, len(lines)):
            if lines[i].rstrip("\r").rstrip() in ("---", "..."):
                start = i + 1
                break
    return content_keys(lines[start:])


def threshold(share: float, notes: int) -> int:
    """How many notes make a line common in a vault of ``notes`` notes."""
    return max(MIN_NOTES, math.ceil(share * notes))


@dataclass(frozen=True)
class Boilerplate:
    """The vault's common lines for one run, and the embedding view they give."""

    common: frozenset[int] = field(default_factory=frozenset)

    def embedded(self, content: str) -> str | None:
        """``content`` without its common lines; None when no word is left
        (the chunk is scaffold only and gets no vector). A wordless line
        right after a removed one goes too: a dataview block's closing fence."""
        if not self.common:
            return content
        kept: list[str] = []
        dropped = False
        for line in content.split("\n"):
            k = line_key(line)
            if k is None and dropped and line.strip():
                continue
            dropped = k is not None and k in self.common
            if not dropped:
                kept.append(line)
        text = "\n".join(kept)
        return text if any(ch.isalnum() for ch in text) else None

    def view(self, note: ParsedNote) -> ParsedNote:
        """What is embedded of ``note``: its chunks stripped (``embedded``),
        scaffold-only ones left out; ordinals stay the chunks' own."""
        if not self.common:
            return note
        chunks: list[Chunk] = []
        for ch in note.chunks:
            text = self.embedded(ch.content)
            if text is not None:
                chunks.append(replace(ch, content=text))
        return replace(note, chunks=chunks)

    def spread(self, note: ParsedNote, view: ParsedNote, vectors: np.ndarray | None) -> list[np.ndarray | None] | None:
        """``vectors`` (one per chunk of ``view``) as one entry per chunk of ``note``."""
        if vectors is None:
            return None
        at = {ch.ordinal: i for i, ch in enumerate(view.chunks)}
        return [vectors[at[ch.ordinal]] if ch.ordinal in at else None for ch in note.chunks]

    def flags(self, note: ParsedNote) -> dict[int, bool]:
        """key -> suppressed, for every line of ``note``: its ``note_lines`` rows."""
        return {k: k in self.common for k in content_keys(ch.content for ch in note.chunks)}


OFF = Boilerplate()


def write_lines(c, doc_id: int, flags: dict[int, bool]) -> None:
    """Replace a note's census rows (inside the caller's transaction)."""
    c.execute("DELETE FROM note_lines WHERE doc_id = ?", (doc_id,))
    c.executemany("INSERT INTO note_lines(doc_id, h, suppressed) VALUES (?, ?, ?)",
                  [(doc_id, k, int(s)) for k, s in flags.items()])


def _json(ids: Iterable[int]) -> str:
    return json.dumps(sorted(ids))


def backfill(idx: Index) -> int:
    """An index made before the census (schema m006) gets its rows from the
    stored chunks, marked as embedded whole (as they were); ``refresh`` then
    takes the common lines out. Once per index. Returns the notes counted."""
    if idx.get_meta("line_census") == "1":
        return 0
    n = 0
    with idx.atomic() as c:
        docs = [r[0] for r in c.execute(
            "SELECT id FROM documents WHERE id NOT IN (SELECT DISTINCT doc_id FROM note_lines)")]
        for doc_id in docs:
            keys = content_keys(r[0] for r in c.execute("SELECT content FROM chunks WHERE doc_id = ?", (doc_id,)))
            write_lines(c, doc_id, dict.fromkeys(keys, False))
            n += 1
        c.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('line_census', '1')")
    return n


def common_lines(idx: Index, *, share: float, notes: int, enabled: bool = True,
                 add: Counter[int] | None = None, without: Iterable[int] = ()) -> Boilerplate:
    """The vault's common lines: the stored census, minus the notes ``without``
    (doc ids about to be replaced or deleted), plus ``add`` (their keys as
    they are now, one count per note)."""
    if not enabled:
        return OFF
    t = threshold(share, notes)
    keep = max(MIN_NOTES, math.ceil(KEEP * t))
    c = idx.conn
    add = add or Counter()
    counts: Counter[int] = Counter(dict(c.execute("SELECT h, notes FROM line_counts WHERE notes >= ?",
                                                  (keep - max(add.values(), default=0),))))
    if add:
        counts.update({h: n for h, n in c.execute(
            "SELECT h, notes FROM line_counts WHERE h IN (SELECT value FROM json_each(?))", (_json(add),))
            if h not in counts})
    out = list(without)
    if out:
        for (h,) in c.execute("SELECT h FROM note_lines WHERE doc_id IN (SELECT value FROM json_each(?))",
                              (_json(out),)):
            counts[h] -= 1
    counts.update(add)
    before = {h for (h,) in c.execute("SELECT h FROM line_counts WHERE suppressed > 0")}
    return common_from_counts(counts, notes=notes, share=share, before=before)


def common_from_counts(counts: Counter[int], *, notes: int, share: float,
                       before: AbstractSet[int] = frozenset()) -> Boilerplate:
    """The rule itself: a line held by ``threshold(share, notes)`` notes is
    common; one common ``before`` stays so down to ``KEEP`` of that."""
    t = threshold(share, notes)
    keep = max(MIN_NOTES, math.ceil(KEEP * t))
    return Boilerplate(frozenset(h for h, n in counts.items() if n >= t or (h in before and n >= keep)))


def stale_notes(idx: Index, bp: Boilerplate) -> list[int]:
    """Notes whose stored vectors left out other lines than ``bp`` says."""
    c = idx.conn
    before = {h for (h,) in c.execute("SELECT h FROM line_counts WHERE suppressed > 0")}
    gone, new = before - bp.common, bp.common
    rows = c.execute(
        "SELECT DISTINCT doc_id FROM note_lines WHERE (h IN (SELECT value FROM json_each(?)) AND suppressed = 1) "
        "OR (h IN (SELECT value FROM json_each(?)) AND suppressed = 0) ORDER BY doc_id",
        (_json(gone), _json(new)))
    return [r[0] for r in rows]


@dataclass
class RefreshSummary:
    common: int = 0  # the vault's common lines after the run
    notes: int = 0  # notes whose vectors were redone
    chunks_embedded: int = 0
    chunks_unembedded: int = 0  # now scaffold only: vector removed


def _stored_note(c, doc_id: int) -> tuple[ParsedNote, list[int]] | None:
    doc = c.execute("SELECT path, title, aliases, description FROM documents WHERE id = ?", (doc_id,)).fetchone()
    if doc is None:
        return None
    rows = c.execute("SELECT id, ordinal, level, heading, heading_path, context, content, byte_start, byte_end, "
                     "line_start, line_end, token_count FROM chunks WHERE doc_id = ? ORDER BY ordinal",
                     (doc_id,)).fetchall()
    chunks = [Chunk(r[1], r[2], r[3], json.loads(r[4]), r[5], r[6], r[7], r[8], r[9], r[10], r[11] or 0)
              for r in rows]
    note = ParsedNote(doc[0], doc[1], json.loads(doc[2] or "[]"), [], doc[3], None, {}, chunks, [])
    return note, [r[0] for r in rows]


def _stored_vectors(c, ids: list[int]) -> dict[int, np.ndarray]:
    return {rid: np.frombuffer(b, dtype=np.float32) for rid, b in c.execute(
        "SELECT rowid, embedding FROM vec_chunks WHERE rowid IN (SELECT value FROM json_each(?))", (_json(ids),))}


def refresh(idx: Index, embed_passages: Callable[[list[str]], np.ndarray], note_vectors: Callable,
            bp: Boilerplate, docs: list[int] | None = None) -> RefreshSummary:
    """Redo the vectors of the notes embedded under another common set than
    ``bp`` (``stale_notes``, or ``docs``): the chunks whose view changed are
    re-embedded from their stored text (the others keep their vectors),
    chunks now scaffold only lose theirs, the note vector is made again.
    ``note_vectors(texts, firsts)`` is ``store.note_vectors`` bound to the
    embedder."""
    summary = RefreshSummary()
    todo = stale_notes(idx, bp) if docs is None else docs
    if not todo or not idx.has_vec_table():
        return summary
    i = 0
    while i < len(todo):
        # (doc id, view, chunk ids, {chunk id: new text or None for the changed ones})
        batch: list[tuple[int, ParsedNote, list[int], dict[int, str | None]]] = []
        texts: list[str] = []
        while i < len(todo) and len(texts) < REFRESH_BATCH_CHUNKS:
            doc_id = todo[i]
            i += 1
            got = _stored_note(idx.conn, doc_id)
            if got is None:
                continue
            note, ids = got
            was = Boilerplate(frozenset(h for (h,) in idx.conn.execute(
                "SELECT h FROM note_lines WHERE doc_id = ? AND suppressed = 1", (doc_id,))))
            changed: dict[int, str | None] = {}
            for cid, ch in zip(ids, note.chunks):
                new = bp.embedded(ch.content)
                if new != was.embedded(ch.content):
                    changed[cid] = None if new is None else store.embed_text(ch.context, new)
            texts += [t for t in changed.values() if t is not None]
            batch.append((doc_id, bp.view(note), ids, changed))
        vecs = iter(embed_passages(texts) if texts else [])
        fresh = [{cid: (None if t is None else next(vecs)) for cid, t in changed.items()}
                 for _, _, _, changed in batch]
        # The note vector's first chunk: the first chunk with a vector after the change.
        firsts: list[np.ndarray] = []
        views: list[ParsedNote] = []
        for (_, view, ids, _), got_vecs in zip(batch, fresh):
            if not view.chunks:
                continue
            kept = _stored_vectors(idx.conn, ids)
            first_id = next(cid for cid in ids
                            if (got_vecs[cid] is not None if cid in got_vecs else cid in kept))
            got = got_vecs.get(first_id)
            firsts.append(got if got is not None else kept[first_id])
            views.append(view)
        note_vecs = iter(note_vectors([store.note_text(v) for v in views], np.array(firsts)) if views else [])
        for (doc_id, view, _, _), got_vecs in zip(batch, fresh):
            nvec = next(note_vecs) if view.chunks else None
            with idx.atomic() as c:
                if c.execute("SELECT 1 FROM documents WHERE id = ?", (doc_id,)).fetchone() is None:
                    continue
                for cid, v in got_vecs.items():
                    c.execute("DELETE FROM vec_chunks WHERE rowid = ?", (cid,))
                    if v is None:
                        summary.chunks_unembedded += 1
                        continue
                    c.execute("INSERT INTO vec_chunks(rowid, embedding) VALUES (?, ?)",
                              (cid, np.ascontiguousarray(v, dtype=np.float32).tobytes()))
                    summary.chunks_embedded += 1
                c.execute("DELETE FROM vec_notes WHERE rowid = ?", (doc_id,))
                if nvec is not None:
                    c.execute("INSERT INTO vec_notes(rowid, embedding) VALUES (?, ?)",
                              (doc_id, np.ascontiguousarray(nvec, dtype=np.float32).tobytes()))
                c.execute("UPDATE note_lines SET suppressed = (h IN (SELECT value FROM json_each(?))) "
                          "WHERE doc_id = ?", (_json(bp.common), doc_id))
            summary.notes += 1
    return summary


def plan(idx: Index, cfg: IndexConfig, todo: list[NoteFile], known: dict[str, store.DocRow],
         gone: Iterable[str], *, notes: int) -> Boilerplate:
    """The common lines for a run, before it embeds anything: the stored
    census with the notes the run will (re)index counted as they are on
    disk now (read once more here: reading is cheap next to embedding, and
    the first notes of a new vault must not be embedded with nothing
    suppressed) and the notes it deletes left out."""
    backfill(idx)
    if not cfg.boilerplate:
        return OFF
    add: Counter[int] = Counter()
    for nf in todo:
        data, _, _ = read_regular_file(nf.abspath, cfg.max_file_bytes)
        if data is not None and len(data) <= cfg.max_file_bytes:
            add.update(body_keys(decode_note_bytes(data).data.decode("utf-8", errors="replace")))
    without = [known[p].id for p in {*gone, *(f.path for f in todo)} if p in known]
    return common_lines(idx, share=cfg.boilerplate_share, notes=notes, add=add, without=without)


def settle(idx: Index, embedder: Embedder, cfg: IndexConfig, *, notes: int) -> RefreshSummary:
    """After a run: the common lines from the stored census, and every note
    embedded under another set redone (``refresh``)."""
    bp = common_lines(idx, share=cfg.boilerplate_share, notes=notes, enabled=cfg.boilerplate)
    done = refresh(idx, embedder.embed_passages, lambda texts, firsts: store.note_vectors(embedder, texts, firsts), bp)
    done.common = len(bp.common)
    return done
