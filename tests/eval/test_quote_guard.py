from __future__ import annotations

from groove.eval.golden import GoldenQuery
from groove.eval.run import quote_probe, quoted_queries

NOTES = {
    "faq.md": "Q: How do I  change the Keyboard shortcut for a command?\nA: Settings.",
    "other.md": "Hotkeys live under settings. SEO matters. 脚注の書き方はこちら",
}


def q(text, kind="natural", line=1):
    return GoldenQuery(text, ("x.md",), kind=kind, line=line)


def test_query_quoted_verbatim_in_a_note_is_listed_with_the_note():
    got = quoted_queries([q("how do I change the keyboard shortcut for a command", line=3),
                          q("how do I install a community theme", line=4)], lambda g: NOTES)
    assert [(g.line, paths) for g, paths in got] == [(3, ["faq.md"])]


def test_short_and_keyword_queries_are_not_flagged_since_they_are_literal_by_design():
    assert quoted_queries([q("SEO", kind="short"), q("脚注の書き方はこちら", kind="keyword")], lambda g: NOTES) == []


def test_short_strings_are_not_probed_and_exclusions_are_ignored():
    assert quote_probe(q("coffee at home")) is None  # a 3-word phrase occurs by chance
    assert quote_probe(q("脚注の書き方")) is None  # 6 CJK characters
    assert quote_probe(q("ノートの単語数を確認する方法")) is not None
    assert quote_probe(q("change the keyboard shortcut -mouse")) == "change the keyboard shortcut"
