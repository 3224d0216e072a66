"""low_confidence: a documented rule so a client can say "no strong match".

The signal is how far the vector leg's best chunk stands out from the rest
of its candidates:

    margin = (best_sim - median_sim) / (1 - median_sim)
    low_confidence = no results  or  margin < [search] min_confidence_ratio

where the similarities are the query's cosine to the vector leg's top-N
chunks. When a vault simply has no note about the question, every candidate
is about as (un)related as the next and the margin is small; a real answer
stands out. Dividing by ``1 - median`` makes the rule independent of where a
model's cosines cluster (e5's sit at 0.7-0.9). The lexical leg is not used:
with trigram phrases almost every query matches *something*.

The default 0.12 is calibrated for the default model and chunk budget on the
eval vaults (ADR-0075: precision 0.81, recall 0.59 for "nothing useful in the
top 5");
0 turns the rule off except for empty results. Queries with no vector leg
(FTS only) are never flagged unless empty.
"""

from __future__ import annotations

import numpy as np


def similarity_margin(sims: np.ndarray) -> float:
    if len(sims) < 2:
        return 1.0
    med = float(np.median(sims))
    return (float(np.max(sims)) - med) / max(1e-6, 1.0 - med)


def is_low_confidence(has_results: bool, sims: np.ndarray | None, ratio: float) -> bool:
    if not has_results:
        return True
    if ratio <= 0 or sims is None or len(sims) == 0:
        return False
    return similarity_margin(sims) < ratio
