"""Stage 2 (optional): cross-encoder reranking of the candidate pool.

The reranker sees the chunk with its contextual prefix (the same text the
embedder saw); when it runs, ``score`` becomes its raw score (unbounded,
bigger is better). Passages longer than the model's context are cut by the
model; the response says how many.

Which reranker runs, and what happens when it cannot be loaded, is decided by
``reranker_for_query`` (docs/design.md §1.3): a reranker the user asked for on this
query (``--reranker``/``--rerank``) that fails is an error; one that only
came from ``groove.toml`` (``rerank_by_default``) that fails leaves the
results in stage-1 order, with a warning naming the file.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING

from ..errors import GrooveError, InvalidArgument, ModelError
from ..models.base import Reranker
from ..storage.store import embed_text
from ..types import Candidate

if TYPE_CHECKING:
    from ..runtime import Runtime


def reranker_for_query(
    rt: Runtime, name: str, *, asked: bool, named: bool = False
) -> tuple[Reranker | None, list[str]]:
    """The loaded reranker, or ``(None, [warning])`` when it came from the
    config and cannot be loaded. ``asked``: the user requested reranking for
    this query (``--reranker`` or ``--rerank``); then any failure raises —
    as the caller's mistake (``InvalidArgument``) when the caller ``named``
    the model, as the vault's configuration problem otherwise."""
    if not name:
        if asked:
            raise InvalidArgument(
                "reranking was asked for but no reranker is configured "
                "(pass --reranker MODEL or set `reranker` in groove.toml)",
                param="rerank",
            )
        return None, []
    try:
        return rt.reranker(name), []
    except (ModelError, GrooveError) as e:
        if named:
            raise InvalidArgument(f"reranker {name!r} could not be loaded: {e}", param="reranker") from e
        if asked:
            raise GrooveError(f"reranker {name!r} could not be loaded: {e}") from e
        return None, [
            f"reranker {name!r} from groove.toml could not be loaded ({e}); "
            "results are not reranked (fix the `reranker` key or pass --no-rerank)"
        ]


def _sort_key(c: Candidate) -> float:
    # A NaN score would make the sort order depend on where it sits; rank it last.
    return -c.score if not math.isnan(c.score) else math.inf


def rerank_candidates(pool: list[Candidate], query: str, reranker: Reranker) -> tuple[list[Candidate], list[str]]:
    """The pool rescored by ``reranker`` and sorted by its raw score (stable:
    equal scores keep the stage-1 order). The input candidates are not modified."""
    if not pool:
        return pool, []
    before = getattr(reranker, "truncated", 0)
    scores = reranker.score_pairs(query, [embed_text(c.context, c.content) for c in pool])
    if len(scores) != len(pool):
        raise ModelError(
            f"{reranker.model_path}: reranker returned {len(scores)} scores for {len(pool)} passages"
        )
    warnings = []
    # The model counts what it cut; under concurrent queries on one model this
    # may include another query's passages (it only ever over-reports).
    cut = getattr(reranker, "truncated", 0) - before
    if cut > 0:
        warnings.append(
            f"reranker: {cut} of {len(pool)} passage(s) were longer than the model context "
            f"({reranker.max_tokens} tokens) and were truncated before scoring"
        )
    rescored = [replace(c, score=float(s)) for c, s in zip(pool, scores)]
    return sorted(rescored, key=_sort_key), warnings
