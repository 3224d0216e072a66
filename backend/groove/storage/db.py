"""The index file: an apsw connection with sqlite-vec loaded, WAL, migrations.

apsw rather than the stdlib ``sqlite3``: many Pythons (python.org builds on
macOS among them) cannot load extensions with the stdlib module, and apsw
bundles a current SQLite with FTS5.

Each thread gets its own connection (``Index.conn``): the daemon answers
searches from reader threads while the indexer writes, and WAL lets readers
see the last committed state meanwhile.

The file holds every note's text: it is created 0600 (SQLite gives its WAL
and shared-memory files the database file's mode) in folders created 0700,
and a too-open existing one is tightened on open (ADR 0095).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from ..engines.lexical.word_index import WordPostingsCache
from ..engines.lexical.word_postings import WordPostings
from ..engines.vectors.cache import VectorCache
from ..errors import EmbedderMismatch, GrooveError, IndexMissing, IndexUnusable, IndexWriteFailed
from ..paths import UnsafeFolder, make_private_dirs, parent_problem, private_file_problem, tighten_file
from ..vault.encoding import nfc
from . import migrations

SIDE_FILES = ("-wal", "-shm", "-journal")
ROWS_VERSION_GAP = 1 << 32  # more row changes than any writer makes while one copy waits
COPY_PATIENCE_S = 120.0  # a rebuild's copy waits this long for other writers to let go


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[bool]:
    """Hold an exclusive lock on ``path`` (created 0600) while the block
    runs; yields False, holding nothing, when another process holds it.
    The OS drops the lock with the process, so a killed holder frees it."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            if sys.platform == "win32":  # pragma: no cover - Windows
                import msvcrt

                msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            else:
                import fcntl

                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        yield True
    finally:
        os.close(fd)


def _sql_nfc(*args: apsw.SQLiteValue) -> apsw.SQLiteValue:
    (x,) = args
    return nfc(x) if isinstance(x, str) else x


def _sql_tag_key(*args: apsw.SQLiteValue) -> apsw.SQLiteValue:
    (x,) = args
    return nfc(x.lower()) if isinstance(x, str) else x


def remove_index_files(path: Path) -> None:
    """Delete an index file and its side files (missing ones are fine)."""
    for p in (path, *(path.with_name(path.name + s) for s in SIDE_FILES)):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


class Index:
    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise IndexMissing(f"no index at {self.path}; run `groove index` first")
        make_private_dirs(self.path.parent)
        refuse_foreign(self.path)
        # A file this user cannot write (0400: a restored or shared copy) is
        # searched as it is: no migration, no stamp, no write (issue 50 R14).
        self.read_only = self.path.exists() and not (os.access(self.path, os.W_OK)
                                                     and os.access(self.path.parent, os.W_OK))
        if not self.read_only:
            _private_file(self.path)
        self._local = threading.local()
        self._all: list[apsw.Connection] = []
        self._lock = threading.Lock()
        self.write_lock = threading.RLock()  # one writer at a time in this process
        self.vectors = VectorCache()  # big vaults' KNN in numpy (ADR 0121)
        self.words = WordPostingsCache()  # big vaults' full-text ranking in numpy (ADR 0132)
        # What the pipeline derives from the notes and keeps between searches
        # (the title rule's names, the filters' columns), by name; each value
        # carries the documents signature it was derived at.
        self.derived: dict[str, Any] = {}
        try:
            self._prepare(create)
        except apsw.Error as e:
            self.close()
            raise self.open_failure(e) from e
        except BaseException:
            self.close()
            raise

    def _prepare(self, create: bool) -> None:
        """Run the migrations the file has not run (storage/migrations.py),
        writing only when there are some (a search of a current index writes
        nothing); refuse a newer schema rather than restamp it, and an empty
        file where an index was expected."""
        c = self.conn
        stamped = migrations.stamped_version(c)
        newer = migrations.unknown(c)
        if (stamped is not None and stamped > migrations.SCHEMA_VERSION) or newer:
            what = f"migrations {', '.join(newer)}" if newer else f"schema {stamped}"
            raise IndexUnusable(
                f"the index at {self.path} was written by a newer groove ({what}; this groove reads "
                f"{migrations.SCHEMA_VERSION}): upgrade groove, or run `groove index --rebuild` to rebuild it for this "
                "version (the newer groove would then rebuild it again)")
        if stamped is None and not create:
            raise IndexMissing(f"the index at {self.path} is empty or not a groove index; run `groove index` to "
                               "build it (`groove index --rebuild` if a damaged file is in the way)")
        if migrations.current(c):
            return
        if self.read_only:
            if all(m.cache for m in migrations.pending(c)):
                return  # nothing it needs is missing (a cache's table at most): read as it is
            raise IndexUnusable(
                f"the index at {self.path} is read-only and was made by an older groove (schema {stamped}): "
                "make it writable (chmod u+w) so groove can upgrade it, or rebuild it with `groove index --rebuild`")
        with self.atomic():
            migrations.migrate(c)

    # -- connections -------------------------------------------------------
    def _open(self) -> apsw.Connection:
        if self.read_only:
            return self._open_read_only()
        c = apsw.Connection(str(self.path))
        self._setup(c)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._all.append(c)
        return c

    def _read_only_connection(self) -> apsw.Connection:
        flags = apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI
        uri = "file:" + urllib.parse.quote(str(self.path))
        c = apsw.Connection(uri, flags=flags)
        try:
            c.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except (apsw.CantOpenError, apsw.ReadOnlyError):
            # A WAL index whose folder cannot take a -shm file: read the file
            # as it stands (what a checkpointed copy holds).
            c.close()
            c = apsw.Connection(uri + "?immutable=1", flags=flags)
        return c

    def _open_read_only(self) -> apsw.Connection:
        c = self._read_only_connection()
        self._setup(c)  # SQLITE_OPEN_READONLY keeps the file as it is; temp tables (fts5vocab views) still work
        with self._lock:
            self._all.append(c)
        return c

    def _setup(self, c: apsw.Connection) -> None:
        c.enable_load_extension(True)
        c.load_extension(sqlite_vec.loadable_path())
        c.enable_load_extension(False)
        # Names, globs and tags compare in one Unicode form (vault/encoding.py, ADR 0156):
        # nfc(x) for paths, tag_key(x) for tags (lower-cased beyond ASCII, which SQL's lower() is not).
        c.create_scalar_function("nfc", _sql_nfc, 1, deterministic=True)
        c.create_scalar_function("tag_key", _sql_tag_key, 1, deterministic=True)
        c.setbusytimeout(30_000)

    @property
    def conn(self) -> apsw.Connection:
        c = getattr(self._local, "conn", None)
        if c is None:
            c = self._local.conn = self._open()
        return c

    def keep_word_index(self, enabled: bool = True) -> None:
        """For a long-lived process (the daemon, the standalone MCP server):
        keep a big vault's in-memory word index, built and refreshed after
        writes on a thread of its own (ADR 0132); ``enabled`` is
        ``[index] word_index`` (false: FTS5 ranks, as in a one-shot run)."""
        self.words.background = enabled
        if enabled:
            self.word_postings()

    def keep_vectors(self, enabled: bool = True) -> None:
        """For a long-lived process: keep a big vault's vectors in memory
        (ADR 0121, 0133), loaded after writes on a thread of its own;
        ``enabled`` is ``[index] vector_copy`` (false: sqlite-vec scans, as
        in a one-shot run)."""
        self.vectors.keep((lambda: self.conn) if enabled else None, self.release_thread)
        if enabled:
            self.vectors.load_if_stale(self.conn)

    def word_postings(self) -> WordPostings | None:
        """The in-memory word index for the current rows, if one is ready;
        a long-lived process (``words.background``) builds it on a thread."""
        return self.words.ready(self.conn, lambda: self.conn, self.release_thread)

    def release_thread(self) -> None:
        """Close the calling thread's connection (a thread about to end)."""
        c = getattr(self._local, "conn", None)
        if c is None:
            return
        self._local.conn = None
        with self._lock:
            if c in self._all:
                self._all.remove(c)
        with contextlib.suppress(Exception):
            c.close()

    def close(self) -> None:
        self.vectors.keep(None)
        with self._lock:
            for c in self._all:
                with contextlib.suppress(Exception):
                    c.close()
            self._all.clear()
        self._local = threading.local()

    @contextlib.contextmanager
    def atomic(self) -> Iterator[apsw.Connection]:
        """A write transaction (BEGIN IMMEDIATE): all or nothing."""
        if self.read_only:
            raise IndexWriteFailed(f"the index at {self.path} is read-only: it can be searched but not updated; "
                                   "make it writable (chmod u+w) and run `groove index` to update it")
        with self.write_lock:
            c = self.conn
            if c.in_transaction:
                with c:  # savepoint
                    yield c
                return
            c.execute("BEGIN IMMEDIATE")
            try:
                yield c
            except BaseException:
                # SQLite may already have rolled back (a full disk, an I/O
                # error): a second ROLLBACK would fail and hide the cause.
                if c.in_transaction:
                    with contextlib.suppress(apsw.Error):
                        c.execute("ROLLBACK")
                raise
            else:
                try:
                    c.execute("COMMIT")
                except BaseException:
                    if c.in_transaction:
                        with contextlib.suppress(apsw.Error):
                            c.execute("ROLLBACK")
                    raise

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[apsw.Connection]:
        """One read transaction on this thread's connection: every read inside
        sees the same committed state, however many writes land meanwhile (a
        search's legs, its note leg and its final fetch agree; issue 15 D4).
        WAL readers never block the writer. Nested use joins the outer one."""
        c = self.conn
        if c.in_transaction:
            yield c
            return
        c.execute("BEGIN")  # deferred: the first read fixes the snapshot
        try:
            yield c
        except apsw.Error as e:
            damage = self.damage()
            if damage:  # a read error that is the file's, not the query's (issue 50 R13)
                raise IndexUnusable(self.damaged_message(damage)) from e
            raise
        finally:
            if c.in_transaction:
                with contextlib.suppress(apsw.Error):
                    c.execute("COMMIT")

    def damage(self) -> str | None:
        """What SQLite's structural check finds wrong with the file, or None:
        one read of every page, for an index
        run's start and after a read error, not for every search."""
        try:
            c = self._read_only_connection()
            try:
                rows = [r[0] for r in c.execute("PRAGMA quick_check(3)")]
            finally:
                c.close()
        except (apsw.CorruptError, apsw.NotADBError) as e:
            return f"{type(e).__name__}: {e}"
        except apsw.Error:
            return None  # cannot be read for another reason: the caller's own error says which
        found = [line for r in rows for line in str(r).splitlines() if line and not line.startswith("***")]
        return None if rows == ["ok"] else "; ".join(found)

    def refuse_if_damaged(self) -> None:
        damage = self.damage()
        if damage:
            raise IndexUnusable(self.damaged_message(damage))

    def damaged_message(self, damage: str) -> str:
        return (f"the index at {self.path} is damaged ({damage}); run `groove index --rebuild` to rebuild it from "
                "the notes (they are not touched)")

    def open_failure(self, e: apsw.Error) -> GrooveError:
        """Opening failed: a damaged or foreign file says so; anything else is
        a write failure (the open stamps and migrates)."""
        if isinstance(e, (apsw.CorruptError, apsw.NotADBError)):
            return IndexUnusable(self.damaged_message(f"{type(e).__name__}: {e}"))
        return self.write_failure(e)

    def write_failure(self, e: apsw.Error) -> IndexWriteFailed:
        """One message naming the cause of a failed index operation; the
        last committed note is the state the index is left in."""
        where = f"the index at {self.path}"
        os_errno = 0
        with contextlib.suppress(Exception):
            os_errno = int(self.conn.system_errno)
        again = "run `groove index` again; the index is unchanged since the last committed note"
        if isinstance(e, apsw.FullError) or os_errno == errno.ENOSPC:
            return IndexWriteFailed(f"disk full while writing {where}: free some space and {again}")
        if os_errno == getattr(errno, "EDQUOT", -1):
            return IndexWriteFailed(f"disk quota exceeded while writing {where}: free some space and {again}")
        if os_errno == errno.EFBIG:
            return IndexWriteFailed(
                f"file size limit reached while writing {where} (`ulimit -f`): raise it and {again}")
        if isinstance(e, (apsw.CorruptError, apsw.NotADBError)):
            return IndexWriteFailed(f"{where} is damaged ({e}): run `groove index --rebuild` to rebuild it")
        if isinstance(e, (apsw.ReadOnlyError, apsw.PermissionsError, apsw.CantOpenError)):
            return IndexWriteFailed(f"cannot write {where} ({e}): check the file's and its folder's permissions")
        if isinstance(e, (apsw.BusyError, apsw.LockedError)):
            return IndexWriteFailed(f"{where} stayed locked by another process ({e}): is another `groove index` "
                                    "running? Try again when it has finished")
        if isinstance(e, apsw.IOError):
            cause = os.strerror(os_errno) if os_errno else str(e)
            return IndexWriteFailed(f"I/O error while writing {where} ({cause}): check the disk, then {again}")
        return IndexWriteFailed(f"could not write {where} ({type(e).__name__}: {e}); {again}")

    # -- meta --------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def has_vec_table(self) -> bool:
        return bool(
            self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = 'vec_chunks'"
            ).fetchone()
        )

    def embedder_info(self) -> dict[str, Any] | None:
        raw = self.get_meta("embedder")
        return json.loads(raw) if raw else None

    def check_embedder(self, model_id: str, dim: int, *, recipe: int = 1, rebuild_hint: bool = True) -> None:
        """Refuse to mix vectors of two models (or two passage-text recipes)."""
        info = self.embedder_info()
        if info is None:
            return
        if int(info.get("recipe", 1)) != recipe:
            raise EmbedderMismatch(
                f"this index was embedded with passage-text recipe {info.get('recipe', 1)}, this groove "
                f"uses recipe {recipe}; run `groove index --rebuild` to re-embed"
            )
        if info.get("model_id") != model_id or int(info.get("dim", -1)) != dim:
            raise EmbedderMismatch(
                f"this index was built with {info.get('model_id')} (dim {info.get('dim')}), "
                f"not {model_id} (dim {dim})"
                + ("; run `groove index --rebuild` to re-embed with the new model" if rebuild_hint else "")
            )

    def set_embedder(self, model_id: str, dim: int, file_hash: str, *, recipe: int = 1) -> None:
        with self.atomic():
            self.set_meta(
                "embedder",
                json.dumps({"model_id": model_id, "dim": dim, "file_hash": file_hash, "recipe": recipe}),
            )
            migrations.create_vec_tables(self.conn, dim)

    def replace_with(self, other: Index) -> None:
        """Make this index a copy of ``other`` in one write transaction (the
        SQLite backup API, ADR 0151): every reader, in this process or
        another, sees the old rows until the copy commits and the new rows
        after, never a mix and never an empty index. A process killed
        during the copy leaves the old index (the uncommitted WAL frames
        are ignored)."""
        mine = int(migrations.rows_version(self.conn) or 0)
        theirs = int(migrations.rows_version(other.conn) or 0)
        # In-memory copies (vectors, word index, names) are keyed by
        # rows_version: the new rows must never carry a value the old rows
        # had, even if this index's writers move it on while the copy waits.
        with other.atomic():
            other.set_meta("rows_version", str(max(mine, theirs) + ROWS_VERSION_GAP))
        deadline = time.monotonic() + COPY_PATIENCE_S
        while True:
            try:
                with self.write_lock:
                    dest = self.conn
                    with dest.backup("main", other.conn, "main") as b:
                        b.step(-1)  # every page in one step: one transaction
                return
            except (apsw.BusyError, apsw.LockedError) as e:
                # Another writer (a daemon's watcher) holds the index: a whole
                # rebuild must not be thrown away for a moment's lock.
                if time.monotonic() > deadline:
                    raise self.write_failure(e) from e
                time.sleep(0.05)
            except apsw.Error as e:
                raise self.write_failure(e) from e

    def counts(self) -> tuple[int, int]:
        (d,) = self.conn.execute("SELECT count(*) FROM documents").fetchone() or (0,)
        (c,) = self.conn.execute("SELECT count(*) FROM chunks").fetchone() or (0,)
        return int(d), int(c)


def refuse_foreign(path: Path) -> None:
    """Refuse an index another user could read or write (issue 50 R12): its
    folder open to others' writes, or the file or its WAL/shared memory
    owned by someone else or writable by others (a file planted 0666 under
    the predictable name would receive every note)."""
    problem = parent_problem(path.parent) if os.name == "posix" else None
    if problem:
        raise UnsafeFolder(f"the index folder {path.parent} {problem}: another user could swap the index "
                           "(every note's text) under groove. Use a folder you own (mkdir -m 700)")
    for p in (path, *(path.with_name(path.name + s) for s in SIDE_FILES)):
        problem = private_file_problem(p)
        if problem:
            raise UnsafeFolder(f"the index file {p} {problem}: another user could read every note groove "
                               f"writes into it. Delete it if it is not yours (rm {p}) and run `groove index`")


def _private_file(path: Path) -> None:
    """Create the index file 0600 before SQLite does (it would use 0644);
    tighten an existing one and its side files."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(fd)
    except FileExistsError:
        pass
    except OSError:
        return  # not creatable here: SQLite's own open reports why
    for p in (path, *(path.with_name(path.name + s) for s in SIDE_FILES)):
        tighten_file(p)
