"""LlamaEmbedder on the tiny BERT GGUF: llama.cpp really runs it."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from groove.models import ModelError
from groove.models.llama_embedder import EmbedderTuning, LlamaEmbedder, file_sha256
from tinymodels import TINY_BERT_DIM, TINY_BERT_FAMILY, write_tiny_bert_embedder

TEXTS = ["hello world", "the cat and the dog", "東京の会議", "python code for the search index", "tea"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    path = write_tiny_bert_embedder(tmp_path_factory.mktemp("m") / "tiny-bert.gguf")
    emb = LlamaEmbedder(path, family=TINY_BERT_FAMILY, max_tokens=64)
    yield emb
    emb.close()


def test_passage_embeddings_are_unit_length(tiny):
    v = tiny.embed_passages(TEXTS)
    assert v.shape == (len(TEXTS), TINY_BERT_DIM) and v.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    q = tiny.embed_query("hello world")
    assert q.shape == (TINY_BERT_DIM,) and abs(float(np.linalg.norm(q)) - 1) < 1e-5
    # Different texts give different vectors; the same text gives the same vector.
    assert float(v[0] @ v[1]) < 0.999
    np.testing.assert_allclose(q, v[0], atol=1e-5)


def test_long_passage_is_truncated_not_crashed(tiny):
    long = "notes about the project " * 500
    assert tiny.count_tokens(long) > tiny.max_tokens
    before = tiny.truncated
    v = tiny.embed_passages([long, "hello world"])
    assert np.isfinite(v).all() and tiny.truncated == before + 1
    # Truncation keeps the first max_tokens - 2 content tokens: extra tail text changes nothing.
    np.testing.assert_allclose(v[0], tiny.embed_passages([long + " cat dog tea"])[0], atol=1e-6)


def test_batched_embeddings_equal_one_at_a_time(tiny_model_path):
    one = LlamaEmbedder(tiny_model_path, max_tokens=64)
    packed = LlamaEmbedder(tiny_model_path, max_tokens=64, tuning=EmbedderTuning(pack_sequences=True))
    try:
        singles = np.stack([one.embed_passages([t])[0] for t in TEXTS])
        np.testing.assert_allclose(one.embed_passages(TEXTS), singles, atol=1e-5)
        np.testing.assert_allclose(packed.embed_passages(TEXTS * 3), np.vstack([singles] * 3), atol=1e-4)
    finally:
        one.close()
        packed.close()


def test_query_and_passage_prefixes_follow_the_family(tiny_model_path):
    e5 = LlamaEmbedder(tiny_model_path, family="e5", max_tokens=64)
    try:
        raw = e5.embed_raw(["query: the cat", "passage: the cat", "the cat"])
        np.testing.assert_allclose(e5.embed_query("the cat"), raw[0], atol=1e-6)
        np.testing.assert_allclose(e5.embed_passages(["the cat"])[0], raw[1], atol=1e-6)
        assert float(raw[0] @ raw[2]) < 0.9999
        assert e5.count_tokens("the cat") == len(e5._content("passage: the cat")) + 2
    finally:
        e5.close()
    with pytest.raises(ValueError, match="unknown model family"):
        LlamaEmbedder(tiny_model_path, family="nope")


def test_text_is_normalised_the_same_way_for_passages_and_queries(tiny):
    messy = "  ＨＥＬＬＯ\t\n　world  "  # full-width letters, tab, newline, ideographic space
    v = tiny.embed_passages([messy, "HELLO world"])
    np.testing.assert_allclose(v[0], v[1], atol=1e-6)
    np.testing.assert_allclose(tiny.embed_query(messy), v[1], atol=1e-6)


def test_tiny_vocabulary_really_tokenizes_english_and_japanese(tiny):
    unk = 1
    for text in ["the cat and the dog", "東京の会議", "python code", "zebra 42"]:
        ids = tiny._content(text)
        assert ids and unk not in ids, (text, ids)


def test_empty_batch_gives_an_empty_matrix(tiny):
    assert tiny.embed_passages([]).shape == (0, TINY_BERT_DIM)
    assert np.isfinite(tiny.embed_passages([""])).all()


def test_missing_or_corrupt_model_raises_model_error_naming_the_path(tmp_path):
    missing = tmp_path / "nope.gguf"
    with pytest.raises(ModelError, match="nope.gguf"):
        LlamaEmbedder(missing)
    junk = tmp_path / "junk.gguf"
    junk.write_bytes(b"not a model at all" * 10)
    with pytest.raises(ModelError, match="junk.gguf"):
        LlamaEmbedder(junk)
    truncated = tmp_path / "cut.gguf"
    good = write_tiny_bert_embedder(tmp_path / "good.gguf").read_bytes()
    truncated.write_bytes(good[: len(good) // 2])
    with pytest.raises(ModelError, match="cut.gguf"):
        LlamaEmbedder(truncated)


def test_file_sha256_matches_hashlib_and_follows_content(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"abc" * 1000)
    assert file_sha256(p) == hashlib.sha256(b"abc" * 1000).hexdigest()
    p.write_bytes(b"different and longer" * 100)
    assert file_sha256(p) == hashlib.sha256(b"different and longer" * 100).hexdigest()


def test_tiny_model_is_written_fast_and_small(tmp_path):
    import time

    t0 = time.perf_counter()
    p = write_tiny_bert_embedder(tmp_path / "t.gguf")
    assert time.perf_counter() - t0 < 2.0
    assert p.stat().st_size < 400_000
