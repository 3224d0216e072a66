"""The default model run without llama.cpp's vocabulary (ADR 0125) gives the
same tokens and the same vectors, bit for bit, as the full model."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from groove.models import ModelError
from groove.models import gguf_file as gf
from groove.models.e5_convert import normalize_text
from groove.models.lean_model import lean_parts
from groove.models.llama_embedder import EmbedderTuning, LlamaEmbedder

REPO = Path(__file__).resolve().parents[2]
EVAL = REPO.parent / "shared" / "eval"

# characters the tokenizer meets in notes, and some it has no piece for
ALPHABET = (
    list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
    + list(".,;:!?-_'\"()[]{}#*/\\|@&%$^~`<>=+")
    + [" "] * 12 + ["\t", "\n", "\u00a0", "\u3000", "\u2581"]
    + list("日本語の検索設定同期会議料理東京ノートをはにするかなカタカナｶﾀｶﾅ")
    + list("éèüßçñøåœÆ") + ["e\u0301", "\u0308"]  # precomposed and combining
    + list("абвгдежзαβγδελμνאבגדسلام한국어ไทย")
    + ["😀", "👩\u200d💻", "🇯🇵", "\U0001d54f", "\ue000", "\U0010fffd", "\x00", "\x07", "\u200b", "\ufeff"]
    + ["<s>", "</s>", "<unk>", "<mask>", "[unused 250010]", "▁▁"]
)


def _random_texts(n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        length = rng.choice([1, 2, 3, 5, 8, 20, 60, 200])
        out.append("".join(rng.choice(ALPHABET) for _ in range(length)))
    return out


def _note_texts() -> list[str]:
    roots = [REPO / "backend" / "groove" / "sample_vault", REPO / "tests" / "fixtures", REPO / "bench" / "golden"]
    if EVAL.is_dir():
        roots.append(EVAL)
    texts = []
    for root in roots:
        for p in sorted(root.rglob("*.md")):
            raw = p.read_text(encoding="utf-8", errors="replace")
            body = normalize_text(raw)
            texts += ["passage: " + body[i : i + 1500] for i in range(0, min(len(body), 6000), 1500)]
            texts.append(raw[:800])  # not normalised: tabs, newlines, runs of spaces
        for p in sorted(root.rglob("*.jsonl")):
            for line in p.read_text(encoding="utf-8").splitlines():
                q = json.loads(line).get("query") if line.strip().startswith("{") else None
                if isinstance(q, str):
                    texts.append("query: " + normalize_text(q))
    return texts


@pytest.fixture(scope="module")
def llama_vocab(default_model_path):
    from llama_cpp import Llama

    llm = Llama(str(default_model_path), vocab_only=True, verbose=False)
    yield llm
    llm.close()


@pytest.fixture
def parts(default_model_path):
    got, why = lean_parts(default_model_path)
    assert got is not None, why
    return got


@pytest.mark.needs_default_model
def test_the_tokenizer_gives_llama_cpps_ids_on_notes_queries_and_random_strings(parts, llama_vocab):
    tok = parts.tokenizer()
    texts = _note_texts() + _random_texts(3000, seed=7)
    assert len(texts) > 3000
    wrong = [t for t in texts
             if tok.tokenize(t) != llama_vocab.tokenize(t.encode("utf-8"), add_bos=False, special=False)]
    assert not wrong, f"{len(wrong)} of {len(texts)} differ, e.g. {wrong[:3]!r}"


@pytest.mark.needs_default_model
def test_ties_between_equal_scoring_splits_go_the_way_llama_cpp_breaks_them(parts, llama_vocab):
    # Texts where two segmentations score the same (found by the sentencepiece
    # comparison in ADR 0125): the first-found split must win.
    tok = parts.tokenizer()
    for text in ["ﾀﾞｲｱﾛｸﾞ", "ﾊﾟｽﾜｰﾄﾞ", "ab" * 40, "ーー" * 30, "　".join("ｶﾅ" * 5)]:
        assert tok.tokenize(text) == llama_vocab.tokenize(text.encode(), add_bos=False, special=False), text


@pytest.mark.needs_default_model
def test_lean_and_full_models_give_bit_identical_vectors(default_model_path):
    lean = LlamaEmbedder(default_model_path, family="e5", tuning=EmbedderTuning(lean=True))
    full = LlamaEmbedder(default_model_path, family="e5", tuning=EmbedderTuning(lean=False))
    try:
        assert lean._llm.n_vocab() == 1 and full._llm.n_vocab() > 250_000
        passages = ["Obsidian stores notes as plain Markdown files in a vault.",
                    "同期の設定で、どのファイルを同期するかを選べます。",
                    "sync settings and conflicts " * 200,  # cut at max_tokens, closing </s> kept
                    "", "😀 ﾀﾞｲｱﾛｸﾞ unknown \U0010fffd runs"]
        assert np.array_equal(lean.embed_passages(passages), full.embed_passages(passages))
        assert lean.truncated == full.truncated == 1
        queries = ["how do I sync my vault", "ホットキーを変更するには"]
        assert np.array_equal(lean.embed_queries(queries), full.embed_queries(queries))
        assert [lean.count_tokens(p) for p in passages] == [full.count_tokens(p) for p in passages]
    finally:
        lean.close()
        full.close()


def test_a_model_the_port_does_not_cover_loads_in_full_and_says_why(tiny_model_path):
    e = LlamaEmbedder(tiny_model_path, max_tokens=64)
    assert e._lean is None and "unigram" in e.lean_reason
    assert e.embed_query("hello world").shape == (e.dim,)
    e.close()
    with pytest.raises(ModelError, match="cannot run without its vocabulary"):
        LlamaEmbedder(tiny_model_path, max_tokens=64, tuning=EmbedderTuning(lean=True))


def test_the_lean_model_can_be_switched_off(tiny_model_path, monkeypatch):
    monkeypatch.setenv("GROOVE_LEAN_MODEL", "0")
    assert lean_parts(tiny_model_path) == (None, "GROOVE_LEAN_MODEL=0")


@pytest.mark.needs_default_model
def test_a_damaged_lean_copy_is_derived_again(parts, default_model_path):
    (parts.folder / "vocab.marisa").unlink()
    again, why = lean_parts(default_model_path)
    assert again is not None, why
    assert (again.folder / "vocab.marisa").is_file()
    assert again.tokenizer().tokenize("hello") == parts.tokenizer().tokenize("hello")


@pytest.mark.needs_default_model
def test_the_lean_gguf_keeps_every_tensor_but_the_token_matrix(parts, default_model_path):
    src, lean = gf.read_header(default_model_path), gf.read_header(parts.gguf)
    assert [t.name for t in lean.tensors] == [t.name for t in src.tensors]
    emb = lean.tensor("token_embd.weight")
    assert emb is not None and emb.dims == [384, 1]
    assert not any(k.startswith("tokenizer.ggml.token") and k.endswith(("tokens", "scores")) for k in lean.values)
    assert lean.values["tokenizer.ggml.model"] == "none" and lean.values["bert.vocab_size"] == 1
    keep = [k for k in src.values if not k.startswith("tokenizer.ggml.")]
    assert all(lean.values[k] == src.values[k] for k in keep)
    with open(src.path, "rb") as a, open(lean.path, "rb") as b:
        for t in src.tensors:
            if t.name == "token_embd.weight":
                continue
            u = lean.tensor(t.name)
            assert u is not None
            a.seek(src.data_start + t.offset)
            b.seek(lean.data_start + u.offset)
            assert a.read(t.nbytes) == b.read(u.nbytes), t.name


@pytest.mark.needs_default_model
def test_doctor_says_whether_the_model_runs_lean(default_model_path, tiny_model_path):
    from groove.doctor import check_model

    lean = check_model(str(default_model_path))
    assert lean.ok and "runs without llama.cpp's vocabulary" in lean.detail, lean
    full = check_model(str(tiny_model_path))
    assert full.ok and "loads in full (the tokenizer is not a SentencePiece unigram" in full.detail, full


@pytest.mark.needs_default_model
def test_an_unreadable_lean_copy_costs_the_savings_not_the_load(parts, default_model_path):
    (parts.folder / "vocab.npz").write_bytes(b"not an npz file")
    e = LlamaEmbedder(default_model_path, family="e5")
    try:
        assert e._lean is None and "could not be used" in e.lean_reason
        assert e.embed_query("sync").shape == (384,)
    finally:
        e.close()
    again, why = lean_parts(default_model_path)  # derived afresh
    assert again is not None, why
    assert again.tokenizer().tokenize("sync") == parts.tokenizer().tokenize("sync") != []


@pytest.mark.needs_default_model
def test_the_tokenizer_segments_word_by_word_only_where_the_vocabulary_allows_it(parts, tmp_path):
    import marisa_trie

    from groove.models.ugm_tokenizer import word_mark_starts_pieces_only

    tok = parts.tokenizer()
    assert tok._word_local  # the default model's pieces hold the word mark first only
    texts = _note_texts()[:400] + _random_texts(500, seed=11)
    assert all(tok._by_words(t) == tok._viterbi(t) for t in texts)
    # A piece with the mark inside would join words: then whole texts are segmented.
    assert not word_mark_starts_pieces_only(marisa_trie.Trie(["\u2581a", "b\u2581c"]))
    assert word_mark_starts_pieces_only(marisa_trie.Trie(["\u2581a", "bc"]))
