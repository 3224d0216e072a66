"""`groove search`'s text as a person reads it: on a terminal, lines wrap at
words to its width and go on under their indent (the terminal's own wrap cut
"severa|l devices" and lost the indent), CJK counted two columns and never
broken before 、 or 。; a pipe still gets whole lines. Snippets leave out the
headings the hit's line already names, and are cut between words."""

from __future__ import annotations

import io
import re
import unicodedata

import pytest

from groove.cli.search import print_response, snippet
from groove.cli.styled import Printer, Styled
from groove.wire.search import MatchSpan, SearchResponse

SNIP = ("# Phone and laptop\n\n## Using the same notes on several devices\n\ngroove only reads the files in "
        "your vault. To have the same notes on your phone and on your laptop, let a file synchronisation "
        "service copy the vault folder between the devices, then run the indexer on each machine.")
JA = ("## 脚注とタグ\n\n二文字の短い語、たとえば「脚注」や「翻訳」でも全文検索で見つかります。"
      "タグで絞り込むには `--tag` を使います。")


def cells(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _hit(content: str, spans: list[list[int]], rank: int = 1) -> dict:
    return {"path": "guide/Phone and laptop.md", "title": "Phone and laptop",
            "heading_path": ["Phone and laptop", "Using the same notes on several devices"], "level": 2,
            "content": content, "score": 0.0427, "rank": rank, "match_spans": spans, "expanded_from": [],
            "byte_range": [0, len(content.encode())], "line_range": [5, 12], "chunk_id": rank}


def _printed(stream: io.StringIO, monkeypatch, columns: int, hits: list[dict]) -> list[str]:
    monkeypatch.setenv("COLUMNS", str(columns))
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr("sys.stdout", stream)
    print_response(SearchResponse.from_json({"results": hits, "low_confidence": False, "filter_applied": False,
                                             "warnings": []}))
    return stream.getvalue().splitlines()


def _byte_span(text: str, word: str) -> list[int]:
    at = len(text[:text.index(word)].encode())
    return [at, at + len(word.encode())]


def _span(text: str, word: str) -> MatchSpan:
    return MatchSpan(*_byte_span(text, word))


@pytest.mark.parametrize("columns", [80, 40])
def test_on_a_terminal_lines_wrap_at_words_under_their_indent(monkeypatch, columns):
    hits = [_hit(SNIP, [_byte_span(SNIP, "synchronisation")]), {**_hit(JA, [_byte_span(JA, "脚注")], 2),
                                                               "path": "ja/検索のこつ.md"}]
    lines = _printed(Tty(), monkeypatch, columns, hits)
    assert all(sum(map(cells, line)) <= columns for line in lines), lines
    assert all(line.startswith("    ") for line in lines if not re.match(r" \d\. ", line)), lines
    words = set(" ".join(line.strip() for line in lines).split())
    for w in ("several", "devices", "synchronisation", "laptop,"):
        assert w in words, (w, lines)  # no word split across two lines
    assert not any(line.strip()[:1] in "、。" for line in lines), lines


def test_a_pipe_still_gets_whole_lines(monkeypatch):
    lines = _printed(io.StringIO(), monkeypatch, 40, [_hit(SNIP, [_byte_span(SNIP, "synchronisation")])])
    assert len(lines) == 2 and len(lines[1]) > 120


def test_a_highlight_keeps_its_style_across_a_wrap():
    out = Tty()
    p = Printer(out)
    p.colour, p.width = True, 20
    p.line("    ", Styled("a few words then ").append("highlighted", "bold"), " more")
    text = out.getvalue()
    assert "\x1b[1mhighlighted\x1b[0m" in text and all(len(re.sub("\x1b\\[[0-9;]*m", "", x)) <= 20
                                                        for x in text.splitlines())


def test_a_snippet_leaves_out_the_headings_its_hit_line_names_and_cuts_between_words():
    s = snippet(SNIP, [_span(SNIP, "synchronisation")], width=90).plain
    assert not s.startswith("#") and "Using the same" not in s, s
    assert s.startswith("groove only reads") or s.startswith("…")
    assert s.endswith("…") and s[-2] != " " and s.rstrip("…").split()[-1] in SNIP.split(), s
    start = snippet(SNIP, [_span(SNIP, "indexer")], width=60).plain
    assert start.startswith("…") and start[1:].split()[0] in SNIP.split(), start  # not "…xer"
    # a span in a heading keeps the heading, set off as the hit's line sets it off (was
    # "Phone and laptop Using the same notes on several devices groove only reads": one run-on line)
    assert snippet(SNIP, [_span(SNIP, "Phone")]).plain.startswith(
        "Phone and laptop > Using the same notes on several devices — groove only reads")
    # nothing after the last heading: no dash left hanging
    assert snippet("# New\n\n## Sub\n", []).plain == "New > Sub"


def test_a_japanese_heading_and_its_text_stay_apart_and_nothing_trails():
    s = snippet(JA, [_span(JA, "脚注")]).plain
    assert s.startswith("脚注とタグ — 二文字"), s  # was "タグ二文字": the blank line joined like a wrapped line
    assert not s.endswith(" ")
