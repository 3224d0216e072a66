"""low_confidence: a documented rule so a client can say "no strong match".

The signal is the vector leg's cosine similarity of the top hit relative to
the similarity spread of the candidate pool: when the best chunk is barely
closer to the query than a typical candidate, nothing stands out, and no
lexical evidence (an FTS match) backs it up either.

    margin = (top_sim - median_sim) / (1 - median_sim)
    low_confidence = no results
                     or (top hit has no FTS match and margin < min_confidence_ratio)

``min_confidence_ratio`` is ``[search] min_confidence_ratio`` (0 disables the
rule except for empty results). Calibration: see ADR-0075.
"""

from __future__ import annotations

import numpy as np

from ..types import Candidate


def similarity_margin(top_sim: float, pool_sims: np.ndarray) -> float:
    if len(pool_sims) == 0:
        return 0.0
    med = float(np.median(pool_sims))
    return (top_sim - med) / max(1e-6, 1.0 - med)


def is_low_confidence(top: Candidate | None, top_sim: float | None, pool_sims: np.ndarray, ratio: float) -> bool:
    if top is None:
        return True
    if ratio <= 0 or top.fts_rank is not None or top_sim is None:
        return False
    return similarity_margin(top_sim, pool_sims) < ratio
