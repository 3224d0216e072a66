"""Filling the index's sentence vectors while a long-lived process is idle
(ADR 0281), so answer_spans reads them instead of embedding ~30 sentences
a search.

One ``step`` embeds a few sentences and stores them: a search that needs
the model meanwhile waits for one step at most. The plan (which sentences
of which chunks have no stored vector) is made once, and again after the
chunks change (``invalidate``); making it drops the rows of sentences no
chunk holds any more.
"""

from __future__ import annotations

import logging

from ..errors import GrooveError
from ..models.base import Embedder
from ..storage.db import Index
from ..storage.sentences import SentenceVectors, sentence_key
from .answers import MAX_SENTENCES, sentences

log = logging.getLogger(__name__)

STEP = 4  # sentences a step: ~4 short decodes, what a search may wait for the model


class SentenceWarmer:
    """Stores the vault's sentence vectors, a few per ``step``."""

    def __init__(self, index: Index, embedder: Embedder) -> None:
        self.index = index
        self.embedder = embedder
        model = getattr(embedder, "model_id", None)
        self.store = SentenceVectors(index, model) if model and not index.read_only else None
        self._todo: list[str] | None = None
        self.stored = 0  # vectors this warmer wrote
        self.failed: str | None = None  # why it stopped (a write or the model failed); cleared by invalidate

    def invalidate(self) -> None:
        """The chunks changed: plan again at the next step."""
        self._todo = None
        self.failed = None

    @property
    def pending(self) -> int | None:
        """Sentences still to embed, or None before the plan is made."""
        return None if self._todo is None else len(self._todo)

    def step(self) -> bool:
        """Embed and store the next few sentences; False when there is
        nothing left to do (all stored, nothing can be stored, or it failed)."""
        if self.store is None or self.failed:
            return False
        try:
            if self._todo is None:
                self._todo = self._plan(self.store)
            if not self._todo:
                return False
            batch, self._todo = self._todo[:STEP], self._todo[STEP:]
            self.store.put(zip(map(sentence_key, batch), self.embedder.embed_passages(batch)))
        except (GrooveError, ValueError, RuntimeError, UnicodeError, OSError) as e:
            # A full disk or a model failure: answer_spans embeds as before.
            self.failed = f"{type(e).__name__}: {e}"
            log.warning("sentence vectors not stored: %s", self.failed)
            return False
        self.stored += len(batch)
        return True

    def _plan(self, store: SentenceVectors) -> list[str]:
        texts: dict[bytes, str] = {}
        with self.index.snapshot() as c:
            for (content,) in c.execute("SELECT content FROM chunks ORDER BY id"):
                for s in sentences(content)[:MAX_SENTENCES]:
                    texts.setdefault(sentence_key(s.text), s.text)
        have = store.stored_keys()
        store.drop(have - texts.keys())
        return [t for k, t in texts.items() if k not in have]
