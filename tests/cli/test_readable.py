"""`groove search`'s snippets read as text, not Markdown source (issue 47):
links as their display text, embeds by name, no emphasis, heading, quote or
callout marks; code as written; the highlights stay on the same words."""

from __future__ import annotations

import pytest

from groove.cli.readable import shown
from groove.cli.search import HIGHLIGHT, snippet
from groove.wire.search import MatchSpan


def _text(content: str) -> str:
    return "".join(ch for ch, k in zip(content, shown(content), strict=True) if k)


@pytest.mark.parametrize("md,want", [
    ("See [[Target|alias]], [[Plain]], ![[lucide-table.svg#icon]] and [[#iCloud]].",
     "See alias, Plain, lucide-table.svg#icon and iCloud."),
    ("| [[Basic formatting syntax\\|formatting]] | cell |", "| formatting | cell |"),
    ("**bold**, *it*, __u__, ~~s~~, ==hl==; snake_case_name, 2*3*4 and a * b",
     "bold, it, u, s, hl; snake_case_name, 2*3*4 and a * b"),
    ("Keep `**code**` and `[[code]]`; [the docs](https://example.org/a_(b)) go", "Keep `**code**` and `[[code]]`; "
                                                                                  "the docs go"),
    ("## Heading\n> [!info] Title\n> quoted\n- item", "Heading\nTitle\nquoted\n- item"),
    # a heading inside a quote or a callout (was "### Option A" as written)
    ("> text\n> ### Option A\n> > [!note] ## Why\n> more", "text\nOption A\nWhy\nmore"),
    ("unbalanced **bold and [[open link", "unbalanced **bold and [[open link"),
    ("[[デバイス間でノートを同期する#iCloud|iCloud]]や**推奨**", "iCloudや推奨"),
])
def test_markup_is_hidden_and_the_words_are_kept(md, want):
    assert _text(md) == want


def test_a_snippet_shows_the_alias_and_keeps_its_highlight():
    content = "Most people use [[Introduction to Obsidian Sync|Obsidian Sync]] to **sync** notes."
    at = content.encode().index(b"sync**")
    s = snippet(content, [MatchSpan(at, at + 4)])
    assert s.plain == "Most people use Obsidian Sync to sync notes."
    assert [s.plain[x.start:x.end] for x in s.spans if x.style == HIGHLIGHT] == ["sync"]
