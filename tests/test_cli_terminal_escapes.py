"""Vault text never drives the terminal (issue 50 R11): a note's title and
text with escape sequences (set the window title, clear the screen, write
the clipboard) and file names holding ESC or a newline are printed escaped
by `groove search`, piped and on a terminal; `--json` stays exact JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import run_groove

TITLE = "# Title \x1b]0;PWNED\x07\n\n"
BODY = "zebrafinch song \x1b[2J\x1b]52;c;cHduZWQ=\x07 and more zebrafinch notes\n"
# What a terminal would obey: OSC (title, clipboard), clear screen, a colour the printer never uses, BEL.
HOSTILE = (b"\x1b]", b"\x1b[2J", b"\x1b[31m", b"\x07")


@pytest.fixture
def hostile(tmp_path: Path, tiny_model_path: Path) -> tuple[Path, Path, Path]:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "plain.md").write_text(TITLE + BODY, encoding="utf-8")
    (vault / "esc\x1b[31mred.md").write_text("# Red\n\nzebrafinch in a red file name\n", encoding="utf-8")
    (vault / "two\nlines.md").write_text("# Split\n\nzebrafinch in a file name with a newline\n", encoding="utf-8")
    index = tmp_path / "i.sqlite"
    r = run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    return vault, index, tiny_model_path


def _args(hostile: tuple[Path, Path, Path], *more: str) -> list[str]:
    vault, index, model = hostile
    return ["search", "zebrafinch", "--vault", str(vault), "--index", str(index), "--model", str(model),
            "--no-daemon", "--limit", "5", *more]


def test_piped_search_prints_vault_escapes_as_text_and_one_line_per_hit(hostile):
    r = subprocess.run([sys.executable, "-m", "groove", *_args(hostile, "--explain")], capture_output=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for seq in HOSTILE:
        assert seq not in out, (seq, out)
    assert b"\x1b" not in out  # a pipe gets no colour either
    text = out.decode()
    heads = [ln for ln in text.splitlines() if ln[:4].strip().rstrip(".").isdigit()]
    assert len(heads) == 3, text  # the newline in a name did not split its hit line
    assert any("esc\\x1b[31mred.md" in h for h in heads), text
    assert any("two\\nlines.md" in h for h in heads), text
    assert "Title \\x1b]0;PWNED\\x07" in text, text


def test_search_on_a_terminal_keeps_its_colours_and_escapes_the_vaults(hostile):
    import pty

    leader, follower = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")} | {"TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "groove", *_args(hostile)], stdout=follower,
                            stderr=subprocess.PIPE, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:  # EIO: the child closed its end
            break
        if not data:
            break
        chunks.append(data)
    assert proc.wait(300) == 0, proc.stderr.read() if proc.stderr else ""
    os.close(leader)
    out = b"".join(chunks)
    assert b"\x1b[1;36m" in out  # the printer's own colour for paths: it did see a terminal
    for seq in HOSTILE:
        assert seq not in out, (seq, out)
    assert b"esc\\x1b[31mred.md" in out and b"two\\nlines.md" in out


def test_json_output_keeps_the_exact_text(hostile):
    vault, index, model = hostile
    r = run_groove(*_args(hostile, "--json"))
    assert r.returncode == 0, r.stderr
    paths = {h["path"] for h in json.loads(r.stdout)["results"]}
    assert {"esc\x1b[31mred.md", "two\nlines.md", "plain.md"} <= paths
    assert "\x1b" not in r.stdout  # json escapes it (\u001b)
