"""The boilerplate detector (index/boilerplate.py, ADR 0210): which lines
count, the threshold, and the embedding view it gives."""

from __future__ import annotations

from collections import Counter

from groove.index.boilerplate import (
    KEEP,
    MIN_NOTES,
    Boilerplate,
    body_keys,
    common_from_counts,
    content_keys,
    line_key,
    threshold,
)


def test_a_ticked_task_a_heading_and_another_number_are_the_same_template_line():
    assert line_key("- [ ] Water the plants") == line_key("- [x] water the Plants")
    assert line_key("Energy:: 3") == line_key("Energy::  5")
    assert line_key("## Tasks") == line_key("### tasks")
    assert line_key("Mood:: good") != line_key("Mood:: tired")


def test_a_line_without_a_word_is_never_counted():
    for line in ("```", "---", "", "   ", "| --- | --- |", "> "):
        assert line_key(line) is None, line


def _counts(notes: int, holders: dict[str, int]) -> Counter[int]:
    return Counter({line_key(line): n for line, n in holders.items()})


def test_a_line_in_30_percent_of_notes_is_common_and_one_in_3_percent_is_not():
    counts = _counts(200, {"## Tasks": 60, "Met Anna about the budget": 6})
    bp = common_from_counts(counts, notes=200, share=0.2)
    assert bp.common == {line_key("## Tasks")}


def test_a_short_vault_suppresses_nothing_even_when_every_note_shares_a_line():
    counts = _counts(MIN_NOTES - 1, {"## Tasks": MIN_NOTES - 1})
    assert common_from_counts(counts, notes=MIN_NOTES - 1, share=0.2).common == frozenset()
    assert threshold(0.2, 12) == MIN_NOTES  # the floor, not 3 notes


def test_a_common_line_stays_common_a_little_below_the_threshold_but_a_new_one_does_not_start_there():
    t = threshold(0.2, 500)
    just_below = _counts(500, {"## Tasks": int(KEEP * t) + 1})
    assert common_from_counts(just_below, notes=500, share=0.2).common == frozenset()
    kept = common_from_counts(just_below, notes=500, share=0.2, before={line_key("## Tasks")})
    assert kept.common == {line_key("## Tasks")}
    far_below = _counts(500, {"## Tasks": int(KEEP * t) - 1})
    assert common_from_counts(far_below, notes=500, share=0.2, before={line_key("## Tasks")}).common == frozenset()


def test_the_view_drops_common_lines_and_keeps_the_writing():
    bp = Boilerplate(frozenset({line_key("## Log"), line_key("```dataview"), line_key('LIST FROM ""')}))
    assert bp.embedded("## Log\n- Called the garage about the brakes\n") == "- Called the garage about the brakes\n"
    # scaffold only: nothing to embed, the wordless closing fence included
    assert bp.embedded('## Log\n```dataview\nLIST FROM ""\n```') is None
    assert Boilerplate().embedded("## Log\n") == "## Log\n"  # nothing common: the chunk as written


def test_body_keys_read_from_the_file_match_the_chunks_lines():
    text = "---\ndate: 2026-01-05\ntags: [daily]\n---\n# Monday\n\n## Tasks\n- [ ] Review inbox\n\n## Log\n- Ran 8 km\n"
    assert body_keys(text) == content_keys(["# Monday\n", "## Tasks\n- [ ] Review inbox\n", "## Log\n- Ran 8 km\n"])
    assert line_key("date: 2026-01-05") not in body_keys(text)  # frontmatter is never embedded
