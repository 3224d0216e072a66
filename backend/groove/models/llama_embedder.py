"""Sentence embeddings from a GGUF through llama-cpp-python (CPU; Metal on macOS).

The decode loop is ours rather than ``Llama.embed()``: that one truncates by
chopping the token list (dropping the closing [SEP]/</s>), and we want to
choose how many sequences share one decode.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import sys
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from groove.models import ModelError
from groove.models.e5_convert import normalize_text
from groove.models.gguf_file import check_gguf
from groove.models.lean_model import EmbdBatch, TokenRows, discard, lean_parts
from groove.models.threads import decode_threads, physical_cores

# A decode of more tokens than this leaves a fresh context behind (see
# LlamaEmbedder._fresh_context): queries stay below it, passages go above.
KEEP_OUTPUT_ROWS = 32

# family -> (query prefix, passage prefix)
FAMILY_PREFIXES: dict[str, tuple[str, str]] = {
    "e5": ("query: ", "passage: "),
    "generic": ("", ""),
}


_sha_cache: dict[tuple[str, int, int], str] = {}
_sha_lock = threading.Lock()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file, cached per (path, size, mtime) for this process."""
    p = Path(path).resolve()
    st = p.stat()
    key = (str(p), st.st_size, st.st_mtime_ns)
    with _sha_lock:
        hit = _sha_cache.get(key)
    if hit:
        return hit
    h = hashlib.sha256()
    with p.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    digest = h.hexdigest()
    with _sha_lock:
        _sha_cache[key] = digest
    return digest


_quiet_lock = threading.Lock()
_quiet_installed = False


@ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)
def _drop_log(_level: int, _text: bytes, _user: ctypes.c_void_p) -> None:
    return None


def _silence_llama_logs() -> None:
    """llama.cpp prints load chatter and per-decode warnings to stderr; CLI output must stay clean."""
    global _quiet_installed
    if os.environ.get("GROOVE_LLAMA_LOG"):
        return
    with _quiet_lock:
        if not _quiet_installed:
            import llama_cpp

            llama_cpp.llama_log_set(_drop_log, ctypes.c_void_p(0))
            _quiet_installed = True


def _cpu_has_amx() -> bool:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.startswith("flags"):
                    return "amx_int8" in line.split()
    except OSError:
        pass
    return False


def extra_buffers_enabled() -> bool:
    """Whether llama.cpp may repack weights into its extra CPU buffer types.

    On CPUs with AMX, llama-cpp-python 0.3.36 repacks Q4_0 weights for AMX and
    then segfaults in the first decode (measured here with the converted e5
    model); so the extra buffers are off there. ``GROOVE_LLAMA_EXTRA_BUFTS=1/0``
    forces the choice.
    """
    env = os.environ.get("GROOVE_LLAMA_EXTRA_BUFTS")
    if env is not None:
        return env.strip().lower() not in ("0", "false", "no", "")
    return not _cpu_has_amx()


_params_lock = threading.Lock()


@contextlib.contextmanager
def _lowlevel_overrides(*, extra_bufts: bool, n_seq_max: int | None) -> Iterator[None]:
    """Settings ``Llama()`` takes no argument for, swapped in for one load.

    It builds its model params from ``llama_model_default_params()`` (so no
    ``use_extra_bufts``), and in embedding mode sets ``n_seq_max`` to
    ``min(n_batch, llama_max_parallel_sequences())`` = 256. llama.cpp then
    reserves an output buffer of n_vocab floats per sequence: with e5's
    250,037-token vocabulary that is 244 MB an embedder that decodes one
    sequence at a time never uses (measured, ADR 0096)."""
    import llama_cpp.llama as llama_module

    lowlevel = llama_module.llama_cpp
    with _params_lock:
        defaults, max_seqs = lowlevel.llama_model_default_params, lowlevel.llama_max_parallel_sequences
        if not extra_bufts:
            def _defaults() -> Any:
                params = defaults()
                params.use_extra_bufts = False
                return params

            lowlevel.llama_model_default_params = _defaults
        if n_seq_max is not None:
            lowlevel.llama_max_parallel_sequences = lambda: n_seq_max
        try:
            yield
        finally:
            lowlevel.llama_model_default_params, lowlevel.llama_max_parallel_sequences = defaults, max_seqs


def open_llama(
    model_path: str | os.PathLike[str],
    *,
    n_ctx: int,
    n_threads: int | None,
    pooling_type: int | None = None,
    n_seq_max: int | None = None,
) -> Any:
    """Load a GGUF in embedding mode with the speed settings measured in NOTES.md.

    ``n_seq_max``: how many sequences one decode may hold (None: llama-cpp-
    python's default, needed by callers that pack sequences)."""
    path = check_gguf(model_path)
    _silence_llama_logs()
    from llama_cpp import Llama

    threads = n_threads or physical_cores()
    kwargs: dict[str, Any] = dict(
        embedding=True,
        n_ctx=n_ctx,
        n_batch=n_ctx,
        n_ubatch=n_ctx,  # one physical batch per decode: a longer context only adds masked attention
        n_threads=threads,
        n_threads_batch=threads,
        verbose=False,
    )
    if pooling_type is not None:
        kwargs["pooling_type"] = pooling_type
    if sys.platform == "darwin":
        kwargs["n_gpu_layers"] = -1  # Metal
    try:
        with _lowlevel_overrides(extra_bufts=extra_buffers_enabled(), n_seq_max=n_seq_max):
            llm = Llama(str(path), **kwargs)
    except (ValueError, RuntimeError, OSError) as exc:
        raise ModelError(f"llama.cpp could not load {path}: {exc}") from exc
    _close_before_teardown(llm)
    return llm


def _close_before_teardown(llm: Any) -> None:
    """Close ``llm`` at exit while llama_cpp's module is still whole: left to
    ``Llama.__del__`` during interpreter teardown, it calls functions already
    set to None and prints a traceback after every one-shot CLI search."""
    import atexit
    import weakref

    ref = weakref.ref(llm)

    def close() -> None:
        obj = ref()
        if obj is not None:
            obj.close()

    atexit.register(close)


def open_llama_within_training_context(
    path: str, n_ctx: int, *, n_threads: int | None, pooling_type: int | None, n_seq_max: int | None = None
) -> tuple[Any, int]:
    """``open_llama`` with ``n_ctx`` clamped to the model's training context
    (positions past it do not exist in the model). Returns (llama, n_ctx)."""
    llm = open_llama(path, n_ctx=n_ctx, n_threads=n_threads, pooling_type=pooling_type, n_seq_max=n_seq_max)
    train = int(llm._model.n_ctx_train())
    if n_ctx > train > 0:
        llm.close()
        n_ctx = train
        llm = open_llama(path, n_ctx=n_ctx, n_threads=n_threads, pooling_type=pooling_type, n_seq_max=n_seq_max)
    return llm, n_ctx


def decode_pooled(llm, seqs: list[list[int]], width: int, limit: int, max_seqs: int) -> Iterator[np.ndarray]:
    """Run ``seqs`` through llama.cpp and yield each one's pooled output
    (``width`` floats: an embedding, or a reranker's scores), in order.

    Whole sequences are packed into one decode while they fit in ``limit``
    tokens and ``max_seqs`` sequences (``limit`` 0 = one per decode). This is
    the low-level path: ``Llama.embed()`` misreads rank pooling (ADR 0022).
    """
    import llama_cpp as lc

    batch, ctx = llm._batch, llm._ctx
    i = 0
    try:
        while i < len(seqs):
            group = [seqs[i]]
            used = len(seqs[i])
            j = i + 1
            while j < len(seqs) and len(group) < max_seqs and used + len(seqs[j]) <= limit:
                group.append(seqs[j])
                used += len(seqs[j])
                j += 1
            batch.reset()
            for sid, toks in enumerate(group):
                batch.add_sequence(toks, sid, True)
            ctx.kv_cache_clear()
            ctx.decode(batch)
            for sid in range(len(group)):
                ptr = lc.llama_get_embeddings_seq(ctx.ctx, sid)
                if not ptr:
                    raise ModelError(f"{llm.model_path}: llama.cpp returned no pooled output")
                yield np.ctypeslib.as_array(ptr, shape=(width,)).copy()
            i = j
    finally:
        batch.reset()


def _unit_rows(out: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    np.divide(out, np.maximum(norms, 1e-12), out=out)
    return out


@dataclass(frozen=True)
class EmbedderTuning:
    """What no configuration sets: measured alternatives, explicit prefixes
    and raw text, for benches and tests."""

    query_prefix: str | None = None  # overrides the family's
    passage_prefix: str | None = None  # overrides the family's
    normalize: bool = True  # False: text as given (no NFKC/whitespace normalisation)
    pack_sequences: bool = False  # several passages per decode (ADR 0021: no faster on CPU)
    pooling_type: int | None = None  # llama.cpp's pooling; None: the model's own
    lean: bool | None = None  # without the vocabulary (ADR 0125); None: when the model allows


class LlamaEmbedder:
    """Embedder protocol over a GGUF embedding model (mean/CLS pooling inside llama.cpp).

    ``family`` picks the prefixes ("e5": ``query: ``/``passage: ``; "generic":
    none); ``tuning``'s explicit prefixes override it. Text is
    NFKC- and whitespace-normalised first (see e5_convert.normalize_text), the
    same for passages and queries. Passages longer than ``max_tokens`` are cut
    (keeping the closing special token) and counted in ``truncated``.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str],
        *,
        family: str = "generic",
        model_id: str | None = None,
        n_threads: int | None = None,
        max_tokens: int = 512,
        tuning: EmbedderTuning = EmbedderTuning(),
    ) -> None:
        query_prefix, passage_prefix, lean = tuning.query_prefix, tuning.passage_prefix, tuning.lean
        pack_sequences = tuning.pack_sequences
        if family not in FAMILY_PREFIXES and (query_prefix is None or passage_prefix is None):
            raise ValueError(f"unknown model family {family!r}; known: {sorted(FAMILY_PREFIXES)}")
        fq, fp = FAMILY_PREFIXES.get(family, ("", ""))
        self.family = family
        self.query_prefix = fq if query_prefix is None else query_prefix
        self.passage_prefix = fp if passage_prefix is None else passage_prefix
        self.model_path = str(Path(model_path).expanduser())
        self.model_id = model_id or Path(self.model_path).stem
        self.normalize = tuning.normalize
        # Measured (ADR 0021): one sequence per decode is as fast or faster on CPU.
        self.pack_sequences = pack_sequences
        self.truncated = 0
        self._lock = threading.Lock()  # a llama context is not re-entrant
        self._holding = 0  # > 0 inside holding_outputs(): long decodes keep the output buffer
        self._buffer_grown = False

        import llama_cpp

        # ADR 0125: without its vocabulary when the model allows (None = when it can)
        self._lean = None
        self.lean_reason = "not asked for" if lean is False or pack_sequences else ""
        if not self.lean_reason:
            self._lean, self.lean_reason = lean_parts(self.model_path)
            if lean and self._lean is None:
                raise ModelError(f"{self.model_path} cannot run without its vocabulary: {self.lean_reason}")
        ctx = max(8, int(max_tokens))
        opts: dict[str, Any] = dict(n_threads=n_threads, pooling_type=tuning.pooling_type,
                                    n_seq_max=None if pack_sequences else 1)
        if self._lean:
            try:
                self._tokenizer = self._lean.tokenizer()
                self._rows = TokenRows(self._lean)
                self._llm, self.max_tokens = open_llama_within_training_context(str(self._lean.gguf), ctx, **opts)
            except (OSError, ValueError, RuntimeError, ModelError) as exc:
                if lean:
                    raise
                # A damaged copy costs this load its savings, never the load.
                discard(self._lean)
                self._lean, self.lean_reason = None, f"the lean copy could not be used ({exc}); derived again next load"
        if not self._lean:
            self._llm, self.max_tokens = open_llama_within_training_context(self.model_path, ctx, **opts)
        self.n_threads = n_threads or physical_cores()
        self._threads_now = self.n_threads  # what the context was opened with
        self.dim = int(self._llm.n_embd())
        if self._lean:
            self._embd_batch = EmbdBatch(self.max_tokens, self.dim)
            self._bos, self._eos = self._lean.bos, self._lean.eos
        else:
            model = self._llm._model
            self._bos = model.token_bos()
            eos = model.token_eos()
            self._eos = eos if eos >= 0 else model.token_sep()
        if self._bos < 0 or self._eos < 0:
            raise ModelError(f"{self.model_path}: model has no BOS/CLS or EOS/SEP token")
        if self._llm.pooling_type() == llama_cpp.LLAMA_POOLING_TYPE_NONE:
            raise ModelError(f"{self.model_path}: model has no pooling; not a sentence-embedding model")
        self.passage_overhead = len(self._content(self.passage_prefix)) + 2 if self.passage_prefix else 2

    # -- tokens ---------------------------------------------------------------------

    def _prep(self, text: str) -> str:
        return normalize_text(text) if self.normalize else text

    def _content(self, text: str) -> list[int]:
        if not text:
            return []
        if self._lean:
            text.encode("utf-8")  # the same error as llama.cpp's path on a lone surrogate
            return self._tokenizer.tokenize(text)
        return self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)

    def _frame(self, text: str) -> tuple[list[int], bool]:
        """[BOS] content [EOS], content cut so the whole fits the context."""
        ids = self._content(text)
        room = self.max_tokens - 2
        cut = len(ids) > room
        if cut:
            ids = ids[:room]
        return [self._bos, *ids, self._eos], cut

    def count_tokens(self, text: str) -> int:
        """Tokens the model sees for ``text`` as a passage (prefix and specials included).

        A passage fits without truncation iff this is <= ``max_tokens``.
        """
        return len(self._content(self.passage_prefix + self._prep(text))) + 2

    # -- embedding ------------------------------------------------------------------

    def _use_threads(self, n_tokens: int) -> None:
        want = decode_threads(n_tokens, self.n_threads)
        if want != self._threads_now:
            import llama_cpp

            llama_cpp.llama_set_n_threads(self._llm._ctx.ctx, want, want)
            self._threads_now = want

    def _run(self, seqs: list[list[int]]) -> np.ndarray:
        llm = self._llm
        self._use_threads(max(len(s) for s in seqs))
        out = np.empty((len(seqs), self.dim), dtype=np.float32)
        if self._lean:  # no vocabulary-sized output buffer to manage
            for i, seq in enumerate(seqs):
                out[i] = self._embd_batch.decode_pooled(llm._ctx, self._rows.get(seq))
            return _unit_rows(out)
        limit = self.max_tokens if self.pack_sequences else 0
        max_seqs = int(llm.context_params.n_seq_max) if self.pack_sequences else 1
        # One sequence per decode: longest first, so llama.cpp sizes its output
        # buffer once per call instead of re-allocating (and clearing) it at
        # every longer passage: 10 % less indexing time, the same vectors.
        order = list(range(len(seqs))) if self.pack_sequences else \
            sorted(range(len(seqs)), key=lambda i: -len(seqs[i]))
        for i, row in zip(order, decode_pooled(llm, [seqs[i] for i in order], self.dim, limit, max_seqs)):
            out[i] = row
        if max(len(s) for s in seqs) > KEEP_OUTPUT_ROWS:
            if self._holding:
                self._buffer_grown = True
            else:
                self._fresh_context()
        return _unit_rows(out)

    def _fresh_context(self) -> None:
        """Swap in a new llama.cpp context on the same model. A pooled decode
        marks every token as an output, and llama.cpp grows its output buffer
        to n_vocab floats per output and keeps it: after one 500-token passage
        that is 500 MB held for the life of the process. A new context costs
        ~3 ms and gives it back (ADR 0096)."""
        from llama_cpp import _internals

        llm = self._llm
        old = llm._ctx
        llm._ctx = _internals.LlamaContext(model=llm._model, params=llm.context_params, verbose=False)
        self._threads_now = self.n_threads
        old.close()

    @contextlib.contextmanager
    def holding_outputs(self) -> Iterator[None]:
        """Within: long decodes keep llama.cpp's output buffer, so an indexing
        run sizes it once instead of once per batch (7 % of the run's time);
        on leaving, a fresh context gives it back."""
        with self._lock:
            self._holding += 1
        try:
            yield
        finally:
            with self._lock:
                self._holding -= 1
                if not self._holding and self._buffer_grown:
                    self._buffer_grown = False
                    self._fresh_context()

    def output_rows(self) -> int:
        """Sequences one decode may hold; the output buffer is sized from it."""
        return int(self._llm.context_params.n_seq_max)

    def embed_texts(self, texts: Sequence[str], prefix: str = "") -> np.ndarray:
        """(n, dim) L2-normalised float32 for ``prefix + text`` (text normalised first)."""
        if isinstance(texts, str):
            raise TypeError("embed_texts takes a sequence of strings, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            seqs = []
            for t in texts:
                ids, cut = self._frame(prefix + self._prep(t))
                self.truncated += int(cut)
                seqs.append(ids)
            return self._run(seqs)

    def embed_raw(self, texts: Sequence[str]) -> np.ndarray:
        """Like embed_passages but with no family prefix (for benchmarks and comparisons)."""
        return self.embed_texts(texts, "")

    def embed_passages(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_texts(texts, self.passage_prefix)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_texts([text], self.query_prefix)[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_texts(texts, self.query_prefix)

    def close(self) -> None:
        llm = getattr(self, "_llm", None)
        if llm is not None:
            llm.close()
            self._llm = None
        if getattr(self, "_lean", None):
            self._embd_batch.close()
            self._rows.close()

    def __repr__(self) -> str:
        return f"LlamaEmbedder({self.model_id!r}, dim={self.dim}, max_tokens={self.max_tokens})"
