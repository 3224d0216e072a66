"""Tiny, real GGUF models for tests: llama.cpp loads and runs them in milliseconds.

- :func:`write_tiny_bert_embedder` — a 2-layer BERT (hidden 32) with mean
  pooling and a ~160-token WordPiece vocabulary covering common English words,
  every lowercase letter and digit (so any ASCII word tokenizes), and some
  Japanese characters. Load it with ``LlamaEmbedder(path, family=TINY_BERT_FAMILY)``.
- :func:`write_tiny_cross_encoder` — the same body plus a classification head,
  rank pooling: a reranker for ``LlamaReranker``.
- :func:`write_tiny_hf_cross_encoder` — a Hugging Face style directory
  (config.json, model.safetensors, tokenizer files) for the conversion route,
  and :func:`reference_cross_encoder_score`, a numpy forward pass of it.

Weights are seeded random numbers: the outputs mean nothing, but they are
deterministic and differ between texts.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from pathlib import Path

import numpy as np

TINY_BERT_FAMILY = "generic"  # no query/passage prefixes
TINY_BERT_DIM = 32
TINY_HIDDEN = 32
TINY_HEADS = 2
TINY_FFN = 64
TINY_LAYERS = 2
TINY_POSITIONS = 512

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
WORDS = (
    "the a an and or of to in on at for with from by is are was be it this that not no "
    "how what why when where who note notes search semantic vault markdown file files "
    "meeting meetings project projects python code model models sync coffee tea cat cats "
    "dog dogs garden plan work home day week idea ideas book books music travel japan "
    "tokyo run data index query test hello world link links tag tags daily journal recipe "
    "cooking bread"
).split()
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
DIGITS = [str(d) for d in range(10)]
PUNCT = list(".,!?-:#()/'\"")
KANJI = list("日本語東京会議猫犬茶料理")  # each CJK char is its own word for WordPiece
KANA = list("のはをにするまたとこれ")  # kana runs form words; no voiced kana (NFD strips the dakuten)


def tiny_wordpiece_vocab() -> list[str]:
    """The tiny model's vocabulary in Hugging Face vocab.txt spelling (``##`` continuations)."""
    vocab: list[str] = []
    seen: set[str] = set()

    def add(tok: str) -> None:
        if tok not in seen:  # llama.cpp aborts the process on a duplicate token
            seen.add(tok)
            vocab.append(tok)

    for tok in SPECIALS:
        add(tok)
    for tok in WORDS + LETTERS + DIGITS + PUNCT + KANJI + KANA:
        add(tok)
    for tok in LETTERS + DIGITS + KANA:
        add("##" + tok)
    return vocab


def _phantom(tok: str) -> str:
    """vocab.txt spelling -> llama.cpp's WPM spelling (word start carries U+2581)."""
    if tok in SPECIALS:
        return tok
    if tok.startswith("##"):
        return tok[2:]
    return "\u2581" + tok


# ----------------------------------------------------------------------------- weights


def _bert_weights(
    rng: np.random.Generator, vocab_size: int, positions: int, type_vocab: int, prefix: str = "bert"
) -> dict[str, np.ndarray]:
    """Random BERT encoder weights in Hugging Face naming (float32, torch layout)."""
    h, f = TINY_HIDDEN, TINY_FFN

    def mat(rows: int, cols: int, scale: float = 0.25) -> np.ndarray:
        return (rng.standard_normal((rows, cols)) * scale).astype(np.float32)

    def vec(n: int, scale: float = 0.05) -> np.ndarray:
        return (rng.standard_normal(n) * scale).astype(np.float32)

    def ln(name: str) -> None:
        w[f"{name}.weight"] = (1.0 + rng.standard_normal(h) * 0.05).astype(np.float32)
        w[f"{name}.bias"] = vec(h)

    w: dict[str, np.ndarray] = {}
    e = f"{prefix}.embeddings"
    w[f"{e}.word_embeddings.weight"] = mat(vocab_size, h, 0.5)
    w[f"{e}.position_embeddings.weight"] = mat(positions, h, 0.1)
    w[f"{e}.token_type_embeddings.weight"] = mat(type_vocab, h, 0.1)
    ln(f"{e}.LayerNorm")
    for i in range(TINY_LAYERS):
        p = f"{prefix}.encoder.layer.{i}"
        for part in ("query", "key", "value"):
            w[f"{p}.attention.self.{part}.weight"] = mat(h, h)
            w[f"{p}.attention.self.{part}.bias"] = vec(h)
        w[f"{p}.attention.output.dense.weight"] = mat(h, h)
        w[f"{p}.attention.output.dense.bias"] = vec(h)
        ln(f"{p}.attention.output.LayerNorm")
        w[f"{p}.intermediate.dense.weight"] = mat(f, h)
        w[f"{p}.intermediate.dense.bias"] = vec(f)
        w[f"{p}.output.dense.weight"] = mat(h, f)
        w[f"{p}.output.dense.bias"] = vec(h)
        ln(f"{p}.output.LayerNorm")
    return w


def _gguf_bert_tensors(w: dict[str, np.ndarray], prefix: str = "bert") -> dict[str, np.ndarray]:
    """HF BERT names -> llama.cpp bert names (kept here, independent of hf_convert)."""
    e = f"{prefix}.embeddings"
    out = {
        "token_embd.weight": w[f"{e}.word_embeddings.weight"],
        "position_embd.weight": w[f"{e}.position_embeddings.weight"],
        "token_types.weight": w[f"{e}.token_type_embeddings.weight"],
        "token_embd_norm.weight": w[f"{e}.LayerNorm.weight"],
        "token_embd_norm.bias": w[f"{e}.LayerNorm.bias"],
    }
    parts = {
        "attention.self.query": "attn_q",
        "attention.self.key": "attn_k",
        "attention.self.value": "attn_v",
        "attention.output.dense": "attn_output",
        "attention.output.LayerNorm": "attn_output_norm",
        "intermediate.dense": "ffn_up",
        "output.dense": "ffn_down",
        "output.LayerNorm": "layer_output_norm",
    }
    for i in range(TINY_LAYERS):
        for hf, gg in parts.items():
            for kind in ("weight", "bias"):
                out[f"blk.{i}.{gg}.{kind}"] = w[f"{prefix}.encoder.layer.{i}.{hf}.{kind}"]
    return out


def _write_tiny_gguf(path: Path, seed: int, rank: bool) -> Path:
    import gguf

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    vocab = tiny_wordpiece_vocab()
    rng = np.random.default_rng(seed)
    tensors = _gguf_bert_tensors(_bert_weights(rng, len(vocab), TINY_POSITIONS, 2))
    if rank:
        tensors["cls.weight"] = (rng.standard_normal((TINY_HIDDEN, TINY_HIDDEN)) * 0.3).astype(np.float32)
        tensors["cls.bias"] = (rng.standard_normal(TINY_HIDDEN) * 0.05).astype(np.float32)
        tensors["cls.output.weight"] = (rng.standard_normal((1, TINY_HIDDEN)) * 0.5).astype(np.float32)
        tensors["cls.output.bias"] = np.zeros(1, dtype=np.float32)

    w = gguf.GGUFWriter(str(path), "bert")
    w.add_name("tiny-bert-cross-encoder" if rank else "tiny-bert-embedder")
    w.add_context_length(TINY_POSITIONS)
    w.add_embedding_length(TINY_HIDDEN)
    w.add_feed_forward_length(TINY_FFN)
    w.add_block_count(TINY_LAYERS)
    w.add_head_count(TINY_HEADS)
    w.add_layer_norm_eps(1e-12)
    w.add_causal_attention(False)
    w.add_pooling_type(gguf.PoolingType.RANK if rank else gguf.PoolingType.MEAN)
    w.add_file_type(int(gguf.LlamaFileType.ALL_F32))
    w.add_tokenizer_model("bert")
    w.add_tokenizer_pre("default")
    w.add_token_list([_phantom(t) for t in vocab])
    types = [gguf.TokenType.CONTROL if t in SPECIALS else gguf.TokenType.NORMAL for t in vocab]
    types[vocab.index("[UNK]")] = gguf.TokenType.UNKNOWN
    w.add_token_types([int(t) for t in types])
    w.add_token_type_count(2)
    w.add_bos_token_id(vocab.index("[CLS]"))
    w.add_uint32("tokenizer.ggml.cls_token_id", vocab.index("[CLS]"))
    w.add_sep_token_id(vocab.index("[SEP]"))
    w.add_unk_token_id(vocab.index("[UNK]"))
    w.add_pad_token_id(vocab.index("[PAD]"))
    w.add_mask_token_id(vocab.index("[MASK]"))
    w.add_add_bos_token(True)
    w.add_add_sep_token(False)  # else llama.cpp pairs get a doubled [SEP]
    for name, arr in tensors.items():
        w.add_tensor(name, np.ascontiguousarray(arr, dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return path


def write_tiny_bert_embedder(path: str | Path, seed: int = 0) -> Path:
    """A tiny mean-pooling BERT GGUF (~170 KB, written in well under a second)."""
    return _write_tiny_gguf(Path(path), seed, rank=False)


def write_tiny_cross_encoder(path: str | Path, seed: int = 1) -> Path:
    """A tiny BERT cross-encoder GGUF with rank pooling (one score per pair)."""
    return _write_tiny_gguf(Path(path), seed, rank=True)


# ----------------------------------------------------------------------------- HF dirs

XLMR_PIECES_SPECIAL = ["<s>", "<pad>", "</s>", "<unk>"]


def tiny_unigram_vocab() -> list[tuple[str, float]]:
    """A SentencePiece-unigram vocabulary (XLM-R id layout: <s>, <pad>, </s>, <unk>, ..., <mask>)."""
    pieces: list[tuple[str, float]] = [(p, 0.0) for p in XLMR_PIECES_SPECIAL]
    seen = {p for p, _ in pieces}
    score = -2.0
    for word in WORDS:  # whole words score better than spelling them out
        pieces.append(("\u2581" + word, score))
        seen.add("\u2581" + word)
        score -= 0.01
    for ch in LETTERS + DIGITS + PUNCT + KANJI + KANA + ["\u2581"]:
        for piece in (ch, "\u2581" + ch):
            if piece not in seen:
                seen.add(piece)
                pieces.append((piece, -8.0))
    pieces.append(("<mask>", 0.0))
    return pieces


def _write_safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    offset = 0
    blobs = []
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr, dtype=np.float32).tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as fh:
        fh.write(struct.pack("<Q", len(raw)))
        fh.write(raw)
        for b in blobs:
            fh.write(b)


def write_tiny_hf_cross_encoder(directory: str | Path, arch: str = "bert", seed: int = 2) -> Path:
    """A Hugging Face cross-encoder folder with random weights.

    ``arch="bert"``: BertForSequenceClassification (pooler + classifier, vocab.txt).
    ``arch="xlm-roberta"``: XLMRobertaForSequenceClassification (classifier.dense +
    classifier.out_proj, tokenizer.json with a Unigram model, positions offset by 2).
    """
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    h = TINY_HIDDEN
    common = {
        "hidden_size": h,
        "num_hidden_layers": TINY_LAYERS,
        "num_attention_heads": TINY_HEADS,
        "intermediate_size": TINY_FFN,
        "hidden_act": "gelu",
        "id2label": {"0": "LABEL_0"},
        "label2id": {"LABEL_0": 0},
    }
    if arch == "bert":
        vocab = tiny_wordpiece_vocab()
        w = _bert_weights(rng, len(vocab), TINY_POSITIONS, 2, prefix="bert")
        w["bert.pooler.dense.weight"] = (rng.standard_normal((h, h)) * 0.3).astype(np.float32)
        w["bert.pooler.dense.bias"] = (rng.standard_normal(h) * 0.05).astype(np.float32)
        w["classifier.weight"] = (rng.standard_normal((1, h)) * 0.5).astype(np.float32)
        w["classifier.bias"] = np.array([0.1], dtype=np.float32)
        config = {
            **common,
            "architectures": ["BertForSequenceClassification"],
            "model_type": "bert",
            "vocab_size": len(vocab),
            "max_position_embeddings": TINY_POSITIONS,
            "type_vocab_size": 2,
            "layer_norm_eps": 1e-12,
            "pad_token_id": 0,
        }
        (d / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
        (d / "tokenizer_config.json").write_text(
            json.dumps({"tokenizer_class": "BertTokenizer", "do_lower_case": True}), encoding="utf-8"
        )
    elif arch in ("xlm-roberta", "xlmr", "roberta"):
        pieces = tiny_unigram_vocab()
        w = _bert_weights(rng, len(pieces), TINY_POSITIONS + 2, 1, prefix="roberta")
        w["classifier.dense.weight"] = (rng.standard_normal((h, h)) * 0.3).astype(np.float32)
        w["classifier.dense.bias"] = (rng.standard_normal(h) * 0.05).astype(np.float32)
        w["classifier.out_proj.weight"] = (rng.standard_normal((1, h)) * 0.5).astype(np.float32)
        w["classifier.out_proj.bias"] = np.array([-0.1], dtype=np.float32)
        config = {
            **common,
            "architectures": ["XLMRobertaForSequenceClassification"],
            "model_type": "xlm-roberta",
            "vocab_size": len(pieces),
            "max_position_embeddings": TINY_POSITIONS + 2,
            "type_vocab_size": 1,
            "layer_norm_eps": 1e-5,
            "pad_token_id": 1,
            "bos_token_id": 0,
            "eos_token_id": 2,
        }
        tokenizer = {
            "version": "1.0",
            "added_tokens": [
                {"id": i, "content": p, "special": True}
                for i, (p, _s) in enumerate(pieces)
                if p in XLMR_PIECES_SPECIAL or p == "<mask>"
            ],
            "normalizer": None,
            "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always"},
            "model": {"type": "Unigram", "unk_id": 3, "vocab": [[p, s] for p, s in pieces]},
        }
        (d / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")
        (d / "tokenizer_config.json").write_text(
            json.dumps({"tokenizer_class": "XLMRobertaTokenizer"}), encoding="utf-8"
        )
    else:
        raise ValueError(f"unknown arch {arch!r}")
    (d / "config.json").write_text(json.dumps(config, indent=1), encoding="utf-8")
    _write_safetensors(d / "model.safetensors", w)
    return d


# ----------------------------------------------------------------------------- reference


def _layernorm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def _gelu(x: np.ndarray) -> np.ndarray:
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def reference_tokenize(directory: str | Path, text: str) -> list[int]:
    """Whole-word lookup for texts made only of vocabulary words (no subword fallback)."""
    d = Path(directory)
    config = json.loads((d / "config.json").read_text())
    if config["model_type"] == "bert":
        vocab = {t: i for i, t in enumerate((d / "vocab.txt").read_text(encoding="utf-8").split("\n"))}
        return [vocab[word] for word in text.lower().split()]
    tok = json.loads((d / "tokenizer.json").read_text(encoding="utf-8"))
    vocab = {p: i for i, (p, _s) in enumerate(tok["model"]["vocab"])}
    return [vocab["\u2581" + word] for word in text.split()]


def reference_cross_encoder_score(
    directory: str | Path, query: str, passage: str, *, with_pooler: bool = True
) -> float:
    """Score one pair with a float64 numpy forward pass of the HF weights.

    Token-type ids are all 0, as llama.cpp's BERT graph hard-codes (a real
    BERT tokenizer would give the passage type 1; see ADR 0023).
    """
    from groove.models.hf_convert import read_safetensors

    d = Path(directory)
    config = json.loads((d / "config.json").read_text())
    w = {k: v.astype(np.float64) for k, v in read_safetensors(d / "model.safetensors").items()}
    q, p = reference_tokenize(d, query), reference_tokenize(d, passage)
    if config["model_type"] == "bert":
        pre, ids = "bert", [2] + q + [3] + p + [3]  # [CLS] q [SEP] p [SEP]
        pos0 = 0
    else:
        pre, ids = "roberta", [0] + q + [2, 2] + p + [2]  # <s> q </s></s> p </s>
        pos0 = config["pad_token_id"] + 1
    eps = config["layer_norm_eps"]
    n = len(ids)
    e = f"{pre}.embeddings"
    x = (
        w[f"{e}.word_embeddings.weight"][ids]
        + w[f"{e}.position_embeddings.weight"][pos0 : pos0 + n]
        + w[f"{e}.token_type_embeddings.weight"][0]
    )
    x = _layernorm(x, w[f"{e}.LayerNorm.weight"], w[f"{e}.LayerNorm.bias"], eps)
    heads = config["num_attention_heads"]
    hd = config["hidden_size"] // heads

    def lin(name: str, v: np.ndarray) -> np.ndarray:
        return v @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    for i in range(config["num_hidden_layers"]):
        L = f"{pre}.encoder.layer.{i}"
        qh = lin(f"{L}.attention.self.query", x).reshape(n, heads, hd).transpose(1, 0, 2)
        kh = lin(f"{L}.attention.self.key", x).reshape(n, heads, hd).transpose(1, 0, 2)
        vh = lin(f"{L}.attention.self.value", x).reshape(n, heads, hd).transpose(1, 0, 2)
        att = qh @ kh.transpose(0, 2, 1) / math.sqrt(hd)
        att = np.exp(att - att.max(-1, keepdims=True))
        att /= att.sum(-1, keepdims=True)
        ctx = (att @ vh).transpose(1, 0, 2).reshape(n, -1)
        x = _layernorm(
            x + lin(f"{L}.attention.output.dense", ctx),
            w[f"{L}.attention.output.LayerNorm.weight"], w[f"{L}.attention.output.LayerNorm.bias"], eps,
        )
        ff = lin(f"{L}.output.dense", _gelu(lin(f"{L}.intermediate.dense", x)))
        x = _layernorm(x + ff, w[f"{L}.output.LayerNorm.weight"], w[f"{L}.output.LayerNorm.bias"], eps)
    cls = x[0]
    if pre == "bert":
        pooled = np.tanh(lin("bert.pooler.dense", cls)) if with_pooler else cls
        return float(lin("classifier", pooled)[0])
    pooled = np.tanh(lin("classifier.dense", cls))
    return float(lin("classifier.out_proj", pooled)[0])


def reference_cross_encoder_scores(
    directory: str | Path, query: str, passages: Sequence[str], *, with_pooler: bool = True
) -> list[float]:
    return [reference_cross_encoder_score(directory, query, p, with_pooler=with_pooler) for p in passages]
