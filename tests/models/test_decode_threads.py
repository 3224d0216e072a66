"""A short decode (a query) runs on one thread, a long one (a passage) on
all of them (ADR 0127), and the vectors do not depend on which."""

from __future__ import annotations

import numpy as np
import pytest

from groove.models import threads
from groove.models.threads import SHORT_DECODE_TOKENS, decode_threads


def test_queries_get_one_thread_and_passages_all_of_them():
    assert decode_threads(8, 4) == 1
    assert decode_threads(SHORT_DECODE_TOKENS, 4) == 1
    assert decode_threads(SHORT_DECODE_TOKENS + 1, 4) == 4
    assert decode_threads(500, 1) == 1


@pytest.fixture(scope="module")
def two_thread_embedder(default_model_path):
    from groove.models.registry import load_embedder

    return load_embedder(str(default_model_path), n_threads=2)


def test_the_context_switches_threads_with_the_decode_length(two_thread_embedder):
    import llama_cpp

    emb = two_thread_embedder
    ctx = lambda: emb._llm._ctx.ctx  # noqa: E731 - a long decode may swap in a fresh context
    emb.embed_query("sync conflicts")
    assert llama_cpp.llama_n_threads(ctx()) == 1 and llama_cpp.llama_n_threads_batch(ctx()) == 1
    long = "When two devices change a note at the same time, a second copy appears. " * 6
    assert emb.count_tokens(long) > SHORT_DECODE_TOKENS
    emb.embed_passages([long])
    assert llama_cpp.llama_n_threads(ctx()) == 2
    emb.embed_query("同期の競合")
    assert llama_cpp.llama_n_threads(ctx()) == 1


def test_vectors_are_the_same_bits_on_one_thread_or_all(two_thread_embedder, monkeypatch):
    emb = two_thread_embedder
    texts = ["sync conflicts between devices", "ホットキーの設定", "-sync plugins", "canvas",
             "how do I keep the same notes on my phone and my laptop"]
    one = emb.embed_queries(texts)
    monkeypatch.setattr(threads, "SHORT_DECODE_TOKENS", 0)
    every = np.stack([emb.embed_query(t) for t in texts])
    assert np.array_equal(one, every)
