"""The day a daily note is for, read from its file name under the vault's
daily-notes settings (Obsidian's core plugin: ``.obsidian/daily-notes.json``,
``{"folder": "Journal", "format": "YYYY-MM-DD", "template": "..."}``).

The format is moment.js's. The tokens daily-note names are made of are
understood: YYYY, YY, MMMM, MMM, MM, M, DD, D, Do, the weekday names
(dddd, ddd, dd, d: matched, not checked) and ``[literal]`` text; a ``/``
makes sub-folders, as in Obsidian. A format using any other moment token
gives no daily-note dates and a warning, never a wrong date.

Without the settings file, a note whose file name is a ``YYYY-MM-DD`` date
is a daily note wherever it lies (ADR 0191).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .encoding import nfc

DAILY_NOTES_FILE = ".obsidian/daily-notes.json"
DEFAULT_FORMAT = "YYYY-MM-DD"

_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december"]
# Longest first: moment reads the longest token at each position.
_TOKEN = re.compile(r"\[[^\]]*\]|YYYY|YY|MMMM|MMM|MM|M|Do|DD|D|dddd|ddd|dd|d|[A-Za-z]|.", re.DOTALL)
# Letters moment reads as a token (the rest are literal text in a format).
_MOMENT_LETTERS = frozenset("YyMDdQWwGgEeHhkmSsaAXxZzNLl")
_GROUPS = {
    "YYYY": ("year", r"\d{4}"), "YY": ("yy", r"\d{2}"),
    "MMMM": ("month_name", "|".join(_MONTHS)), "MMM": ("month_abbr", "|".join(m[:3] for m in _MONTHS)),
    "MM": ("month", r"\d{2}"), "M": ("month", r"\d{1,2}"),
    "DD": ("day", r"\d{2}"), "D": ("day", r"\d{1,2}"), "Do": ("day", r"\d{1,2}(?:st|nd|rd|th)"),
}
_WEEKDAY = {"dddd": r"[^\W\d_]+", "ddd": r"[^\W\d_]+", "dd": r"[^\W\d_]+", "d": r"\d"}


@dataclass(frozen=True)
class DailyNotes:
    """Which notes are daily notes, and their day. ``pattern`` None: none are."""

    folder: str | None  # vault-relative, no slashes at the ends; None = anywhere (no settings file)
    format: str
    pattern: re.Pattern[str] | None
    warnings: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """What the index remembers, to re-date its notes when the settings change."""
        return json.dumps({"folder": self.folder, "format": self.format if self.pattern else None})

    def date_of(self, path: str) -> str | None:
        """The ISO day of the daily note at vault-relative ``path``, or None."""
        if self.pattern is None or not path.lower().endswith(".md"):
            return None
        rel = nfc(path[:-3])
        if self.folder is None:
            rel = PurePosixPath(rel).name
        elif self.folder:
            if not rel.startswith(self.folder + "/"):
                return None
            rel = rel[len(self.folder) + 1:]
        m = self.pattern.fullmatch(rel)
        return _day(m) if m else None


def _day(m: re.Match[str]) -> str | None:
    g = m.groupdict()
    year = int(g["year"]) if g.get("year") else 2000 + int(g["yy"])
    if g.get("month"):
        month = int(g["month"])
    else:
        name = (g.get("month_name") or g.get("month_abbr") or "").lower()
        month = next(i for i, full in enumerate(_MONTHS, 1) if full.startswith(name))
    digits = re.match(r"\d+", g["day"])
    if digits is None:  # the day group is built of digits: never, but say so rather than crash
        return None
    day = int(digits.group(0))
    try:
        return _dt.date(year, month, day).isoformat()
    except ValueError:  # 2026-02-30.md is a note, not a day
        return None


def compile_format(fmt: str) -> re.Pattern[str] | str:
    """The file-name pattern of a moment.js format, or why it cannot be read."""
    parts: list[str] = []
    seen: set[str] = set()
    for tok in _TOKEN.findall(fmt):
        if tok.startswith("[") and tok.endswith("]"):
            parts.append(re.escape(tok[1:-1]))
        elif tok in _GROUPS:
            name, rx = _GROUPS[tok]
            if name in seen or (name in ("year", "yy") and seen & {"year", "yy"}) \
                    or (name.startswith("month") and any(s.startswith("month") for s in seen)):
                parts.append(f"(?:{rx})")  # a second mention is matched, the first one counts
            else:
                seen.add(name)
                parts.append(f"(?P<{name}>{rx})")
        elif tok in _WEEKDAY:
            parts.append(f"(?:{_WEEKDAY[tok]})")
        elif tok in _MOMENT_LETTERS:
            return f"the moment.js token {tok!r} is not understood (YYYY, MM, DD, M, D, MMMM and [text] are)"
        else:
            parts.append(re.escape(tok))
    if not ({"year", "yy"} & seen and any(s.startswith("month") for s in seen) and "day" in seen):
        return "it does not name a year, a month and a day"
    return re.compile("".join(parts), re.IGNORECASE)


_cache: dict[str, tuple[tuple[int, int] | None, DailyNotes]] = {}


def daily_notes(vault: Path) -> DailyNotes:
    """The vault's daily-notes rule, re-read when the settings file changes.
    A settings file that cannot be used is a warning; its notes keep the
    default rule, or none when the format is one groove cannot read."""
    f = Path(vault) / DAILY_NOTES_FILE
    try:
        st = os.stat(f)
        stamp: tuple[int, int] | None = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = None
    kept = _cache.get(str(f))
    if kept is not None and kept[0] == stamp:
        return kept[1]
    rule = _read(f) if stamp is not None else _rule(None, DEFAULT_FORMAT, ())
    if len(_cache) > 64:
        _cache.clear()
    _cache[str(f)] = (stamp, rule)
    return rule


def _rule(folder: str | None, fmt: str, warnings: tuple[str, ...]) -> DailyNotes:
    pattern = compile_format(fmt)
    if isinstance(pattern, str):
        return DailyNotes(folder, fmt, None, (*warnings, f"{DAILY_NOTES_FILE}: format {fmt!r}: {pattern}; "
                                                          "daily notes are not dated by their names"))
    return DailyNotes(folder, fmt, pattern, warnings)


def _read(f: Path) -> DailyNotes:
    try:
        raw = json.loads(f.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return _rule(None, DEFAULT_FORMAT, (f"{DAILY_NOTES_FILE} cannot be read ({e}): daily notes are "
                                            f"recognised by {DEFAULT_FORMAT} names anywhere",))
    if not isinstance(raw, dict):
        raw = {}
    folder, fmt = raw.get("folder"), raw.get("format")
    folder = folder if isinstance(folder, str) else ""
    fmt = fmt if isinstance(fmt, str) and fmt.strip() else DEFAULT_FORMAT
    return _rule(nfc(folder.strip().strip("/")), fmt.strip(), ())
