"""Retrieval evaluation: golden files, metrics, history, significance.

``groove eval`` and ``groove tune`` (cli/eval.py, tune.py) are thin layers
over these modules; the metrics and statistics are pure functions.
"""

from .golden import GoldenError, GoldenQuery, GoldenSet, load_golden
from .metrics import NOTE, collapse_to_documents, score_query

__all__ = ["GoldenError", "GoldenQuery", "GoldenSet", "load_golden", "NOTE", "collapse_to_documents", "score_query"]
