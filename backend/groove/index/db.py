"""The index file: an apsw connection with sqlite-vec loaded, WAL, migrations.

apsw rather than the stdlib ``sqlite3``: many Pythons (python.org builds on
macOS among them) cannot load extensions with the stdlib module, and apsw
bundles a current SQLite with FTS5.

Each thread gets its own connection (``Index.conn``): the daemon answers
searches from reader threads while the indexer writes, and WAL lets readers
see the last committed state meanwhile.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import apsw
import sqlite_vec

from ..errors import EmbedderMismatch, IndexMissing
from . import schema, shortcjk


class Index:
    def __init__(self, path: Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if not create and not self.path.exists():
            raise IndexMissing(f"no index at {self.path}; run `groove index` first")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._all: list[apsw.Connection] = []
        self._lock = threading.Lock()
        self.write_lock = threading.RLock()  # one writer at a time in this process
        c = self.conn
        with self.atomic():
            for m in schema.MIGRATIONS:
                m(c)
            shortcjk.create(c)
            self.set_meta("schema_version", str(schema.SCHEMA_VERSION))

    # -- connections -------------------------------------------------------
    def _open(self) -> apsw.Connection:
        c = apsw.Connection(str(self.path))
        c.enable_load_extension(True)
        c.load_extension(sqlite_vec.loadable_path())
        c.enable_load_extension(False)
        c.setbusytimeout(30_000)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute("PRAGMA synchronous=NORMAL")
        c.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._all.append(c)
        return c

    @property
    def conn(self) -> apsw.Connection:
        c = getattr(self._local, "conn", None)
        if c is None:
            c = self._local.conn = self._open()
        return c

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
        with self._lock:
            for c in self._all:
                with contextlib.suppress(Exception):
                    c.close()
            self._all.clear()
        self._local = threading.local()

    @contextlib.contextmanager
    def atomic(self) -> Iterator[apsw.Connection]:
        """A write transaction (BEGIN IMMEDIATE): all or nothing."""
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
                c.execute("ROLLBACK")
                raise
            else:
                c.execute("COMMIT")

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
            schema.create_vec_table(self.conn, dim)

    def counts(self) -> tuple[int, int]:
        d = self.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
        c = self.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        return d, c
