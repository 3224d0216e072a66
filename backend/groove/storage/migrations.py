"""The index schema: every table, index and trigger of the file, as named
migrations run once each, in order, and recorded in the ``migrations`` table.

Read top to bottom, this file is the history of the schema, and the only
place a table is created (tests/test_migrations.py fails on a CREATE
elsewhere). To change the schema, append a migration to ``MIGRATIONS``:
never edit or reorder one that has shipped, since files out there recorded
it by name. ``vec_chunks``/``vec_notes`` are created by ``create_vec_tables``
when the first index run knows the embedder's dimension, and dropped by a
rebuild (the dimension may change).

The ``migrations`` table (name, applied_at) follows simonw's sqlite-utils and
llm. Files written before it existed (schema_version 1 to 6 in ``meta``, the
short-CJK table versioned by ``shortcjk_version``) ran every migration their
stamps name: opening one records those, with the time of that open, and runs
only the rest (ADR 0271).
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from itertools import islice

import apsw

from ..engines.lexical import shortcjk
from ..engines.rows import rows_version

__all__ = ["rows_version"]  # re-exported: storage's readers ask it here

# The stamp older releases read: they refuse a file stamped past what they
# know. Raise it only with a migration an older release must not read past.
SCHEMA_VERSION = 6
MIGRATIONS_TABLE = "migrations"


def m001_create_tables(conn: apsw.Connection) -> None:
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS meta (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS documents (
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,          -- vault-relative, '/' separators
            title TEXT NOT NULL,
            aliases TEXT NOT NULL DEFAULT '[]', -- JSON list
            tags TEXT NOT NULL DEFAULT '[]',    -- JSON list (frontmatter + #tags)
            description TEXT NOT NULL DEFAULT '',
            date TEXT,                          -- frontmatter date (ISO) or NULL
            frontmatter TEXT NOT NULL DEFAULT '{}',
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            content_hash TEXT NOT NULL,
            indexed_at REAL NOT NULL
        );
        CREATE INDEX IF NOT EXISTS documents_hash ON documents(content_hash);
        CREATE TABLE IF NOT EXISTS chunks (
            id INTEGER PRIMARY KEY,
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            ordinal INTEGER NOT NULL,
            level INTEGER NOT NULL,
            heading TEXT NOT NULL,
            heading_path TEXT NOT NULL,         -- JSON list
            context TEXT NOT NULL,
            content TEXT NOT NULL,
            byte_start INTEGER NOT NULL,
            byte_end INTEGER NOT NULL,
            line_start INTEGER NOT NULL,
            line_end INTEGER NOT NULL,
            token_count INTEGER                 -- NULL allowed: old rows, see parent.py
        );
        CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, ordinal);
        -- rowid = chunks.id; trigram so substrings (and Japanese) match.
        CREATE VIRTUAL TABLE IF NOT EXISTS fts_chunks USING fts5(
            heading, context, content, tokenize = 'trigram'
        );
        CREATE TABLE IF NOT EXISTS links (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            target TEXT NOT NULL,
            heading TEXT,
            block TEXT,
            alias TEXT,
            embed INTEGER NOT NULL,
            line INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS links_doc ON links(doc_id);
        CREATE INDEX IF NOT EXISTS links_target ON links(target);
        CREATE TABLE IF NOT EXISTS tags (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            tag TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS tags_tag ON tags(tag, doc_id);
        """
    )


def m002_skipped_notes(conn: apsw.Connection) -> None:
    # Notes the last runs did not index, and why (ADR 0093), for `groove
    # status`, index_status and the editors. size/mtime_ns: the file's stat
    # when it was skipped (NULL if unknown). sticky: the reason comes from the
    # content (binary, unparseable, not embeddable), so the note is not
    # retried while its stat stays the same and the same groove version runs.
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS skipped (
            path TEXT PRIMARY KEY,              -- as shown: a non-UTF-8 name escaped (\\xNN)
            reason TEXT NOT NULL,
            size INTEGER,
            mtime_ns INTEGER,
            sticky INTEGER NOT NULL DEFAULT 0,
            groove_version TEXT,
            at REAL NOT NULL
        );
        """
    )


def m003_rows_version(conn: apsw.Connection) -> None:
    # A counter every change of chunks or documents bumps, in the writer's own
    # transaction, so a reader knows its in-memory copy of the vectors is
    # stale with one row read (engines/vectors/cache.py, ADR 0121). Vectors change
    # only with their chunk or note row (vec0 tables take no triggers).
    conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES ('rows_version', '0')")
    bump = "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'rows_version';"
    for table in ("chunks", "documents"):
        for op in ("INSERT", "DELETE", "UPDATE"):
            conn.execute(f"CREATE TRIGGER IF NOT EXISTS {table}_{op.lower()}_bumps_rows_version "
                         f"AFTER {op} ON {table} BEGIN {bump} END")


# The part of a link's target after its last "/", lower-cased as SQLite
# lowers (ASCII): backlinks ask which links end in "/<note's name>".
LINK_TARGET_TAIL = "lower(replace(target, rtrim(target, replace(target, '/', '')), ''))"


def m004_link_target_indexes(conn: apsw.Connection) -> None:
    # A note's backlinks are the links whose target, lower-cased, is one of
    # its names or ends in "/<name>" (index/notes.py ``links_naming``).
    # Without these, that scanned every link: ~45 ms a call at 140k links.
    conn.execute("CREATE INDEX IF NOT EXISTS links_target_folded ON links(lower(target))")
    conn.execute(f"CREATE INDEX IF NOT EXISTS links_target_tail ON links({LINK_TARGET_TAIL})")


PROPERTY_COLUMNS = "doc_id, key, value_text, value_num, value_date"


def m005_note_properties(conn: apsw.Connection) -> None:
    # Every scalar value of every frontmatter property, a list's items one row
    # each, for `where` filters (ADR 0191): key and text folded as
    # vault/properties.py folds them; value_num / value_date when the value is
    # a number / a day. An index made before this migration fills the table
    # from the frontmatter it already stores, so no --rebuild is needed.
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'note_properties'").fetchone():
        return
    conn.execute(
        """
        CREATE TABLE note_properties (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            value_text TEXT NOT NULL,
            value_num REAL,
            value_date TEXT
        );
        CREATE INDEX note_properties_text ON note_properties(key, value_text);
        CREATE INDEX note_properties_num ON note_properties(key, value_num) WHERE value_num IS NOT NULL;
        CREATE INDEX note_properties_date ON note_properties(key, value_date) WHERE value_date IS NOT NULL;
        CREATE INDEX note_properties_doc ON note_properties(doc_id);
        """
    )
    from ..vault.properties import property_values

    rows = []
    for doc_id, raw in conn.execute("SELECT id, frontmatter FROM documents"):
        try:
            meta = json.loads(raw or "{}")
        except ValueError:
            continue
        if isinstance(meta, dict):
            rows += [(doc_id, *v) for v in property_values(meta)]
    conn.executemany(f"INSERT INTO note_properties({PROPERTY_COLUMNS}) VALUES (?,?,?,?,?)", rows)


def m006_line_census(conn: apsw.Connection) -> None:
    # Template boilerplate (index/boilerplate.py, ADR 0210): each note's
    # distinct line keys, and whether its stored vectors left the line out;
    # line_counts keeps, per key, how many notes hold it and how many of them
    # suppressed it, in the writer's own transaction. A table made here is
    # empty whatever the meta says: the census is taken again from the stored
    # chunks (boilerplate.backfill) on the next run (issue 50 R14).
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'note_lines'").fetchone():
        conn.execute("DELETE FROM meta WHERE key = 'line_census'")
    conn.execute(
        """
        CREATE TABLE IF NOT EXISTS note_lines (
            doc_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
            h INTEGER NOT NULL,
            suppressed INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (doc_id, h)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS note_lines_h ON note_lines(h, suppressed);
        CREATE TABLE IF NOT EXISTS line_counts (
            h INTEGER PRIMARY KEY,
            notes INTEGER NOT NULL,
            suppressed INTEGER NOT NULL
        );
        CREATE INDEX IF NOT EXISTS line_counts_notes ON line_counts(notes);
        CREATE TRIGGER IF NOT EXISTS note_lines_insert_counts AFTER INSERT ON note_lines BEGIN
            INSERT INTO line_counts(h, notes, suppressed) VALUES (new.h, 1, new.suppressed)
            ON CONFLICT(h) DO UPDATE SET notes = notes + 1, suppressed = suppressed + new.suppressed;
        END;
        CREATE TRIGGER IF NOT EXISTS note_lines_delete_counts AFTER DELETE ON note_lines BEGIN
            UPDATE line_counts SET notes = notes - 1, suppressed = suppressed - old.suppressed WHERE h = old.h;
            DELETE FROM line_counts WHERE h = old.h AND notes <= 0;
        END;
        CREATE TRIGGER IF NOT EXISTS note_lines_update_counts AFTER UPDATE OF suppressed ON note_lines BEGIN
            UPDATE line_counts SET suppressed = suppressed - old.suppressed + new.suppressed WHERE h = new.h;
        END;
        """
    )


def m007_short_cjk_bigrams(conn: apsw.Connection) -> None:
    # The short-CJK bigram table (engines/lexical/shortcjk.py, ADR 0011):
    # rowid = chunks.id, columns as fts_chunks so the same bm25 weights
    # apply; contentless with contentless_delete, so the bigram text is not
    # stored twice. remove_diacritics 0: never fold kana (グ must not become ク).
    conn.execute(
        f"""CREATE VIRTUAL TABLE IF NOT EXISTS {shortcjk.TABLE} USING fts5(
            heading, context, content,
            tokenize = 'unicode61 remove_diacritics 0',
            content = '', contentless_delete = 1
        )"""
    )


def m008_short_cjk_hangul(conn: apsw.Connection) -> None:
    # Hangul bigrams (ADR 0161). A table written before holds none: rewrite
    # the rows of chunks that contain Hangul (the only rows whose bigrams
    # changed) from the text fts_chunks keeps. GLOB filters in C: an English
    # or Japanese vault reads none of its text into Python.
    has = " OR ".join(f"{col} GLOB '*[{shortcjk.HANGUL_GLOB}]*'" for col in ("heading", "context", "content"))
    rows = conn.execute(f"SELECT rowid, heading, context, content FROM fts_chunks WHERE {has}")
    while batch := list(islice(rows, 500)):  # a big Korean vault's text never whole in memory
        for rid, heading, context, content in batch:
            shortcjk.upsert(conn, int(rid), heading or "", context or "", content or "")
    # The stamp releases before the migrations table read (they rewrite otherwise).
    conn.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 (shortcjk.META_KEY, shortcjk.VERSION))


def m009_sentence_vectors(conn: apsw.Connection) -> None:
    # answer_spans' sentence vectors, kept (storage/sentences.py, ADR 0281):
    # key = blake2b-128 of the text the model read, vector = float16 bytes.
    # Of one model, named in meta; a cache: anything in it can be dropped.
    conn.execute(
        """CREATE TABLE IF NOT EXISTS sentence_vectors (
            key BLOB PRIMARY KEY,
            vector BLOB NOT NULL
        ) WITHOUT ROWID"""
    )


@dataclasses.dataclass(frozen=True)
class Migration:
    name: str
    run: Callable[[apsw.Connection], None]
    # A cache's table: a read-only file without it is searched as it is (its
    # readers find no table and do without).
    cache: bool = False


def _named(fn: Callable[[apsw.Connection], None], cache: bool = False) -> Migration:
    return Migration(fn.__name__.removeprefix("m"), fn, cache)


MIGRATIONS: list[Migration] = [_named(m) for m in (
    m001_create_tables, m002_skipped_notes, m003_rows_version, m004_link_target_indexes,
    m005_note_properties, m006_line_census, m007_short_cjk_bigrams, m008_short_cjk_hangul,
)] + [_named(m009_sentence_vectors, cache=True)]
KNOWN = {m.name for m in MIGRATIONS}


def _exists(conn: apsw.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (name,)).fetchone() is not None


def _legacy_done(conn: apsw.Connection) -> set[str]:
    """What a file from before the migrations table ran, by its stamps:
    every migration up to its schema_version (those releases ran them all
    on each open), the bigram table if it is there, its Hangul rows if
    ``shortcjk_version`` says so."""
    stamped = stamped_version(conn)
    if stamped is None:
        return set()
    done = {m.name for m in MIGRATIONS[:min(stamped, SCHEMA_VERSION)]}
    if done and _exists(conn, shortcjk.TABLE):
        done.add(_named(m007_short_cjk_bigrams).name)
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (shortcjk.META_KEY,)).fetchone()
        if row is not None and row[0] == shortcjk.VERSION:
            done.add(_named(m008_short_cjk_hangul).name)
    return done


def stamped_version(conn: apsw.Connection) -> int | None:
    """The schema version the file says it holds: None for a file with no
    groove tables (new, empty), 0 for one with a meta table but no stamp."""
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone():
        return None
    row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    try:
        return int(row[0]) if row else 0
    except ValueError:
        return 0


def applied(conn: apsw.Connection) -> list[tuple[str, float]]:
    """The migrations the file records, (name, applied_at), in the order they ran."""
    if not _exists(conn, MIGRATIONS_TABLE):
        return []
    return [(str(n), float(at)) for n, at in
            conn.execute(f"SELECT name, applied_at FROM {MIGRATIONS_TABLE} ORDER BY applied_at, rowid")]


def done(conn: apsw.Connection) -> set[str]:
    """The migrations the file has run: its records, or for a file from
    before the table, what its stamps say."""
    if _exists(conn, MIGRATIONS_TABLE):
        return {n for n, _ in applied(conn)}
    return _legacy_done(conn)


def pending(conn: apsw.Connection) -> list[Migration]:
    """The migrations this groove knows and the file has not run, in order."""
    ran = done(conn)
    return [m for m in MIGRATIONS if m.name not in ran]


def unknown(conn: apsw.Connection) -> list[str]:
    """Migrations the file records that this groove does not know: a newer groove ran them."""
    return sorted(n for n, _ in applied(conn) if n not in KNOWN)


def current(conn: apsw.Connection) -> bool:
    """Nothing to run and nothing to record: opening the file writes nothing."""
    return _exists(conn, MIGRATIONS_TABLE) and not pending(conn)


def migrate(conn: apsw.Connection) -> list[str]:
    """Run the pending migrations, each recorded by name as it runs (in the
    caller's transaction); record what a file from before the table had
    already run. Returns the names run now."""
    legacy = None if _exists(conn, MIGRATIONS_TABLE) else _legacy_done(conn)
    conn.execute(f"""CREATE TABLE IF NOT EXISTS {MIGRATIONS_TABLE} (
        name TEXT PRIMARY KEY,
        applied_at REAL NOT NULL  -- unix time
    )""")
    now = time.time()
    if legacy:
        conn.executemany(f"INSERT OR IGNORE INTO {MIGRATIONS_TABLE}(name, applied_at) VALUES (?, ?)",
                         [(m.name, now) for m in MIGRATIONS if m.name in legacy])
    ran = []
    for m in pending(conn):
        m.run(conn)
        conn.execute(f"INSERT INTO {MIGRATIONS_TABLE}(name, applied_at) VALUES (?, ?)", (m.name, time.time()))
        ran.append(m.name)
    conn.execute("INSERT INTO meta(key, value) VALUES ('schema_version', ?) "
                 "ON CONFLICT(key) DO UPDATE SET value = excluded.value", (str(SCHEMA_VERSION),))
    return ran


def create_vec_tables(conn: apsw.Connection, dim: int) -> None:
    """The vector tables, once the embedder's dimension is known."""
    # rowid = chunks.id. L2 distance is sqlite-vec's default metric; vectors
    # are unit length, so L2 order equals cosine order.
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS vec_chunks USING vec0(embedding float[{int(dim)}])"
    )
    # rowid = documents.id: one vector per note, of its summary (store.note_text).
    conn.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS vec_notes USING vec0(embedding float[{int(dim)}])"
    )


def drop_vec_tables(conn: apsw.Connection) -> None:
    """For a rebuild: the next embedder may have another dimension."""
    conn.execute("DROP TABLE IF EXISTS vec_chunks")
    conn.execute("DROP TABLE IF EXISTS vec_notes")

