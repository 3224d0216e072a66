"""Runtime: the dependencies a vault's operations need, built once.

No behaviour lives here: the index, the config and the (lazily loaded,
then kept warm) models. The CLI builds one per command, the daemon and the
MCP server one per process.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from .config import Config, load_config
from .index import rules_now
from .models.base import Embedder, Reranker
from .paths import check_vault, default_index_path
from .storage.db import Index


@dataclass
class Runtime:
    vault: Path
    config: Config
    index: Index
    model: str | None = None  # --model override; None = config / default
    _embedder: Embedder | None = None
    _rerankers: dict[str, Reranker] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    model_load_seconds: float | None = None

    @property
    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                from .models.registry import load_embedder

                t0 = time.perf_counter()
                self._embedder = load_embedder(self.model or self.config.index.model or None)
                self.model_load_seconds = time.perf_counter() - t0
            return self._embedder

    def reranker(self, name: str) -> Reranker:
        with self._lock:
            if name not in self._rerankers:
                from .models.registry import load_reranker

                self._rerankers[name] = load_reranker(name)
            return self._rerankers[name]

    def close(self) -> None:
        self.index.close()


def open_runtime(
    vault: Path,
    *,
    index_path: Path | None = None,
    model: str | None = None,
    config: Config | None = None,
    create: bool = True,
) -> Runtime:
    vault = check_vault(vault)
    cfg = config or load_config(vault)
    idx = Index(index_path or default_index_path(vault), create=create)
    rules_now.attach(idx, vault)  # the last good rules this index kept, should a rule file break (ADR 0236)
    return Runtime(vault=vault, config=cfg, index=idx, model=model)
