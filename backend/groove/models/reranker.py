"""Cross-encoder reranking through llama.cpp's rank pooling.

``Llama.embed()`` is wrong for rank pooling in llama-cpp-python 0.3.36 (it
reads a full embedding where only the first ``n_cls_out`` floats are
scores), so pairs are decoded here with the low-level API and read back with
``llama_get_embeddings_seq``. Pairs are framed the way llama.cpp's server
frames them: ``[CLS] q [SEP] d [SEP]`` for WordPiece (BERT) vocabularies and
``<s> q </s></s> d </s>`` for SentencePiece (XLM-R) ones.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

from groove.models import ModelError
from groove.models.e5_convert import normalize_text
from groove.models.llama_embedder import decode_pooled, open_llama_within_training_context
from groove.models.threads import physical_cores

RANK_POOLING = 4  # LLAMA_POOLING_TYPE_RANK


class LlamaReranker:
    """Reranker protocol over a GGUF cross-encoder (BERT or XLM-R classification head)."""

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        model_id: str | None = None,
        n_threads: int | None = None,
        max_tokens: int = 512,
        max_query_tokens: int = 64,
    ) -> None:
        self.model_path = str(Path(model_path).expanduser())
        self.model_id = model_id or Path(self.model_path).stem
        self.truncated = 0  # passages cut to fit the context, since creation
        self.max_query_tokens = max_query_tokens
        self._lock = threading.Lock()
        import llama_cpp

        self._llm, self.max_tokens = open_llama_within_training_context(
            self.model_path, max(16, int(max_tokens)), n_threads=n_threads, pooling_type=RANK_POOLING)
        self.n_threads = n_threads or physical_cores()
        model = self._llm._model
        self.n_cls_out = max(1, int(llama_cpp.llama_model_n_cls_out(model.model)))
        arch = str(self._llm.metadata.get("general.architecture", ""))
        declared = self._llm.metadata.get(f"{arch}.pooling_type")
        if declared is not None and str(declared) != str(RANK_POOLING):
            self.close()
            raise ModelError(f"{self.model_path}: not a cross-encoder (pooling type {declared}, expected rank)")
        tok_model = str(self._llm.metadata.get("tokenizer.ggml.model", ""))
        bos, eos, sep = model.token_bos(), model.token_eos(), model.token_sep()
        if tok_model == "bert":  # WordPiece: [CLS] q [SEP] d [SEP]
            self._sep = sep if sep >= 0 else eos
            self._head, self._mid, self._tail = [bos], [self._sep], [self._sep]
            self.pair_format = "bert"
        else:  # SentencePiece (XLM-R style): <s> q </s></s> d </s>
            end = eos if eos >= 0 else sep
            self._head, self._mid, self._tail = [bos], [end, end], [end]
            self.pair_format = "xlmr"
        if min(self._head + self._mid) < 0:
            raise ModelError(f"{self.model_path}: cross-encoder vocabulary lacks BOS/EOS/SEP tokens")

    def _tokens(self, text: str) -> list[int]:
        text = normalize_text(text)
        if not text:
            return []
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def _pair(self, q: list[int], passage: str) -> tuple[list[int], bool]:
        d = self._tokens(passage)
        room = self.max_tokens - len(self._head) - len(self._mid) - len(self._tail) - len(q)
        cut = len(d) > room
        if cut:
            d = d[: max(0, room)]
        return [*self._head, *q, *self._mid, *d, *self._tail], cut

    def score_pairs(self, query: str, passages: Sequence[str]) -> list[float]:
        """One raw relevance logit per passage (bigger is better)."""
        if not passages:
            return []
        with self._lock:
            q = self._tokens(query)[: min(self.max_query_tokens, self.max_tokens // 2)]
            seqs = []
            for p in passages:
                ids, cut = self._pair(q, p)
                self.truncated += int(cut)
                seqs.append(ids)
            return self._run(seqs)

    def _run(self, seqs: list[list[int]]) -> list[float]:
        # Pack whole pairs into one decode up to the context size: pairs are
        # short, so this saves per-decode overhead (see ADR 0022).
        llm = self._llm
        max_seqs = int(llm.context_params.n_seq_max)
        return [float(row[0]) for row in decode_pooled(llm, seqs, self.n_cls_out, self.max_tokens, max_seqs)]

    def close(self) -> None:
        llm = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()
            self._llm = None

    def __repr__(self) -> str:
        return f"LlamaReranker({self.model_id!r}, format={self.pair_format}, max_tokens={self.max_tokens})"
