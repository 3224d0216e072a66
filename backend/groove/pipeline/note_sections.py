"""A note's answer beyond its returned sections (ADR 0269).

A note's best sentence is often in a section (chunk) the search did not
return. Its sections' stored vectors (``vec_chunks``) rank them against the
query vector at no model cost; the sentences of the best ``EXTRA_SECTIONS``
not returned then compete with the returned hits' ones (``answers.py``),
and a winner is carried as the note's ``NoteAnswer``: a place in the note,
not a hit. Canvases are left out: their content is not the file's bytes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from ..engines.vectors import knn
from ..storage.chunks import sections_of_notes
from ..storage.db import Index
from ..wire.search import NoteAnswer, SearchHit

EXTRA_SECTIONS = 1  # per note: each costs its sentences' embeddings (~15), measured in bench/answer_spans.py
NOTES = 5  # the first notes of the list looked beyond (a panel's first rows)
NEARER_ONLY = False  # a section counts only when its vector is nearer the query than the note's returned ones


@dataclass(frozen=True)
class Section:
    chunk_id: int
    path: str
    heading_path: list[str]
    content: str  # the section text as it appears in the file
    byte_start: int
    line_start: int

    def answer(self, start: int, end: int) -> NoteAnswer:
        """The note answer at characters [start, end) of ``content``."""
        before = self.content[:start]
        b0 = self.byte_start + len(before.encode("utf-8"))
        text = self.content[start:end]
        return NoteAnswer(self.chunk_id, self.heading_path, text, (b0, b0 + len(text.encode("utf-8"))),
                          (self.line_start + before.count("\n"), self.line_start + self.content[:end].count("\n")))


def unreturned_sections(idx: Index, hits: list[SearchHit], qvec: np.ndarray, notes: set[str],
                        sims_out: dict[int, float] | None = None) -> list[Section]:
    """For each note of ``notes``, the ``EXTRA_SECTIONS`` of its sections
    that no hit holds, nearest the query by their stored vectors (all the
    notes' sections' cosines into ``sims_out``)."""
    notes = {p for p in list(dict.fromkeys(h.path for h in hits if h.path in notes))[:NOTES]
             if not p.lower().endswith(".canvas")}
    returned = {h.chunk_id for h in hits} | {r.chunk_id for h in hits for r in h.expanded_from}
    rows = [r for r in sections_of_notes(idx, [h.chunk_id for h in hits if h.path in notes]) if r[1] in notes]
    if not rows:
        return []
    sims = knn.similarities(idx.conn, idx.vectors, "vec_chunks", knn.as_blob(qvec), [r[0] for r in rows])
    if sims_out is not None:
        sims_out.update(sims)
    if EXTRA_SECTIONS <= 0:
        return []
    by_note: dict[str, list[tuple]] = {}
    floor: dict[str, float] = {}  # per note: its nearest returned section's cosine
    for r in rows:
        if r[0] not in sims:  # a chunk with no vector yet (being indexed) is not ranked
            continue
        if r[0] in returned:
            floor[r[1]] = max(floor.get(r[1], -1.0), sims[r[0]])
        else:
            by_note.setdefault(r[1], []).append(r)
    out: list[Section] = []
    for path, rs in by_note.items():
        rs.sort(key=lambda r: -sims[r[0]])
        rs = [r for r in rs if not NEARER_ONLY or sims[r[0]] > floor.get(path, -1.0)]
        out.extend(Section(r[0], path, json.loads(r[2]), r[3], r[4], r[5]) for r in rs[:EXTRA_SECTIONS])
    return out
