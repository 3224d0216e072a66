"""`groove search --where` and a daily note's day under `--from/--to`
(ADR 0191), through the real CLI in subprocesses with the tiny model:
typed comparisons, a bad entry, re-indexing after a property changes, a
change of the daily-notes settings, and an index made before the
property table."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from helpers import run_groove as _groove
from helpers import write_note

NOTES = {
    "Projects/Alpha.md": ("---\nstatus: done\npriority: 3\nurgent: true\nowners: [Ann, Bob]\n"
                          "project: \"[[Groove|the app]]\"\ndue: 2026-12-10\n---\n# Alpha\n\norchard plan alpha\n"),
    "Projects/Beta.md": ("---\nStatus: Todo\npriority: 1.5\nurgent: false\nowners: Cid\ndue: 2027-01-02\n---\n"
                         "# Beta\n\norchard plan beta\n"),
    "Projects/Gamma.md": "# Gamma\n\norchard plan gamma, no properties at all\n",
    "Journal/05.12.2026.md": "---\ncreated: 2026-11-30\n---\n# Saturday\n\norchard plan for the day\n",
}


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    v = tmp_path / "vault"
    for rel, text in NOTES.items():
        write_note(v, rel, text)
    write_note(v, ".obsidian/daily-notes.json", json.dumps({"folder": "Journal", "format": "DD.MM.YYYY"}))
    return v


class Cli:
    def __init__(self, vault: Path, index: Path, model: Path) -> None:
        self.vault, self.index, self.model = vault, index, model

    def index_run(self) -> dict:
        r = _groove("index", str(self.vault), "--index", str(self.index), "--model", str(self.model), "--json")
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def run(self, *flags: str, query: str = "orchard plan", limit: int = 10) -> subprocess.CompletedProcess:
        return _groove("search", query, "--vault", str(self.vault), "--index", str(self.index), "--model",
                       str(self.model), "--json", "--no-daemon", "--limit", str(limit), *flags)

    def paths(self, *flags: str, **kw) -> set[str]:
        r = self.run(*flags, **kw)
        assert r.returncode == 0, r.stderr
        return {h["path"] for h in json.loads(r.stdout)["results"]}


@pytest.fixture
def cli(vault: Path, tmp_path: Path, tiny_model_path: Path) -> Cli:
    c = Cli(vault, tmp_path / "index.sqlite", tiny_model_path)
    assert c.index_run()["indexed"] == 4
    return c


ALPHA, BETA, GAMMA, DAILY = "Projects/Alpha.md", "Projects/Beta.md", "Projects/Gamma.md", "Journal/05.12.2026.md"


def test_where_compares_text_numbers_booleans_lists_and_dates(cli):
    assert cli.paths("--where", "status=done") == {ALPHA}
    assert cli.paths("--where", "status=TODO") == {BETA}  # names and text compare without case
    assert cli.paths("--where", "status!=done") == {BETA, GAMMA, DAILY}  # notes without it pass !=
    assert cli.paths("--where", "priority>2") == {ALPHA}
    assert cli.paths("--where", "priority<=1.5") == {BETA}
    assert cli.paths("--where", "priority>=1", "--where", "priority<3") == {BETA}  # all must hold
    assert cli.paths("--where", "urgent=true") == {ALPHA}
    assert cli.paths("--where", "urgent=false") == {BETA}
    assert cli.paths("--where", "owners=bob") == {ALPHA}  # a list property contains the value
    assert cli.paths("--where", "owners=cid") == {BETA}  # a single value is a one-item list
    assert cli.paths("--where", "project=Groove") == {ALPHA}  # a wikilink value is its target
    assert cli.paths("--where", "due<2027-01-01") == {ALPHA}
    assert cli.paths("--where", "due>=2027-01-02") == {BETA}
    assert cli.paths("--where", "priority>2", "--where", "status=todo") == set()
    r = cli.run("--where", "status=done", "--path", "Projects/**")
    assert json.loads(r.stdout)["filter_applied"] == {"path_globs": ["Projects/**"], "where": ["status=done"]}


def test_the_filter_narrows_the_candidates_before_the_top_k(cli):
    for i in range(25):  # notes that out-rank Beta for the query, none of them todo
        write_note(cli.vault, f"Noise/n{i:02d}.md", "# Noise\n\norchard orchard orchard plan plan plan\n")
    cli.index_run()
    assert BETA not in cli.paths(limit=1)
    assert cli.paths("--where", "status=todo", limit=1) == {BETA}


@pytest.mark.parametrize("entry, says", [
    ("status", "no operator"),
    ("priority>high", "orders numbers and dates"),
    ("due<2026-02-30", "not a day of the calendar"),
])
def test_a_bad_where_is_an_error_that_says_what_to_write(cli, entry, says):
    r = cli.run("--where", entry)
    assert r.returncode != 0
    assert says in r.stderr and f"--where filter {entry!r}" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr


def test_a_daily_note_is_dated_by_its_name_before_its_frontmatter_and_file_time(cli):
    assert cli.paths("--from", "2026-12-05", "--to", "2026-12-05") == {DAILY}
    assert DAILY not in cli.paths("--from", "2026-11-30", "--to", "2026-11-30")  # its `created` is not its day
    assert cli.paths("--where", "created=2026-11-30") == {DAILY}  # the property stays reachable


def test_a_changed_property_is_filtered_on_after_the_incremental_index(cli):
    write_note(cli.vault, "Projects/Beta.md", NOTES["Projects/Beta.md"].replace("Status: Todo", "status: done"))
    out = cli.index_run()
    assert out["indexed"] == 1
    assert cli.paths("--where", "status=done") == {ALPHA, BETA}
    assert cli.paths("--where", "status=todo") == set()
    r = _groove("index", str(cli.vault), "--index", str(cli.index), "--model", str(cli.model), "--rebuild")
    assert r.returncode == 0, r.stderr  # built aside and copied in: the property rows come along
    assert cli.paths("--where", "status=done") == {ALPHA, BETA}


def test_new_daily_notes_settings_re_date_the_notes_without_re_embedding(cli):
    write_note(cli.vault, ".obsidian/daily-notes.json", json.dumps({"folder": "Projects", "format": "YYYY-MM-DD"}))
    out = cli.index_run()
    assert out["chunks_embedded"] == 0 and out["indexed"] == 0
    assert DAILY not in cli.paths("--from", "2026-12-05", "--to", "2026-12-05")
    assert DAILY in cli.paths("--from", "2026-11-30", "--to", "2026-11-30")  # back to its frontmatter `created`


def test_an_index_made_before_the_property_table_filters_without_a_rebuild(cli):
    from groove.storage.db import Index

    idx = Index(cli.index)
    with idx.atomic() as c:  # as schema 4 left it: no property table
        c.execute("DROP TABLE note_properties")
        c.execute("UPDATE meta SET value = '4' WHERE key = 'schema_version'")
        c.execute("DROP TABLE migrations")  # schema 4 predates it
    idx.close()
    assert cli.paths("--where", "owners=ann") == {ALPHA}
    assert cli.index_run()["chunks_embedded"] == 0
