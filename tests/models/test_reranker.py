"""LlamaReranker (rank pooling) and the HF cross-encoder -> GGUF conversion."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from groove.models import ModelError
from groove.models.hf_convert import convert_hf_cross_encoder, read_safetensors
from groove.models.reranker import LlamaReranker
from tinymodels import (
    reference_cross_encoder_scores,
    tiny_wordpiece_vocab,
    write_tiny_bert_embedder,
    write_tiny_cross_encoder,
    write_tiny_hf_cross_encoder,
)

QUERY = "cat"
PASSAGES = [
    "the cat and the dog",
    "python code for the search index",
    "tea and coffee in tokyo",
    "cats and dogs in the garden",
    "hello world",
    "notes on the project plan",
]


@pytest.fixture(scope="module")
def tiny_reranker(tmp_path_factory):
    r = LlamaReranker(write_tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "tiny-ce.gguf"), max_tokens=128)
    yield r
    r.close()


def test_reranker_scores_with_rank_pooling(tiny_reranker):
    scores = tiny_reranker.score_pairs(QUERY, PASSAGES)
    assert len(scores) == len(PASSAGES) and all(np.isfinite(scores))
    assert len({round(s, 5) for s in scores}) == len(scores)  # one real score per pair, not a copied vector
    # Several pairs share a decode; each must score as if it were alone.
    singles = [tiny_reranker.score_pairs(QUERY, [p])[0] for p in PASSAGES]
    np.testing.assert_allclose(scores, singles, atol=2e-3)  # packed decodes round a little differently
    assert tiny_reranker.score_pairs(QUERY, []) == []


def test_pairs_are_framed_like_the_llama_server(tiny_reranker):
    vocab = tiny_wordpiece_vocab()
    ids, cut = tiny_reranker._pair(tiny_reranker._tokens("cat"), "the dog")
    assert not cut and tiny_reranker.pair_format == "bert"
    words = [vocab[i] for i in ids]
    assert words == ["[CLS]", "cat", "[SEP]", "the", "dog", "[SEP]"]


def test_long_passage_is_truncated_and_counted(tiny_reranker):
    before = tiny_reranker.truncated
    scores = tiny_reranker.score_pairs(QUERY, ["the cat " * 400, "the cat"])
    assert all(np.isfinite(scores)) and tiny_reranker.truncated == before + 1
    ids, cut = tiny_reranker._pair(tiny_reranker._tokens(QUERY), "the cat " * 400)
    assert cut and len(ids) == tiny_reranker.max_tokens and ids[-1] == ids[2]  # still ends with [SEP]


def test_an_embedding_model_is_not_accepted_as_reranker(tmp_path):
    with pytest.raises(ModelError, match="not a cross-encoder"):
        LlamaReranker(write_tiny_bert_embedder(tmp_path / "emb.gguf"))
    with pytest.raises(ModelError, match="missing.gguf"):
        LlamaReranker(tmp_path / "missing.gguf")


@pytest.mark.parametrize("arch", ["bert", "xlm-roberta"])
@pytest.mark.parametrize("outtype", ["f32", "f16"])
def test_converted_tiny_hf_cross_encoder_runs_and_orders_pairs_like_reference(tmp_path, arch, outtype):
    hf_dir = write_tiny_hf_cross_encoder(tmp_path / f"hf-{arch}", arch=arch)
    gguf_path = convert_hf_cross_encoder(hf_dir, tmp_path / "ce.gguf", outtype=outtype)
    r = LlamaReranker(gguf_path, n_threads=1)
    try:
        got = np.array(r.score_pairs(QUERY, PASSAGES))
        assert r.pair_format == ("bert" if arch == "bert" else "xlmr")
    finally:
        r.close()
    ref = np.array(reference_cross_encoder_scores(hf_dir, QUERY, PASSAGES))
    # llama.cpp's GELU is the tanh approximation (and f16 rounds weights): small drift only.
    np.testing.assert_allclose(got, ref, atol=0.02 if outtype == "f32" else 0.03)
    assert list(np.argsort(-got)) == list(np.argsort(-ref))


def test_bert_conversion_keeps_the_pooler_that_llama_cpps_converter_drops(tmp_path):
    hf_dir = write_tiny_hf_cross_encoder(tmp_path / "hf", arch="bert")
    r = LlamaReranker(convert_hf_cross_encoder(hf_dir, tmp_path / "ce.gguf", outtype="f32"), n_threads=1)
    try:
        got = np.array(r.score_pairs(QUERY, PASSAGES))
    finally:
        r.close()
    ref = np.array(reference_cross_encoder_scores(hf_dir, QUERY, PASSAGES))
    np.testing.assert_allclose(got, ref, atol=0.02)
    # What a pooler-less GGUF computes (classifier straight on the [CLS] state) is far off.
    dropped = np.array(reference_cross_encoder_scores(hf_dir, QUERY, PASSAGES, with_pooler=False))
    assert np.abs(got - dropped).max() > 0.2


def test_conversion_rejects_a_model_without_a_classifier(tmp_path):
    hf_dir = write_tiny_hf_cross_encoder(tmp_path / "hf", arch="bert")
    w = read_safetensors(hf_dir / "model.safetensors")
    from tinymodels import _write_safetensors

    _write_safetensors(hf_dir / "model.safetensors", {k: v for k, v in w.items() if not k.startswith("classifier")})
    with pytest.raises(ModelError, match="not a sequence-classification"):
        convert_hf_cross_encoder(hf_dir, tmp_path / "x.gguf")
    cfg = json.loads((hf_dir / "config.json").read_text())
    cfg["architectures"] = ["GPT2LMHeadModel"]
    cfg["model_type"] = "gpt2"
    (hf_dir / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(ModelError, match="unsupported architecture"):
        convert_hf_cross_encoder(hf_dir, tmp_path / "x.gguf")
    assert not (tmp_path / "x.gguf").exists()


def test_cli_convert_reranker_writes_a_loadable_gguf(tmp_path):
    from groove.cli.models import models

    hf_dir = write_tiny_hf_cross_encoder(tmp_path / "hf", arch="xlm-roberta")
    out = tmp_path / "out.gguf"
    res = CliRunner().invoke(models, ["convert-reranker", str(hf_dir), str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:4] == b"GGUF"
    r = LlamaReranker(out, n_threads=1)
    try:
        assert np.isfinite(r.score_pairs("cat", ["the cat"])).all()
    finally:
        r.close()
