"""`groove search` on an 80-column terminal, run as a user runs it (a
subprocess writing to a pseudo-terminal): a hit's line keeps its score on
it, however long the note's path and headings, and the lines above the hits
(warnings, the confidence line) go on under the hits' text when they wrap,
not at the margin. The tiny model, a vault indexed once."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
import unicodedata

import pytest

from helpers import indexed_notes

LONG = "Keeping the index fresh while notes are renamed, moved between folders and edited"
NOTES = {
    "Guides/Synchronisation between several devices/Keeping the index fresh.md":
        f"# {LONG}\n\n## Renamed and moved notes\n\n"
        "Moving a note to another folder does not embed it again: the stored vectors are reused.\n",
    "Short.md": "# Short\n\nA note about moving folders.\n",
    "同期/スマートフォンとパソコンで同じノートを使う方法.md":
        "# スマートフォンとパソコンで同じノートを使う方法\n\n## 同期サービスで保管庫のフォルダをコピーする\n\n"
        "ノートを移動しても埋め込みは再利用されます。\n",
}
COLUMNS = 80
HIT = re.compile(r"^ ?\d+\. ")


@pytest.fixture(scope="module")
def ix(tmp_path_factory, tiny_model_path) -> list[str]:
    root = tmp_path_factory.mktemp("at-80")
    _, index = indexed_notes(root, NOTES, tiny_model_path)
    return ["--index", str(index), "--model", str(tiny_model_path), "--no-daemon"]


def on_a_terminal(*args: str) -> list[str]:
    """``groove ARGS``'s standard output as a terminal of ``COLUMNS`` columns shows it."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": str(COLUMNS), "NO_COLOR": "1"}
    env.pop("FORCE_COLOR", None)
    p = subprocess.Popen([sys.executable, "-m", "groove", *args], stdout=follower, stderr=subprocess.PIPE, env=env)
    os.close(follower)
    out = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the command ended and closed the terminal
            break
        if not data:
            break
        out += data
    os.close(leader)
    _, err = p.communicate(timeout=300)
    assert p.returncode == 0, err.decode()
    return out.decode("utf-8").replace("\r\n", "\n").splitlines()


def columns(line: str) -> int:
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in line)


def test_a_hit_line_keeps_its_score_and_cuts_its_headings_instead(ix):
    lines = on_a_terminal("search", "renamed moved folders", "--limit", "5", *ix)
    assert all(columns(line) <= COLUMNS for line in lines), lines
    hits = [line for line in lines if HIT.match(line)]
    assert len(hits) == len(NOTES), lines
    # every hit line ends with its line number and score: nothing wrapped onto a line of its own
    assert all(re.search(r"  L\d+  \d\.\d{4}$", line) for line in hits), lines
    assert not any(re.fullmatch(r"\s*(L\d+\s+)?\d\.\d{4}", line) for line in lines), lines
    long_hit = next(line for line in hits if "Keeping the index fresh.md" in line)
    assert "…" in long_hit and "Renamed and moved notes" in long_hit, long_hit  # the section's own name is kept
    assert "Short.md  Short  L1  " in next(line for line in hits if "Short.md" in line)  # a short one is whole
    ja = next(line for line in hits if "ノート" in line)  # wide characters counted as two columns
    assert "…" in ja and columns(ja) >= COLUMNS - 1, ja  # cut to the width, not short of it


def test_the_lines_above_the_hits_wrap_under_the_hits_text(ix):
    # '"%%%"': no note holds it, so a warning; --explain adds the confidence line
    lines = on_a_terminal("search", '"%%%"', "--explain", *ix)
    first_hit = next(k for k, line in enumerate(lines) if HIT.match(line))
    above = lines[:first_hit]
    assert above[0].startswith("no strong match"), lines
    assert any(line.startswith("warning: ") for line in above) and any(line.startswith("confidence: ")
                                                                        for line in above), lines
    continued = [line for line in above if not line.startswith(("no strong match", "warning: ", "confidence: "))]
    assert continued, f"nothing wrapped at {COLUMNS} columns: {above}"
    assert all(line.startswith("    ") and line[4] != " " for line in continued), above
    assert all(columns(line) <= COLUMNS for line in lines), lines
