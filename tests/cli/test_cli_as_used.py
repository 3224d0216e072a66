"""The CLI as people use it from a terminal and from scripts (helper cli52):
a query of symbols alone gets one clear answer, --limit follows one rule on
every command, a closed pipe ends the command quietly, related notes show
the figure that orders them, and plain text marks a hit's answer.
Subprocesses, the tiny model, a vault indexed once into its own index file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from groove.cli.search import ANSWER_MARKS, print_response
from groove.wire.search import SearchResponse
from helpers import indexed_notes, run_groove

_WORDS = ["orchard", "timer", "lease", "kitchen", "pruning", "renewal", "schedule", "garden", "server", "winter",
          "apples", "pears", "nights", "jobs", "trees", "daemon",
          "bread", "rain", "music", "trains", "harbour", "letters", "lamps"]
NOTES = {
    "Network/Cron.md": "# Cron\n\nThe cron daemon runs jobs on a timer schedule every night. See [[DHCP]].\n",
    "Network/DHCP.md": "# DHCP\n\nThe dhcp server hands out leases with a timer for renewal.\n",
    "Network/Leases.md": "# Leases\n\nA dhcp lease without any schedule. What does ??? mean here.\n",
    "Home.md": "# Home\n\nThe garden, the orchard and the kitchen. [[Cron]] and [[Leases]].\n",
    "Garden/Apples.md": "# Apples\n\nThe orchard has apple trees that need pruning every winter.\n",
    "Garden/Pears.md": "# Pears\n\nPear trees in the orchard, pruned like the apples.\n",
    # Enough notes for a limit of 50, each with words of its own (a line repeated in
    # every note would be boilerplate, and a note of boilerplate alone is never a similar note).
    **{f"Journal/Day {i:02}.md": f"# Day {i}\n\n{_WORDS[i % 10]} {_WORDS[(i // 10) + 10]} {_WORDS[(3 * i) % 7 + 16]}.\n"
       for i in range(60)},
}


@pytest.fixture(scope="module")
def ix(tmp_path_factory, tiny_model_path) -> list[str]:
    """The vault indexed once; the flags every command here passes (its index, in this process;
    `_search` adds the model that built it, the other commands read no model)."""
    root = tmp_path_factory.mktemp("as-used")
    vault, index = indexed_notes(root, NOTES, tiny_model_path)
    (root / "model").write_text(str(tiny_model_path), encoding="utf-8")
    return ["--vault", str(vault), "--index", str(index)]


def _search(ix: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    model = (Path(ix[-1]).parent / "model").read_text(encoding="utf-8")
    return run_groove("search", *args, *ix, "--model", model, "--no-daemon")


# --- a query with no word to search -------------------------------------------------------------------------


@pytest.mark.parametrize("query", ["???", "🎉🎉", "...!", "🎉🎉🎉", "-x ???"])
def test_a_query_of_symbols_alone_is_refused_whatever_its_length(ix, query):
    """"???" was searched (three characters reach the full-text floor) and
    printed ten hits of the embedder's guess, not flagged low confidence,
    while "🎉🎉" was refused: one answer now, for the CLI, MCP and the socket
    alike (the compiler, which every surface's search runs)."""
    r = _search(ix, query)
    assert r.returncode == 2 and r.stdout == "", r.stdout
    assert "no letters or digits" in r.stderr and "search with a word" in r.stderr, r.stderr
    j = _search(ix, query, "--json")
    assert j.returncode == 2
    assert json.loads(j.stdout)["error"]["code"] == "bad-query"


def test_the_refusal_says_how_to_find_the_symbols_and_that_way_works(ix):
    r = _search(ix, "???")
    assert 'put the characters in double quotes to find them as written: "???"' in r.stderr
    found = _search(ix, '"???"', "--json")
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["results"][0]["path"] == "Network/Leases.md"
    # two characters are below the full-text floor: quoting would not help, so it is not offered
    assert "double quotes" not in _search(ix, "🎉🎉").stderr


def test_every_surface_refuses_it_through_the_one_operation_table(tmp_path, tiny_embedder):
    from groove import operations
    from groove.errors import BadQuery
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path / "rt", {"a.md": "# A\n\nWhat does ??? mean.\n"}, tiny_embedder)
    with pytest.raises(BadQuery, match="no letters or digits"):
        operations.call(rt, "search", {"query": "???"})
    assert operations.call(rt, "search", {"query": '"???"'})["results"][0]["path"] == "a.md"


def test_an_arrow_is_not_an_exclusion(ix):
    """`groove search '->'` said "only excludes (-term)": it was read as the
    exclusion of ">". A '-' before no letter or digit is text; symbols alone
    get the refusal "???" gets, and beside words it is searched, not warned of."""
    r = _search(ix, "->")
    assert r.returncode == 2 and "no letters or digits" in r.stderr and "excludes" not in r.stderr, r.stderr
    j = _search(ix, "timer -> renewal", "--json")
    assert j.returncode == 0, j.stderr
    assert json.loads(j.stdout)["warnings"] == []
    assert "DHCP" in {h["title"] for h in json.loads(j.stdout)["results"][:2]}
    # a word after the '-' is still excluded
    excluded = json.loads(_search(ix, "timer -dhcp", "--json").stdout)["results"]
    assert excluded and all("dhcp" not in h["content"].lower() for h in excluded)


def test_a_quoted_phrase_of_symbols_no_hit_holds_says_no_strong_match(ix):
    """'"%%%"' printed ten hits, none holding "%%%", as if they answered."""
    missing = json.loads(_search(ix, '"%%%"', "--json").stdout)
    assert missing["results"] and missing["low_confidence"]
    assert any('"%%%"' in w for w in missing["warnings"])
    assert _search(ix, '"%%%"').stdout.startswith("no strong match")
    # a hit holds "???": no name the vault lacks (the tiny model's random scores decide the rest)
    found = json.loads(_search(ix, '"???"', "--json", "--explain").stdout)
    assert "???" in found["results"][0]["content"] and "unknown_names" not in found["confidence"]
    assert not any("???" in w for w in found["warnings"])


def test_a_query_too_long_is_named_as_help_names_it(ix):
    r = _search(ix, "word " * 2100)
    assert r.returncode == 2
    assert "Error: QUERY is 10,500 characters; at most 10,000" in r.stderr, r.stderr  # was: 'query'


# --- one --limit rule -------------------------------------------------------------------------------------


def test_a_limit_above_the_maximum_is_clamped_with_a_warning_on_related_as_on_search(ix):
    """`related --limit 205` was refused ("not in the range 1<=x<=50") where
    `search --limit 205` clamps: both clamp now, with the same words."""
    r = run_groove("related", "Home.md", "--limit", "205", "--json", *ix, "--no-daemon")
    assert r.returncode == 0, r.stderr
    assert "limit 205 is above the maximum 50; using 50" in r.stderr
    assert len(json.loads(r.stdout)["similar"]) == 50
    s = _search(ix, "timer garden", "--limit", "205", "--json")  # the operation clamps, and says so in warnings
    assert s.returncode == 0, s.stderr
    assert "limit 205 is above the maximum 50; using 50" in json.loads(s.stdout)["warnings"]


@pytest.mark.parametrize("command", [["search", "timer"], ["related", "Home.md"]])
def test_a_limit_below_one_is_refused_in_the_same_words_everywhere(ix, command):
    """related said "Invalid value for '--limit': 0 is not in the range 1<=x<=50." and its JSON
    error named no parameter; search said "--limit must be at least 1": both say that now."""
    model = (Path(ix[-1]).parent / "model").read_text(encoding="utf-8")
    flags = [*ix, "--no-daemon", *(["--model", model] if command[0] == "search" else [])]
    r = run_groove(*command, "--limit", "0", *flags)
    assert r.returncode == 2
    assert "Error: --limit must be at least 1, got 0" in r.stderr, r.stderr
    j = run_groove(*command, "--limit", "0", *flags, "--json")
    assert json.loads(j.stdout.splitlines()[0])["error"]["param"] == "limit"


# --- a closed pipe ----------------------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(signal, "SIGPIPE"), reason="no SIGPIPE on this OS")
@pytest.mark.parametrize("command", [
    ["search", "timer garden", "--limit", "50"],
    ["search", "timer garden", "--limit", "50", "--json"],
    ["search", "🎉🎉", "--json"],  # the error's JSON, printed inside an except clause
    ["related", "Home.md", "--limit", "50"],
    ["related", "Home.md", "--json"],
    ["status"],
    ["status", "--json"],
    ["models", "list"],  # rich's table: rich exits 1 on its own unless told otherwise
    ["--help"],
])
def test_a_reader_that_closes_the_pipe_ends_the_command_quietly_by_sigpipe(ix, command):
    """`groove search … | head -1` exited 1 (click's code for EPIPE, the code
    of a failure). Chosen: die of SIGPIPE, as cat, grep and most Unix
    filters do, so a shell reports 141 and `set -o pipefail` treats groove
    like them; nothing on stderr (no traceback, no "Broken pipe"). The reader
    here is gone before groove writes, so every write meets a closed pipe
    (`head -1` closes after its line: the same, a little later)."""
    read, write = os.pipe()
    os.close(read)
    try:
        flags = [*ix, "--no-daemon"] if command[0] in ("search", "related", "status") else []
        if command[0] == "search":
            flags += ["--model", (Path(ix[-1]).parent / "model").read_text(encoding="utf-8")]
        p = subprocess.run([sys.executable, "-m", "groove", *command, *flags], stdout=write,
                           stderr=subprocess.PIPE, text=True, timeout=300, env={**os.environ})
    finally:
        os.close(write)
    assert p.returncode == -signal.SIGPIPE, (p.returncode, p.stderr)
    assert p.stderr == ""


# --- related: the figure that orders the list -------------------------------------------------------------


def test_related_prints_the_figure_that_orders_the_list_and_it_falls_down_it(ix):
    """The list is ordered by relevance (ADR 0276); each row printed it and
    the cosine beside it, which does not fall down the list. One figure now,
    the one that orders it; --json keeps both."""
    j = run_groove("related", "Home.md", "--limit", "20", "--json", *ix, "--no-daemon")
    similar = json.loads(j.stdout)["similar"]
    assert all("relevance" in s for s in similar)
    r = run_groove("related", "Home.md", "--limit", "20", *ix, "--no-daemon")
    lines = r.stdout.splitlines()
    assert lines[0] == "similar to Home.md (relevance, highest first):"
    rows = lines[1:1 + len(similar)]
    figures = [float(row.split()[0]) for row in rows]
    assert figures == [s["relevance"] for s in similar]
    assert figures == sorted(figures, reverse=True)
    assert all(f"{s['score']:.3f}" not in row for s, row in zip(similar, rows, strict=True))


def test_related_shows_no_negative_figure(ix):
    """Far down the list relevance (a z-score against the vault, ADR 0276)
    falls below 0: "-0.23" read as a fault. Shown as 0.00, which the header
    explains, as both plugins show it; --json keeps the figure."""
    j = run_groove("related", "Home.md", "--limit", "50", "--json", *ix, "--no-daemon")
    similar = json.loads(j.stdout)["similar"]
    assert any(s["relevance"] < 0 for s in similar)  # what this test is about
    lines = run_groove("related", "Home.md", "--limit", "50", *ix, "--no-daemon").stdout.splitlines()
    assert lines[0] == "similar to Home.md (relevance, highest first): 0.00 is no closer than a typical note"
    figures = [row.split()[0] for row in lines[1:1 + len(similar)]]
    assert not any(f.startswith("-") for f in figures), figures
    assert [float(f) for f in figures] == [max(0.0, s["relevance"]) for s in similar]


# --- the answer, marked in plain text ---------------------------------------------------------------------

ANSWERED = {"path": "Sync.md", "title": "Sync", "heading_path": ["Sync"], "level": 1,
            "content": "# Sync\n\nCopy the vault folder. Then index it on each device. Nothing else.",
            "score": 0.5, "rank": 1, "match_spans": [[8, 12]], "answer_spans": [[31, 60]],
            "expanded_from": [], "byte_range": [0, 74], "line_range": [1, 3], "chunk_id": 1}


def test_plain_text_marks_the_answer_and_a_terminal_underlines_it(monkeypatch):
    """Hits carry answer_spans (the sentence that answers the query); the
    CLI showed none of it. Without colour (a pipe, NO_COLOR) the answer
    stands between » and «; on a terminal it is underlined instead."""
    from groove.cli.search import snippet

    for var in ("NO_COLOR", "FORCE_COLOR"):
        monkeypatch.delenv(var, raising=False)
    resp = SearchResponse.from_json({"results": [ANSWERED], "low_confidence": False, "filter_applied": False,
                                     "warnings": []})
    import io

    out = io.StringIO()
    monkeypatch.setattr("sys.stdout", out)
    print_response(resp)
    assert out.getvalue().splitlines()[1] == "    Copy the vault folder. »Then index it on each device.« Nothing else."
    hit = resp.results[0]
    lit = snippet(hit.content, hit.match_spans, answers=hit.answer_spans)
    assert lit.plain == "Copy the vault folder. Then index it on each device. Nothing else."
    assert [(s.start, s.end, s.style) for s in lit.spans] == [
        (0, 4, "bold black on yellow"), (23, 52, "underline")]
    # an answer cut by the snippet's end is closed before the ellipsis
    cut = snippet(hit.content, [], width=30, answers=hit.answer_spans, marks=ANSWER_MARKS).plain
    assert "folder. »Then" in cut and cut.endswith("«…"), cut
    # the best sentence and the one beside it (answer_spans' contract) read as one answer
    two = snippet(hit.content, [], answers=[*hit.answer_spans, type(hit.answer_spans[0])(61, 74)],
                  marks=ANSWER_MARKS).plain
    assert two == "Copy the vault folder. »Then index it on each device. Nothing else.«"


def test_a_real_search_piped_marks_its_answers(ix):
    r = _search(ix, "when are apple trees pruned")
    assert r.returncode == 0, r.stderr
    j = json.loads(_search(ix, "when are apple trees pruned", "--json").stdout)
    answered = sum(1 for h in j["results"] if h["answer_spans"])
    assert answered and r.stdout.count("»") == r.stdout.count("«") >= 1, r.stdout
    assert "\x1b" not in r.stdout


# --- an index searched with another model -----------------------------------------------------------------


def test_an_index_searched_with_another_model_says_which_model_built_it(ix, default_model_path):
    """The index was built with the tiny model; searched with e5, sqlite-vec
    raised "Dimension mismatch ... Expected 32 dimensions but received 384"
    as a traceback. Now one message: which model built it, and the two ways out."""
    r = run_groove("search", "orchard", *ix, "--model", str(default_model_path), "--no-daemon")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "Dimension mismatch" not in r.stderr, r.stderr
    assert "this index was built with the model tiny-bert (32 dimensions), not " in r.stderr, r.stderr
    assert "search with --model set to the model that built it, or run `groove index " in r.stderr
    assert "--rebuild` to re-embed the vault with this one" in r.stderr
    # a wrong argument is said first, before any model loads
    r = run_groove("search", "???", *ix, "--model", str(default_model_path), "--no-daemon")
    assert r.returncode == 2 and "no letters or digits" in r.stderr, r.stderr


# --- models list: the ids whole ---------------------------------------------------------------------------


def test_models_list_piped_keeps_every_id_and_source_whole():
    """rich drew the table 80 columns wide in a pipe, so `groove models list | grep jina`
    showed "jina-reranker-v2-bas…", not the id `groove models pull` takes."""
    rows = json.loads(run_groove("models", "list", "--json").stdout)["models"]
    r = run_groove("models", "list")
    assert r.returncode == 0, r.stderr
    for m in rows:
        assert f" {m['id']} " in r.stdout, m["id"]
        assert not m["source"] or m["source"] in r.stdout, m["source"]
    assert "…" not in r.stdout


# --- related NOTE by its name -----------------------------------------------------------------------------


def test_related_takes_a_notes_name_as_a_link_names_it(ix):
    """`groove related Apples` said "'Apples' is not an indexed note. Did you
    mean: 'Garden/Apples.md'?": a name is read as [[Apples]] is, and said so."""
    r = run_groove("related", "apples", "--limit", "3", *ix, "--no-daemon")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("similar to Garden/Apples.md")
    assert "apples: read as [[apples]], Garden/Apples.md" in r.stderr
    # what no link reaches is still an error, with the did-you-mean and the command (no MCP tool)
    r = run_groove("related", "Appl", *ix, "--no-daemon")
    assert r.returncode == 2 and "Did you mean: 'Garden/Apples.md'" in r.stderr, r.stderr
    assert "groove index " in r.stderr and "MCP" not in r.stderr
