"""A note of many tiny sections costs what its text costs (issue 50 R2):
100,000 "# hN" lines were 100,000 chunks, an embedding each."""

from __future__ import annotations

import random

from groove.vault.markdown import parse_note

BUDGET = 150
WORDS = "the river runs past the old mill and an apple orchard where we walk before work".split()


def _chunks(text: str) -> list:
    return parse_note("n.md", text.encode(), chunk_tokens=BUDGET).chunks


def _prose(size: int) -> str:
    rng = random.Random(5)
    out, n = [], 0
    while n < size:
        para = " ".join(rng.choice(WORDS) for _ in range(60)) + ".\n\n"
        out.append(para)
        n += len(para)
    return "".join(out)[:size]


def _headings(n: int) -> str:
    return "".join(f"# h{i}\n" for i in range(1, n + 1))


def test_a_note_of_headings_only_is_chunked_like_prose_of_its_size() -> None:
    for n in (10_000, 100_000):
        text = _headings(n)
        chunks = _chunks(text)
        # Packed to the budget: at most twice the chunks the text fills (was one per heading).
        assert len(chunks) <= 2 * -(-sum(c.token_count for c in chunks) // BUDGET) + 1, (n, len(chunks))
        if n == 10_000:
            prose = _chunks(_prose(len(text)))
            assert len(chunks) <= 3 * len(prose), (n, len(chunks), len(prose))
        # Nothing is lost: the chunks hold every heading, in order, once.
        assert "".join(c.content for c in chunks).count("# h") == n
        assert chunks[0].content.startswith("# h1\n") and chunks[-1].content.endswith(f"# h{n}\n")
        assert all(c.token_count <= BUDGET + 10 for c in chunks)
        assert [c.line_start for c in chunks] == sorted(c.line_start for c in chunks)


def test_tiny_sections_with_a_word_each_are_packed_too() -> None:
    text = "".join(f"## Entry {i}\n{WORDS[i % len(WORDS)]}\n\n" for i in range(20_000))
    chunks = _chunks(text)
    assert len(chunks) <= 3 * len(_chunks(_prose(len(text))))
    assert chunks[1].heading_path == [chunks[1].content.split("\n")[0][3:]]  # under its first piece's heading


def test_ordinary_notes_keep_their_chunks() -> None:
    """Below the packing threshold nothing moves: a note of short sections
    keeps a chunk per section, an empty heading included."""
    text = "# Glossary\n\n" + "".join(f"## Term {i}\n\nWhat term {i} means.\n\n" for i in range(100))
    text += "## Empty\n\n## Last\n\nThe end.\n"
    chunks = _chunks(text)
    assert len(chunks) == 102
    assert chunks[0].content.startswith("# Glossary\n\n## Term 0\n")  # an empty parent joins its first child
    assert chunks[100].content == "## Empty\n" and chunks[101].heading == "Last"
