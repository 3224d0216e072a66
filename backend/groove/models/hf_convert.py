"""Hugging Face cross-encoder folder -> GGUF reranker for llama.cpp rank pooling.

Supported: ``BertForSequenceClassification`` (vocab.txt or a WordPiece
tokenizer.json) and ``XLMRobertaForSequenceClassification`` (a Unigram
tokenizer.json). Weights are read from model.safetensors with numpy; no torch.

What llama.cpp's BERT graph reads for rank pooling (llama-graph.cpp,
build_pooling): the [CLS] hidden state, then ``tanh(cls.weight @ x + cls.bias)``,
then ``cls.output.weight @ . + cls.output.bias``. HF names map as

  BERT:  bert.pooler.dense -> cls,  classifier -> cls.output
  XLM-R: classifier.dense  -> cls,  classifier.out_proj -> cls.output

llama.cpp's own converter drops ``pooler.dense`` for BERT, which silently
removes the tanh layer a BERT cross-encoder was trained with; we keep it.
Known limit: llama.cpp's BERT adds token-type row 0 to every token, so a
BERT pair's second segment loses its type-1 embedding (XLM-R has one type).
"""

from __future__ import annotations

import base64
import json
import os
import struct
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from groove.models import ModelError
from groove.models.e5_convert import gguf_writer

Progress = Callable[[str], None]

_ST_DTYPES = {
    "F32": np.float32, "F16": np.float16, "F64": np.float64,
    "I64": np.int64, "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_,
}


def read_safetensors(path: str | os.PathLike[str]) -> dict[str, np.ndarray]:
    """All tensors of a .safetensors file as numpy arrays (BF16 widened to float32).

    Format: 8-byte little-endian header length, a JSON header mapping names to
    dtype/shape/data_offsets (relative to the end of the header), raw bytes.
    """
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read {p}: {exc}") from exc
    if len(raw) < 8:
        raise ModelError(f"{p} is not a safetensors file (too short)")
    (n,) = struct.unpack_from("<Q", raw, 0)
    if n > len(raw) - 8:
        raise ModelError(f"{p} is not a safetensors file (bad header length)")
    try:
        header = json.loads(raw[8 : 8 + n])
    except ValueError as exc:
        raise ModelError(f"{p} is not a safetensors file (header is not JSON)") from exc
    base = 8 + n
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        buf = raw[base + start : base + end]
        dt = info["dtype"]
        if dt == "BF16":
            arr = (np.frombuffer(buf, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        elif dt in _ST_DTYPES:
            arr = np.frombuffer(buf, dtype=np.dtype(_ST_DTYPES[dt]).newbyteorder("<"))
        else:
            raise ModelError(f"{p}: tensor {name} has unsupported dtype {dt}")
        out[name] = arr.reshape(info["shape"])
    return out


def _load_json(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except ValueError as exc:
        raise ModelError(f"{path} is not valid JSON: {exc}") from exc


def _find_charsmap(normalizer: Any) -> bytes | None:
    if not isinstance(normalizer, dict):
        return None
    if normalizer.get("type") == "Precompiled" and normalizer.get("precompiled_charsmap"):
        return base64.b64decode(normalizer["precompiled_charsmap"])
    for sub in normalizer.get("normalizers") or []:
        found = _find_charsmap(sub)
        if found:
            return found
    return None


def _bert_vocab(d: Path) -> tuple[list[str], bool]:
    cfg = _load_json(d / "tokenizer_config.json")
    lower = bool(cfg.get("do_lower_case", True))
    vt = d / "vocab.txt"
    if vt.exists():
        lines = vt.read_text(encoding="utf-8").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        return lines, lower
    tj = _load_json(d / "tokenizer.json")
    model = tj.get("model") or {}
    if model.get("type") == "WordPiece" and isinstance(model.get("vocab"), dict):
        vocab = sorted(model["vocab"].items(), key=lambda kv: kv[1])
        norm = tj.get("normalizer") or {}
        if isinstance(norm, dict) and "lowercase" in norm:
            lower = bool(norm["lowercase"])
        return [t for t, _i in vocab], lower
    raise ModelError(f"{d}: no vocab.txt or WordPiece tokenizer.json for a BERT model")


def _write_bert_tokenizer(w: Any, gguf: Any, d: Path, config: dict[str, Any], n_rows: int) -> None:
    vocab, lower = _bert_vocab(d)
    specials = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}
    tokens: list[str] = []
    types: list[int] = []
    seen: set[str] = set()
    for i, tok in enumerate(vocab):
        if tok in specials or (tok.startswith("[unused") and tok.endswith("]")):
            text, ttype = tok, gguf.TokenType.CONTROL
        elif tok.startswith("##"):
            text, ttype = tok[2:], gguf.TokenType.NORMAL
        else:
            text, ttype = "\u2581" + tok, gguf.TokenType.NORMAL
        if text in seen:  # llama.cpp aborts on duplicate tokens; make the later one unreachable
            text, ttype = f"[dup {i}]", gguf.TokenType.UNUSED
        seen.add(text)
        tokens.append(text)
        types.append(int(ttype))
    for i in range(len(tokens), n_rows):  # embedding rows beyond the vocabulary
        tokens.append(f"[pad {i}]")
        types.append(int(gguf.TokenType.UNUSED))
    index = {t: i for i, t in enumerate(vocab)}
    for name in ("[CLS]", "[SEP]", "[UNK]"):
        if name not in index:
            raise ModelError(f"{d}: vocabulary has no {name} token")
    types[index["[UNK]"]] = int(gguf.TokenType.UNKNOWN)
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_bos_token_id(index["[CLS]"])
    w.add_uint32("tokenizer.ggml.cls_token_id", index["[CLS]"])
    w.add_sep_token_id(index["[SEP]"])
    w.add_unk_token_id(index["[UNK]"])
    if "[PAD]" in index:
        w.add_pad_token_id(index["[PAD]"])
    if "[MASK]" in index:
        w.add_mask_token_id(index["[MASK]"])
    w.add_add_bos_token(True)
    w.add_add_sep_token(False)  # else llama.cpp's own pair framing doubles [SEP]
    w.add_bool("tokenizer.ggml.normalizer.lowercase", lower)


def _write_unigram_tokenizer(w: Any, gguf: Any, d: Path, config: dict[str, Any], n_rows: int) -> None:
    tj = _load_json(d / "tokenizer.json")
    model = tj.get("model") or {}
    if model.get("type") != "Unigram":
        if (d / "sentencepiece.bpe.model").exists():
            raise ModelError(
                f"{d}: only tokenizer.json (Unigram) is supported; this folder has only "
                "sentencepiece.bpe.model. Save the tokenizer with transformers to get tokenizer.json."
            )
        raise ModelError(f"{d}: XLM-R model needs a Unigram tokenizer.json")
    pieces = model["vocab"]
    unk_id = int(model.get("unk_id", 3) or 3)
    special_ids = {int(t["id"]) for t in tj.get("added_tokens", []) if t.get("special")}
    tokens: list[bytes] = []
    scores: list[float] = []
    types: list[int] = []
    seen: set[bytes] = set()
    for i, (piece, score) in enumerate(pieces):
        text = piece.encode("utf-8")
        ttype = gguf.TokenType.NORMAL
        if i == unk_id:
            ttype = gguf.TokenType.UNKNOWN
        elif i in special_ids:
            ttype = gguf.TokenType.CONTROL
        if text in seen:
            text, ttype = f"[dup {i}]".encode(), gguf.TokenType.UNUSED
        seen.add(text)
        tokens.append(text)
        scores.append(float(score))
        types.append(int(ttype))
    for i in range(len(tokens), n_rows):
        tokens.append(f"[pad {i}]".encode())  # contains a space: no input can match it
        scores.append(-10000.0)
        types.append(int(gguf.TokenType.UNUSED))
    by_text = {t: i for i, t in enumerate(tokens)}
    bos = by_text.get(b"<s>", config.get("bos_token_id", 0))
    eos = by_text.get(b"</s>", config.get("eos_token_id", 2))
    w.add_tokenizer_model("t5")
    w.add_tokenizer_pre("default")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(int(bos))
    w.add_eos_token_id(int(eos))
    w.add_sep_token_id(int(eos))
    w.add_uint32("tokenizer.ggml.cls_token_id", int(bos))
    w.add_unk_token_id(unk_id)
    if b"<pad>" in by_text:
        w.add_pad_token_id(by_text[b"<pad>"])
    if b"<mask>" in by_text:
        w.add_mask_token_id(by_text[b"<mask>"])
    w.add_add_bos_token(True)
    w.add_add_eos_token(True)
    w.add_add_space_prefix(True)
    w.add_remove_extra_whitespaces(True)
    charsmap = _find_charsmap(tj.get("normalizer"))
    if charsmap:  # an empty one is rejected by llama.cpp, so only write a real table
        w.add_precompiled_charsmap(charsmap)


_LAYER_PARTS = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}


def convert_hf_cross_encoder(
    hf_dir: str | os.PathLike[str],
    out_path: str | os.PathLike[str],
    *,
    outtype: str = "f16",
    progress: Progress | None = None,
) -> Path:
    """Write a rank-pooling GGUF from a HF BERT/XLM-R sequence-classification folder."""
    import gguf

    say = progress or (lambda _m: None)
    d = Path(hf_dir).expanduser()
    out = Path(out_path).expanduser()
    if outtype not in ("f16", "f32"):
        raise ModelError(f"outtype must be f16 or f32, not {outtype!r}")
    config = _load_json(d / "config.json")
    if not config:
        raise ModelError(f"{d}: no config.json (is this a Hugging Face model folder?)")
    archs = config.get("architectures") or []
    model_type = config.get("model_type", "")
    if "BertForSequenceClassification" in archs or (model_type == "bert" and not archs):
        prefix, kind = "bert", "bert"
    elif "XLMRobertaForSequenceClassification" in archs or model_type == "xlm-roberta":
        prefix, kind = "roberta", "xlmr"
    else:
        raise ModelError(
            f"{d}: unsupported architecture {archs or model_type!r}; "
            "supported: BertForSequenceClassification, XLMRobertaForSequenceClassification"
        )
    st = d / "model.safetensors"
    if not st.exists():
        raise ModelError(f"{d}: no model.safetensors (pytorch_model.bin is not supported; no torch here)")
    t0 = time.monotonic()
    say(f"reading {st}")
    hf = read_safetensors(st)

    def get(name: str) -> np.ndarray:
        for key in (f"{prefix}.{name}", name):
            if key in hf:
                return np.asarray(hf[key], dtype=np.float32)
        raise ModelError(f"{st}: missing tensor {prefix}.{name}")

    if kind == "bert":
        head = ("pooler.dense", "classifier")
    else:
        head = ("classifier.dense", "classifier.out_proj")
    for name in head:
        if f"{name}.weight" not in hf and f"{prefix}.{name}.weight" not in hf:
            raise ModelError(f"{st}: no {name} weights; not a sequence-classification (cross-encoder) model")

    hidden = int(config["hidden_size"])
    n_layers = int(config["num_hidden_layers"])
    word = get("embeddings.word_embeddings.weight")
    pos = get("embeddings.position_embeddings.weight")
    if kind == "xlmr":
        offset = int(config.get("pad_token_id", 1)) + 1  # RoBERTa positions start after padding_idx
        pos = pos[offset:]
    types = get("embeddings.token_type_embeddings.weight")
    cls_out_w = get(f"{head[1]}.weight")
    n_cls_out = cls_out_w.shape[0]

    with gguf_writer(out, "bert", say) as w:
        w.add_name(d.name)
        w.add_file_type(int(gguf.LlamaFileType.MOSTLY_F16 if outtype == "f16" else gguf.LlamaFileType.ALL_F32))
        w.add_context_length(pos.shape[0])
        w.add_embedding_length(hidden)
        w.add_feed_forward_length(int(config["intermediate_size"]))
        w.add_block_count(n_layers)
        w.add_head_count(int(config["num_attention_heads"]))
        w.add_layer_norm_eps(float(config.get("layer_norm_eps", 1e-12)))
        w.add_causal_attention(False)
        w.add_pooling_type(gguf.PoolingType.RANK)
        w.add_token_type_count(types.shape[0])
        labels = config.get("id2label") or {}
        if n_cls_out > 1:
            w.add_classifier_output_labels([labels.get(str(i), f"LABEL_{i}") for i in range(n_cls_out)])
        if kind == "bert":
            _write_bert_tokenizer(w, gguf, d, config, word.shape[0])
        else:
            _write_unigram_tokenizer(w, gguf, d, config, word.shape[0])

        def mat(name: str, arr: np.ndarray) -> None:
            # 2-D weights in the requested precision; norms and biases stay f32 (as llama.cpp's converter does).
            if arr.ndim == 2 and outtype == "f16":
                w.add_tensor(name, np.ascontiguousarray(arr, dtype=np.float16))
            else:
                w.add_tensor(name, np.ascontiguousarray(arr, dtype=np.float32))

        mat("token_embd.weight", word)
        w.add_tensor("position_embd.weight", np.ascontiguousarray(pos, dtype=np.float32))
        w.add_tensor("token_types.weight", np.ascontiguousarray(types, dtype=np.float32))
        mat("token_embd_norm.weight", get("embeddings.LayerNorm.weight"))
        mat("token_embd_norm.bias", get("embeddings.LayerNorm.bias"))
        for i in range(n_layers):
            for part, dst in _LAYER_PARTS.items():
                for suffix in ("weight", "bias"):
                    mat(f"blk.{i}.{dst}.{suffix}", get(f"encoder.layer.{i}.{part}.{suffix}"))
        mat("cls.weight", get(f"{head[0]}.weight"))
        mat("cls.bias", get(f"{head[0]}.bias"))
        mat("cls.output.weight", cls_out_w)
        mat("cls.output.bias", get(f"{head[1]}.bias"))
    say(f"converted in {time.monotonic() - t0:.1f} s -> {out}")
    return out
