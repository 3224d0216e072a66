"""The tiny-chunk prior (issue 49 item 3, ADR 0280): with ``[search.fusion]
own_words`` on (10, the default), a chunk with no words of its own (a bare
URL, an embed, a heading alone) no longer outranks a note with text; off (0),
search is as it was before the prior."""

from __future__ import annotations

from dataclasses import replace

from groove.index.own_words import is_empty, own_weight, own_words
from groove.pipeline import SearchParams, run_search

NOTES = {
    "Sleep/Sleep Cycle Video.md": "https://www.youtube.com/watch?v=dQw4w9WgXcQ\n",
    "Sleep/Sleep Stages Diagram.md": "![[sleep-stages.png]]\n",
    "Sleep/Sleep Stages.md": "## Sleep stages\n",
    "Sleep/NREM.md": "Non-rapid eye movement sleep comes first in each cycle: the body slows down, "
                     "breathing deepens and the brain waves grow long and slow, which is when tissue "
                     "repairs itself.\n",
    "Sleep/REM.md": "Rapid eye movement sleep follows the deep stages; most vivid dreams happen here and "
                    "the muscles go slack.\n",
    "Cooking/Bread.md": "Knead the dough for ten minutes, let it rise until doubled, then bake at a high heat.\n",
    "Physics/European Organization for Nuclear Research.md": "aka CERN.\n",
    "Physics/Particle Accelerators.md": "A particle accelerator uses electromagnetic fields to push charged "
                                        "particles to very high speeds in a ring or a line; the largest is at CERN.\n",
    "Music/Rhythm.md": "Rhythm is the pattern of beats and rests that gives music its pulse.\n",
}
TINY = ["Sleep/Sleep Cycle Video.md", "Sleep/Sleep Stages Diagram.md", "Sleep/Sleep Stages.md"]


def _with(rt, **fusion):
    cfg = rt.config.search
    return replace(rt, config=replace(rt.config, search=replace(cfg, fusion=replace(cfg.fusion, **fusion))))


def test_words_of_its_own_leave_out_links_embeds_and_headings_and_count_cjk_by_two():
    assert own_words("https://www.youtube.com/watch?v=abc") == 0
    assert own_words("![[diagram.png]]\n![alt words](a.png)\n## A heading of words\n") == 0
    assert own_words("The electrical pressure") == 3
    assert own_words("See [[Cron]] for this: https://example.org/x") == 4
    assert own_words("睡眠周期") == 2  # unspaced: two characters a word
    assert own_words("수면 주기를 설명") == 3  # Hangul is spaced: by its words
    assert is_empty("## Links\n\nhttps://example.org/page") and not is_empty("睡眠")
    long = "word " * 400 + "\n" + "https://example.org\n" * 3
    assert own_words(long) == 400 and own_words(long, cap=40) == 40
    links = "https://example.org/" + "x" * 300 + "\n" + "https://example.org\n" * 30 + "one two\n"
    assert own_words(links, cap=40) == 2  # a prefix short of the cap: the whole chunk is read


def test_the_prior_is_zero_without_words_and_one_from_the_scale_on_or_when_off():
    assert own_weight(0, 5) == 0.0
    assert own_weight(2, 5) == 0.4
    assert own_weight(5, 5) == 1.0 and own_weight(40, 5) == 1.0
    assert own_weight(3, 0) == 1.0


def test_a_chunk_without_words_of_its_own_no_longer_outranks_a_note_with_text(tmp_path, default_embedder):
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path, NOTES, default_embedder)
    try:
        params = SearchParams(query="sleep cycle", limit=9, answer_spans=False)
        off = [h.path for h in run_search(_with(rt, own_words=0.0), params).results]
        on = [h.path for h in run_search(rt, params).results]  # the default
        assert rt.config.search.fusion.own_words == 10.0
        # Off: the bare link, the embed and the heading alone all sit above REM.md.
        assert all(off.index(t) < off.index("Sleep/REM.md") for t in TINY), off
        # On: the notes with text lead, and none of the three is above one of them.
        assert all(on.index(t) > on.index("Sleep/REM.md") for t in TINY), on
        assert on[:2] == ["Sleep/NREM.md", "Sleep/REM.md"], on
        # The vector leg's votes alone leave the link above REM.md: its title
        # ("Sleep Cycle Video") is what the full-text leg matched, in a short row.
        vec_only = [h.path for h in run_search(_with(rt, own_words=10.0, own_words_fts=False), params).results]
        assert vec_only.index(TINY[0]) < vec_only.index("Sleep/REM.md"), vec_only
    finally:
        rt.close()


def test_a_one_line_note_holding_the_query_word_keeps_its_full_text_vote(tmp_path, default_embedder):
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path, NOTES, default_embedder)
    try:
        params = SearchParams(query="cern", limit=9, answer_spans=False)
        cern = "Physics/European Organization for Nuclear Research.md"
        holders = {cern, "Physics/Particle Accelerators.md"}  # the notes that say "CERN"
        assert own_words(NOTES[cern]) == 2
        for fusion in ({"own_words": 0.0}, {}, {"own_words": 40.0}):
            got = [h.path for h in run_search(_with(rt, **fusion), params).results]
            # Its vector vote shrinks, its full-text vote stays: still above every note without the word.
            assert set(got[:2]) == holders, (fusion, got)
    finally:
        rt.close()


def test_the_default_is_ten_and_off_moves_the_ranking(tmp_path, default_embedder):
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path, NOTES, default_embedder)
    try:
        params = SearchParams(query="sleep cycle", limit=9, answer_spans=False)
        base = [(h.path, h.score) for h in run_search(rt, params).results]
        assert rt.config.search.fusion.own_words == 10.0
        assert [(h.path, h.score) for h in run_search(_with(rt, own_words=10.0), params).results] == base
        assert [(h.path, h.score) for h in run_search(_with(rt, own_words=0.0), params).results] != base
    finally:
        rt.close()
