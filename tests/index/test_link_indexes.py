"""A note's backlink candidates are read from two indexes on the links'
targets (schema m004), never by scanning every link, and are exactly the
links the scan found: the target, lower-cased as SQLite lowers it, is one of
the note's names or ends in "/<name>" (with or without ".md")."""

from __future__ import annotations

import random

import pytest

from groove.index.notes import links_naming
from groove.storage.db import Index

NAMES = ["Sync", "sync", "Über", "über", "a_b", "a%b", "50% off", "日本語", "notes", "Notes.md", "x"]


def _scan(idx: Index, keys: set[str], stem: str) -> list[tuple]:
    """The query links_naming ran before m004: every link, LIKE on each."""
    like = "%/" + stem.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    marks = ",".join("?" * len(keys))
    return idx.conn.execute(
        "SELECT d.path, d.title, l.target, l.line FROM links l JOIN documents d ON d.id = l.doc_id "
        f"WHERE lower(l.target) IN ({marks}) OR lower(l.target) LIKE ? ESCAPE '\\' "
        "OR lower(l.target) LIKE ? ESCAPE '\\' ORDER BY d.path, l.line", (*keys, like, like + ".md")).fetchall()


@pytest.fixture(scope="module")
def idx(tmp_path_factory):
    index = Index(tmp_path_factory.mktemp("links") / "index.sqlite")
    rng = random.Random(3)
    folders = ["", "a/", "A/b/", "deep/er/", "日記/", "x%y/", "under_score/"]
    with index.atomic() as c:
        for d in range(40):
            c.execute("INSERT INTO documents(id, path, title, aliases, tags, content_hash, mtime_ns, size, indexed_at) "
                      "VALUES (?, ?, ?, '[]', '[]', '', 0, 0, 0)", (d + 1, f"n{d}.md", f"n{d}"))
            for line in range(12):
                name = rng.choice(NAMES)
                target = rng.choice(folders) + name + rng.choice(["", ".md", ".MD", "/", "#h"])
                c.execute("INSERT INTO links(doc_id, target, embed, line) VALUES (?, ?, 0, ?)", (d + 1, target, line))
    return index


def test_backlink_candidates_are_the_scans_for_every_name(idx):
    for name in NAMES + ["missing", "b", "er"]:
        stem = name.lower().removesuffix(".md")
        for keys in ({stem, stem + ".md"}, {f"a/{stem}", stem, f"a/{stem}.md", stem + ".md"}, {f"a/{stem}"}):
            assert list(links_naming(idx, keys, stem)) == _scan(idx, keys, stem), (name, keys)


def test_backlink_candidates_are_looked_up_in_indexes(idx):
    seen: list[str] = []

    def trace(cursor, sql, bindings):
        if "FROM links" in sql and not sql.startswith("EXPLAIN"):
            seen.extend(r[3] for r in cursor.connection.execute("EXPLAIN QUERY PLAN " + sql, bindings))
        return True

    idx.conn.exec_trace = trace
    try:
        list(links_naming(idx, {"sync", "sync.md"}, "sync"))
    finally:
        idx.conn.exec_trace = None
    assert any("links_target_folded" in s for s in seen) and any("links_target_tail" in s for s in seen)
    assert not any(s.startswith("SCAN l") for s in seen), seen
