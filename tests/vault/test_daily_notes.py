"""A daily note's day from its file name (ADR 0191): Obsidian's daily-notes
settings, moment.js formats, the default without settings, and settings
that cannot be used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groove.vault.daily_notes import DAILY_NOTES_FILE, compile_format, daily_notes


def _settings(vault: Path, **kw: object) -> None:
    f = vault / DAILY_NOTES_FILE
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(json.dumps(kw), encoding="utf-8")


def test_without_settings_a_date_named_note_anywhere_is_a_daily_note(tmp_path):
    rule = daily_notes(tmp_path)
    assert rule.date_of("2026-12-05.md") == "2026-12-05"
    assert rule.date_of("Journal/2026/2026-12-05.md") == "2026-12-05"
    assert rule.date_of("Journal/2026-12-05 notes.md") is None
    assert rule.date_of("2026-02-30.md") is None  # not a day of the calendar
    assert rule.date_of("2026-12-05.canvas") is None
    assert rule.warnings == ()


@pytest.mark.parametrize("fmt, path, day", [
    ("YYYY-MM-DD", "Journal/2026-12-05.md", "2026-12-05"),
    ("DD.MM.YYYY", "Journal/05.12.2026.md", "2026-12-05"),
    ("YYYY/MM/YYYY-MM-DD", "Journal/2026/12/2026-12-05.md", "2026-12-05"),
    ("YYYY-MM-DD dddd", "Journal/2026-12-05 Saturday.md", "2026-12-05"),
    ("[Daily] D MMMM YYYY", "Journal/Daily 5 December 2026.md", "2026-12-05"),
    ("MMM Do, YY", "Journal/Dec 5th, 26.md", "2026-12-05"),
    ("YYYYMMDD", "Journal/20261205.md", "2026-12-05"),
    ("M-D-YYYY", "Journal/12-5-2026.md", "2026-12-05"),
])
def test_moment_formats_under_the_daily_folder(tmp_path, fmt, path, day):
    _settings(tmp_path, folder="Journal/", format=fmt, template="Templates/Daily")
    rule = daily_notes(tmp_path)
    assert rule.warnings == ()
    assert rule.date_of(path) == day
    assert rule.date_of(path.replace("Journal/", "Other/")) is None  # outside the folder: not a daily note


def test_an_empty_folder_is_the_vault_root_as_in_obsidian(tmp_path):
    _settings(tmp_path, folder="", format="YYYY-MM-DD")
    rule = daily_notes(tmp_path)
    assert rule.date_of("2026-12-05.md") == "2026-12-05"
    assert rule.date_of("Journal/2026-12-05.md") is None


def test_a_format_with_tokens_groove_cannot_read_dates_nothing_and_says_so(tmp_path):
    _settings(tmp_path, folder="Journal", format="gggg-[W]ww")
    rule = daily_notes(tmp_path)
    assert rule.date_of("Journal/2026-W49.md") is None
    assert rule.date_of("Journal/2026-12-05.md") is None  # never a wrong date from the default
    assert len(rule.warnings) == 1 and "'g'" in rule.warnings[0] and DAILY_NOTES_FILE in rule.warnings[0]
    assert isinstance(compile_format("HH:mm"), str) and isinstance(compile_format("MM-DD"), str)  # no year


def test_a_broken_settings_file_is_a_warning_and_the_default_applies(tmp_path):
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / DAILY_NOTES_FILE).write_text("{not json", encoding="utf-8")
    rule = daily_notes(tmp_path)
    assert rule.date_of("Anywhere/2026-12-05.md") == "2026-12-05"
    assert rule.warnings and "cannot be read" in rule.warnings[0]


def test_the_rule_is_read_again_when_the_settings_change(tmp_path):
    _settings(tmp_path, folder="A", format="YYYY-MM-DD")
    first = daily_notes(tmp_path)
    assert daily_notes(tmp_path) is first  # kept while the file is unchanged
    _settings(tmp_path, folder="Bee", format="YYYY-MM-DD")
    second = daily_notes(tmp_path)
    assert second.date_of("Bee/2026-12-05.md") == "2026-12-05" and second.date_of("A/2026-12-05.md") is None
    assert second.key != first.key
