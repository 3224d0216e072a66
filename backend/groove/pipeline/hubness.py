"""The vector legs under the hubness remedies of issue 49 (``index/space.py``,
ADR 0265): the same lists ``fusion.py`` builds from sqlite-vec, built
from the in-memory space when a remedy is on."""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

import numpy as np

from ..config import FusionConfig
from ..index.space import Levers, Scored, Space, score, space_of
from ..storage.db import Index
from .filters import Restriction


def levers_of(fusion: FusionConfig) -> Levers:
    """The remedies the exact scan answers. Section evidence alone is not
    one of them: the normal vector path applies it to the notes its legs
    found (``sections.py``), unless ``section_exact`` asks for the scan or
    another remedy needs it anyway."""
    scan = fusion.centre or fusion.csls or fusion.prf or fusion.skip_empty or fusion.section_exact
    return Levers(centre=fusion.centre, csls=fusion.csls, section_weight=fusion.section_weight if scan else 0.0,
                  prf=fusion.prf, skip_empty=fusion.skip_empty, question_mean=fusion.question_mean)


@dataclass
class LeverView:
    space: Space
    scored: Scored
    docs: np.ndarray | None  # the filter's notes (None: no filter)

    def nearest_notes(self, n: int) -> list[tuple[int, float]]:
        return self.scored.top_notes(n, self.docs)

    def vectors(self, n: int, pool: int, excluded: AbstractSet[int], near: list[tuple[int, float]],
                weight: float) -> tuple[list[int], list[float]]:
        """The vector leg's chunk ids (note-aware when ``near``, ADR 0078) and
        the plain cosines of the nearest chunks (what low_confidence reads)."""
        hits = self.scored.top_chunks(n * pool if near else n, self.docs, excluded)
        cos = [h[2] for h in hits[:n]]
        if not near:
            return [h[0] for h in hits], cos
        notes = self.scored.note_scores_of(self.space, sorted({h[3] for h in hits}))
        ranked = sorted(hits, key=lambda h: (-(h[1] + weight * notes.get(h[3], 0.0)), h[0]))
        return [h[0] for h in ranked[:n]], cos


def lever_view(idx: Index, qvec: np.ndarray, fusion: FusionConfig, restriction: Restriction,
               embed: Callable[[str], np.ndarray] | None = None) -> LeverView | None:
    """None when every remedy is off, or under a filter known only as SQL
    (the space masks by note ids), or for an index without note vectors."""
    lv = levers_of(fusion)
    if not lv.any or (restriction.sql is not None and restriction.docs is None):
        return None
    space = space_of(idx)
    if space is None:
        return None
    q_mean = space.question_mean(idx.conn, embed) if lv.centre and lv.question_mean and embed else None
    return LeverView(space, score(space, qvec, lv, q_mean), restriction.docs)
