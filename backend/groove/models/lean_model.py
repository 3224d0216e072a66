"""A sentence-embedding GGUF run without llama.cpp holding its vocabulary (ADR 0125).

With e5's 250,037-token vocabulary llama.cpp costs two things an embedder
never uses: 126 MB for the tokenizer's trie, and an output buffer of n_vocab
floats per token of every pooled decode (500 MB for one 512-token passage).

So groove derives, once per model file, a *lean* copy: the same GGUF without
the tokenizer keys, with ``<arch>.vocab_size = 1`` and a one-row stand-in for
the token-embedding matrix. Text is tokenized by :mod:`ugm_tokenizer`, each
token's row is read from the original file and de-quantized here, and the
rows go to llama.cpp as input embeddings, which the BERT graph adds position
and type embeddings to exactly as it does for token ids. The vectors are bit
for bit those of the full model (a test pins it).

Only what has been checked qualifies (``lean_parts`` says why not, and the
embedder then loads the full model): the ``bert`` architecture, a unigram
vocabulary ``ugm_tokenizer`` supports, and token embeddings in F32, F16,
Q8_0 or Q4_0.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import os
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from groove.models import ModelError
from groove.models import gguf_file as gf
from groove.models.ugm_tokenizer import UgmTokenizer, UgmVocab, unsupported_reason, write_tables

LEAN_VERSION = 1  # bump when the files written here change
ARCHES = {"bert"}  # graphs checked to treat input embeddings as gathered token rows
TOKENIZER_ARRAYS = frozenset({"tokenizer.ggml.tokens", "tokenizer.ggml.scores", "tokenizer.ggml.token_type"})
ENV_OFF = "GROOVE_LEAN_MODEL"


def lean_enabled() -> bool:
    """``GROOVE_LEAN_MODEL=0`` makes every embedder load the full model."""
    return os.environ.get(ENV_OFF, "1").strip().lower() not in ("0", "false", "no", "off")


@dataclass(frozen=True)
class LeanParts:
    """Files derived from one model file, and where its token rows live."""

    folder: Path
    gguf: Path  # the model without its vocabulary
    source: Path  # the original GGUF: token rows are read from it
    rows_offset: int  # file offset of the token-embedding matrix
    row_type: int  # its ggml type
    n_rows: int
    dim: int
    bos: int
    eos: int

    def tokenizer(self) -> UgmTokenizer:
        return UgmTokenizer.load(self.folder)


def _cache_root() -> Path:
    from groove.paths import models_dir

    return models_dir() / "lean"


def _key(source: Path) -> str:
    st = source.stat()
    ident = f"{LEAN_VERSION}\0{source.resolve()}\0{st.st_size}\0{st.st_mtime_ns}"
    return hashlib.sha256(ident.encode()).hexdigest()[:20]


def why_not_lean(h: gf.Header) -> str | None:
    """Why this model cannot run lean (None: it can)."""
    v = h.values
    arch = str(v.get("general.architecture", ""))
    if arch not in ARCHES:
        return f"architecture {arch!r} is not one checked for input embeddings"
    if v.get("tokenizer.ggml.model") != "t5":
        return "the tokenizer is not a SentencePiece unigram (t5)"
    emb = h.tensor("token_embd.weight")
    if emb is None or len(emb.dims) != 2 or emb.type not in gf.BLOCKS or emb.type == 30:
        return "token embeddings are missing or in a type groove does not de-quantize"
    for key in ("tokenizer.ggml.bos_token_id", "tokenizer.ggml.unknown_token_id"):
        if key not in v:
            return f"{key} is missing"
    return None


def _vocab(h: gf.Header) -> UgmVocab:
    v = h.values
    return UgmVocab(
        pieces=v["tokenizer.ggml.tokens"],
        scores=np.asarray(v["tokenizer.ggml.scores"], dtype=np.float32),
        types=np.asarray(v["tokenizer.ggml.token_type"], dtype=np.int32),
        unk_id=int(v["tokenizer.ggml.unknown_token_id"]),
        add_space_prefix=bool(v.get("tokenizer.ggml.add_space_prefix", True)),
        remove_extra_whitespaces=bool(v.get("tokenizer.ggml.remove_extra_whitespaces", True)),
        escape_whitespaces=bool(v.get("tokenizer.ggml.escape_whitespaces", True)),
        treat_whitespace_as_suffix=bool(v.get("tokenizer.ggml.treat_whitespace_as_suffix", False)),
        has_charsmap="tokenizer.ggml.precompiled_charsmap" in v,
    )


_build_lock = threading.Lock()


def lean_parts(source: str | os.PathLike[str]) -> tuple[LeanParts | None, str]:
    """The lean files for ``source``, derived on first use (half a second
    for e5); or (None, why not). A failure to derive them is a reason, never
    an error: the caller loads the full model."""
    if not lean_enabled():
        return None, f"{ENV_OFF}=0"
    src = Path(source).expanduser().resolve()
    try:
        folder = _cache_root() / _key(src)
        meta_path = folder / "lean.json"
        refused = folder.with_suffix(".not-lean")
        if refused.is_file():  # decided once per model file
            return None, refused.read_text(encoding="utf-8")
        if not _complete(folder):
            with _build_lock:
                if not _complete(folder):
                    shutil.rmtree(folder, ignore_errors=True)  # a damaged copy is derived again
                    why = _build(src, folder)
                    if why:
                        refused.parent.mkdir(parents=True, exist_ok=True)
                        refused.write_text(why, encoding="utf-8")
                        return None, why
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        return LeanParts(folder=folder, gguf=folder / "model.gguf", source=src, **meta), ""
    except (OSError, ValueError, KeyError, ModelError) as exc:
        return None, f"could not prepare the lean model: {exc}"


def discard(parts: LeanParts) -> None:
    """Remove a lean copy found unusable: the next load derives it again."""
    shutil.rmtree(parts.folder, ignore_errors=True)


FILES = ("lean.json", "model.gguf", "vocab.marisa", "vocab.npz")


def _complete(folder: Path) -> bool:
    return all((folder / name).is_file() for name in FILES)


def _build(src: Path, folder: Path) -> str | None:
    h = gf.read_header(src, keep_arrays=TOKENIZER_ARRAYS)
    why = why_not_lean(h)
    vocab = None if why else _vocab(h)
    if vocab is not None:
        why = unsupported_reason(vocab)
    if why:
        return why
    assert vocab is not None
    emb = h.tensor("token_embd.weight")
    assert emb is not None
    dim, n_rows = emb.dims
    arch = h.values["general.architecture"]
    folder.parent.mkdir(parents=True, exist_ok=True)
    for stale in folder.parent.glob(".*.tmp"):  # left by a killed build
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > 3600:
                shutil.rmtree(stale, ignore_errors=True)
    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        write_tables(vocab, tmp)
        drop = {k for k in h.values if k.startswith("tokenizer.ggml.") and k != "tokenizer.ggml.token_type_count"}
        drop.add(f"{arch}.vocab_size")
        gf.write_copy(
            h, tmp / "model.gguf", drop_keys=drop,
            add_kv=[gf.encode_kv("tokenizer.ggml.model", gf.STRING, "none"),
                    gf.encode_kv(f"{arch}.vocab_size", gf.UINT32, 1)],
            # llama.cpp still wants the tensor; one row of zeros, never read
            replace_tensors={"token_embd.weight": ([dim, 1], 0, bytes(4 * dim))},
        )
        eos = h.values.get("tokenizer.ggml.eos_token_id", h.values.get("tokenizer.ggml.seperator_token_id", -1))
        meta = dict(rows_offset=h.data_start + emb.offset, row_type=emb.type, n_rows=n_rows, dim=dim,
                    bos=int(h.values["tokenizer.ggml.bos_token_id"]), eos=int(eos))
        (tmp / "lean.json").write_text(json.dumps(meta), encoding="utf-8")
        try:
            os.replace(tmp, folder)
        except OSError:  # another process got there first: theirs is the same
            if not (folder / "lean.json").is_file():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return None


class TokenRows:
    """Rows of the token-embedding matrix, read from the model file on demand
    (read, not mapped: a mapping would leave every row ever used resident)."""

    def __init__(self, parts: LeanParts) -> None:
        per_block, block_bytes = gf.BLOCKS[parts.row_type]
        self.dim, self.type, self.n_rows = parts.dim, parts.row_type, parts.n_rows
        self.row_bytes = parts.dim // per_block * block_bytes
        self._offset = parts.rows_offset
        self._fh = open(parts.source, "rb")  # noqa: SIM115 - held for the embedder's life
        self._lock = threading.Lock()

    def get(self, ids: list[int]) -> np.ndarray:
        """(len(ids), dim) float32, de-quantized as ggml's get_rows does."""
        uniq = sorted(set(ids))
        if uniq and not (0 <= uniq[0] and uniq[-1] < self.n_rows):
            raise ModelError(f"token id out of range 0..{self.n_rows - 1}")
        raw = np.empty((len(uniq), self.row_bytes), dtype=np.uint8)
        with self._lock:
            for k, tid in enumerate(uniq):
                self._fh.seek(self._offset + tid * self.row_bytes)
                raw[k] = np.frombuffer(self._fh.read(self.row_bytes), dtype=np.uint8)
        table = _dequantize(raw, self.type, self.dim)
        where = {tid: k for k, tid in enumerate(uniq)}
        return table[[where[t] for t in ids]]

    def close(self) -> None:
        self._fh.close()


def _dequantize(raw: np.ndarray, ggml_type: int, dim: int) -> np.ndarray:
    n = raw.shape[0]
    if ggml_type == 0:
        return raw.view("<f4").reshape(n, dim).astype(np.float32)
    if ggml_type == 1:
        return raw.view("<f2").reshape(n, dim).astype(np.float32)
    per_block, block_bytes = gf.BLOCKS[ggml_type]
    blocks = raw.reshape(n, dim // per_block, block_bytes)
    scale = blocks[:, :, :2].copy().view("<f2").astype(np.float32)  # (n, blocks, 1)
    if ggml_type == 8:  # Q8_0: d * q
        q = blocks[:, :, 2:].copy().view(np.int8).astype(np.float32)
    else:  # Q4_0: low nibbles are the block's first half, high nibbles its second; value - 8
        qs = blocks[:, :, 2:]
        q = np.concatenate([(qs & 0x0F).astype(np.int8) - 8, (qs >> 4).astype(np.int8) - 8], axis=2).astype(np.float32)
    return (q * scale).reshape(n, dim)  # one float32 product per weight, as ggml


class EmbdBatch:
    """A llama_batch that carries input embeddings instead of token ids."""

    def __init__(self, capacity: int, dim: int) -> None:
        import llama_cpp as lc

        self._lc = lc
        self.capacity, self.dim = capacity, dim
        self.batch = lc.llama_batch_init(capacity, dim, 1)
        self._embd = np.ctypeslib.as_array(self.batch.embd, shape=(capacity * dim,))

    def decode_pooled(self, ctx: Any, rows: np.ndarray) -> np.ndarray:
        """One sequence through the model; its pooled output (``dim`` floats).
        ``ctx`` is llama_cpp's context object (the package ships no types)."""
        lc, b = self._lc, self.batch
        n = rows.shape[0]
        if n > self.capacity:
            raise ModelError(f"{n} tokens do not fit a context of {self.capacity}")
        self._embd[: n * self.dim] = rows.reshape(-1)
        for i in range(n):
            b.pos[i] = i
            b.n_seq_id[i] = 1
            b.seq_id[i][0] = 0
            b.logits[i] = 1
        b.n_tokens = n
        ctx.kv_cache_clear()
        rc = lc.llama_decode(ctx.ctx, b)
        if rc != 0:
            raise ModelError(f"llama.cpp could not decode ({rc})")
        ptr = lc.llama_get_embeddings_seq(ctx.ctx, 0)
        if not ptr:
            raise ModelError("llama.cpp returned no pooled output")
        return np.ctypeslib.as_array(ctypes.cast(ptr, ctypes.POINTER(ctypes.c_float)), shape=(self.dim,)).copy()

    def close(self) -> None:
        if self.batch is not None:
            self._lc.llama_batch_free(self.batch)
            self.batch = None
