"""The two model kinds the pipeline needs, as Protocols: one batch method each."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    model_id: str  # stable id stored in the index meta (e.g. "multilingual-e5-small-q4_0")
    model_path: str
    dim: int
    max_tokens: int  # passages longer than this are truncated by the model

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised; applies the family's passage prefix."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised; applies the family's query prefix."""
        ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised; the query prefix, batched."""
        ...

    def count_tokens(self, text: str) -> int: ...


class Reranker(Protocol):
    model_id: str
    model_path: str
    max_tokens: int

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]:
        """One raw relevance score per passage (bigger is better)."""
        ...
