"""The counter every change of a note or chunk row moves (``meta.rows_version``,
kept by triggers that storage's migration 003 creates): an in-memory copy made
at one value is current while the counter holds it."""

from __future__ import annotations

import apsw


def rows_version(conn: apsw.Connection) -> str | None:
    """The counter's value, or None in a file without it."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'rows_version'").fetchone()
    return row[0] if row else None
