"""`groove search`'s hit list: colour only on a terminal, text as given."""

from __future__ import annotations

import io

import pytest

from groove.cli.search import print_response
from groove.cli.styled import Printer, Styled, sgr, wants_colour
from groove.wire.search import SearchResponse

HIT = {"path": "a/[draft].md", "title": "Draft", "heading_path": ["Draft", "Plan"], "level": 2,
       "content": "The plan is to sync twice a day.", "score": 0.5, "rank": 1, "match_spans": [[16, 20]],
       "expanded_from": [], "byte_range": [0, 33], "line_range": [3, 4], "chunk_id": 7}


def test_styles_map_to_ansi_sgr_codes_and_unknown_words_are_refused():
    assert sgr("bold black on yellow") == "1;30;43"
    assert sgr("bold cyan") == "1;36" and sgr("dim") == "2"
    with pytest.raises(ValueError, match="blink"):
        sgr("blink")


def test_styled_text_renders_escape_codes_only_when_asked():
    t = Styled("…").append("sync", "bold").append(" twice")
    assert t.render(False) == "…sync twice"
    assert t.render(True) == "…\x1b[1msync\x1b[0m twice"
    assert [(s.start, s.end) for s in t.spans] == [(1, 5)]


def test_colour_goes_to_terminals_only_and_no_color_wins(monkeypatch):
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    for var in ("NO_COLOR", "FORCE_COLOR", "TERM"):
        monkeypatch.delenv(var, raising=False)
    assert not wants_colour(io.StringIO())
    if __import__("os").name != "nt":
        assert wants_colour(Tty())
    monkeypatch.setenv("TERM", "dumb")
    assert not wants_colour(Tty())
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert wants_colour(io.StringIO())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not wants_colour(Tty())


def test_piped_hit_list_is_plain_whole_lines_and_brackets_stay_literal(monkeypatch):
    """rich read "[...]" in a path or warning as markup; the printer does not."""
    for var in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    resp = SearchResponse.from_json({"results": [HIT], "low_confidence": True, "filter_applied": False,
                                     "warnings": ["1 note is newer than the index: [wip] plan.md"]})
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    print_response(resp)
    lines = out.getvalue().splitlines()
    assert "\x1b" not in out.getvalue()
    assert lines[0] == "no strong match — these are the closest notes:"
    assert lines[1] == "warning: 1 note is newer than the index: [wip] plan.md"
    assert lines[2] == " 1. a/[draft].md  Draft > Plan  L3  0.5000"
    assert lines[3] == "    The plan is to sync twice a day."


def test_text_output_groups_a_notes_sections_under_its_best_hit(monkeypatch):
    """Issue 47: one note per entry, its other sections beneath; the ranks stay the daemon's."""
    for var in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    other = {**HIT, "path": "b.md", "title": "B", "heading_path": ["B"], "rank": 2, "chunk_id": 8}
    second = {**HIT, "heading_path": ["Draft", "Later"], "rank": 3, "chunk_id": 9, "line_range": [9, 9]}
    resp = SearchResponse.from_json({"results": [HIT, other, second], "low_confidence": False,
                                     "filter_applied": False, "warnings": []})
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    print_response(resp)
    assert out.getvalue().splitlines() == [
        " 1. a/[draft].md  Draft > Plan  L3  0.5000",
        "    The plan is to sync twice a day.",
        "     + 3. Draft > Later  L9  0.5000",
        "       The plan is to sync twice a day.",
        " 2. b.md  B  L3  0.5000",
        "    The plan is to sync twice a day.",
    ]


def test_printer_joins_parts_and_keeps_their_styles():
    out = io.StringIO()
    p = Printer(out)
    p.colour = True
    p.line(("x", "green"), " y ", Styled().append("z", "dim"))
    assert out.getvalue() == "\x1b[32mx\x1b[0m y \x1b[2mz\x1b[0m\n"


def test_a_line_wrapped_inside_japanese_text_joins_without_a_space():
    from groove.cli.search import snippet

    content = "スマホとパソコンで同じノートを使いたい\nときは、同期します。\n\nNext line\nin English 同期\n  です"
    want = "スマホとパソコンで同じノートを使いたいときは、同期します。 Next line in English 同期です"
    assert snippet(content, []).plain == want
    # a space that is not a line break stays a space, even between kana
    assert snippet("ノート を使う", []).plain == "ノート を使う"


def test_an_explained_search_prints_why_low_confidence_is_what_it_is(monkeypatch):
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    confidence = {"low_confidence": True, "rule": "calibrated", "score": -2.1612, "threshold": 0.75,
                  "best_passage_z": 0.6541, "known_share": 0.0625}
    resp = SearchResponse.from_json({"results": [HIT], "low_confidence": True, "filter_applied": False,
                                     "warnings": [], "confidence": confidence})
    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    print_response(resp)
    assert out.getvalue().splitlines()[1] == (
        "confidence: low: calibrated score -2.16 < 0.75 (best passage 0.65 spreads above unrelated questions; "
        "6% of the query's words are in the vault)")
    # the editors print the same words (editor-client/src/explain.ts; vscode ui.test.ts pins them)


@pytest.mark.parametrize("args", [["search", "sync"], ["status"], ["related", "a.md"]])
def test_daemon_and_no_daemon_together_are_a_usage_error_on_every_command(args, tmp_path):
    from click.testing import CliRunner

    from groove.cli import cli

    res = CliRunner().invoke(cli, [*args, "--vault", str(tmp_path), "--daemon", "--no-daemon"])
    assert res.exit_code == 2 and "--daemon and --no-daemon exclude each other" in res.output


def test_a_command_behind_the_daemon_flags_still_runs(tmp_path):
    from click.testing import CliRunner

    from groove.cli import cli

    res = CliRunner().invoke(cli, ["status", "--vault", str(tmp_path), "--no-daemon"])
    assert "index" in res.output.lower() and not isinstance(res.exception, RecursionError), res.output
