"""Reads of chunk and note rows that the query pipeline needs (stage 1's
note legs, the final fetch, the parent retriever, filters, the title leg).

Ids are integers from the index itself, so they are inlined into ``IN
(...)`` lists; restriction subqueries come from ``pipeline/filters.py``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import Any

from ..types import Candidate
from .db import Index


def _marks(ids: Any) -> str:
    return ",".join(str(int(i)) for i in ids)


def load_candidates(idx: Index, ids: list[int]) -> list[Candidate]:
    """The chunks ``ids`` with their note's path and title (any order; a
    chunk deleted meanwhile is simply absent)."""
    if not ids:
        return []
    rows = idx.conn.execute(
        "SELECT c.id, c.doc_id, d.path, d.title, c.heading_path, c.level, c.context, c.content, "
        "c.byte_start, c.byte_end, c.line_start, c.line_end, c.token_count "
        f"FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE c.id IN ({_marks(ids)})"
    )
    return [
        Candidate(
            chunk_id=r[0], doc_id=r[1], path=r[2], title=r[3], heading_path=json.loads(r[4]),
            level=r[5], context=r[6], content=r[7], byte_range=(r[8], r[9]),
            line_range=(r[10], r[11]), token_count=r[12], score=0.0,
        )
        for r in rows
    ]


def doc_ids(idx: Index, chunk_ids: list[int]) -> dict[int, int]:
    """chunk id -> its note's id."""
    if not chunk_ids:
        return {}
    return dict(idx.conn.execute(f"SELECT id, doc_id FROM chunks WHERE id IN ({_marks(chunk_ids)})"))


def contents(idx: Index, chunk_ids: list[int]) -> dict[int, str]:
    """chunk id -> its content."""
    if not chunk_ids:
        return {}
    return dict(idx.conn.execute(f"SELECT id, content FROM chunks WHERE id IN ({_marks(chunk_ids)})"))


def first_chunks(idx: Index, docs: list[int], excluded: AbstractSet[int]) -> dict[int, int]:
    """note id -> its first chunk (in file order) that is not ``excluded``.
    One query for every note (a query per note cost ~2 ms a search)."""
    if not docs:
        return {}
    if not excluded:
        # SQLite takes a bare column (id) from the row that holds the MIN().
        rows = idx.conn.execute(
            f"SELECT doc_id, id, MIN(ordinal) FROM chunks WHERE doc_id IN ({_marks(docs)}) GROUP BY doc_id")
        return {doc_id: cid for doc_id, cid, _ in rows}
    # Excluded ids are checked here, not spelled into the SQL: excluding a
    # common word names tens of thousands of chunks (44 ms at 100k chunks).
    first: dict[int, int] = {}
    for doc_id, cid in idx.conn.execute(
            f"SELECT doc_id, id FROM chunks WHERE doc_id IN ({_marks(docs)}) ORDER BY doc_id, ordinal"):
        if doc_id not in first and cid not in excluded:
            first[doc_id] = cid
    return first


def chunks_of_notes(idx: Index, docs: list[int]) -> list[tuple[int, int]]:
    """(chunk id, note id) of every chunk of these notes (read by ``chunks_doc``)."""
    if not docs:
        return []
    rows = idx.conn.execute(f"SELECT id, doc_id FROM chunks WHERE doc_id IN ({_marks(docs)})")
    return [(int(c), int(d)) for c, d in rows]


def chunks_of_same_notes(idx: Index, chunk_ids: set[int]) -> set[int]:
    """Every chunk of every note that holds one of ``chunk_ids``."""
    if not chunk_ids:
        return set()
    # In and out as one JSON array: an exclusion of a common word names tens
    # of thousands of chunks in a big vault, and a Python step per row cost
    # more than the lookup (136 ms at 100k chunks).
    (arr,) = idx.conn.execute(
        "SELECT json_group_array(id) FROM chunks WHERE doc_id IN "
        "(SELECT doc_id FROM chunks WHERE id IN (SELECT value FROM json_each(?)))",
        (json.dumps(sorted(chunk_ids)),)).fetchone() or ("[]",)
    return set(json.loads(arr))


def note_chunk_rows(idx: Index, chunk_id: int) -> list[tuple]:
    """Every chunk of the note holding ``chunk_id``, in file order: (id, level,
    heading_path JSON, content, token_count, byte_start, byte_end, line_start, line_end)."""
    return idx.conn.execute(
        "SELECT id, level, heading_path, content, token_count, byte_start, byte_end, line_start, line_end "
        "FROM chunks WHERE doc_id = (SELECT doc_id FROM chunks WHERE id = ?) ORDER BY ordinal",
        (chunk_id,),
    ).fetchall()


def sections_of_notes(idx: Index, chunk_ids: list[int]) -> list[tuple]:
    """Every chunk of the notes holding ``chunk_ids``, by note, in file order:
    (id, note path, heading_path JSON, content, byte_start, line_start)."""
    if not chunk_ids:
        return []
    return idx.conn.execute(
        "SELECT c.id, d.path, c.heading_path, c.content, c.byte_start, c.line_start FROM chunks c "
        f"JOIN documents d ON d.id = c.doc_id WHERE c.doc_id IN (SELECT doc_id FROM chunks WHERE id IN "
        f"({_marks(chunk_ids)})) ORDER BY c.doc_id, c.ordinal").fetchall()


def filter_rows(idx: Index) -> Iterator[tuple[int, str, str, str | None, int]]:
    """(id, path, tags JSON, date, mtime_ns) of every note: what filters judge."""
    return iter(idx.conn.execute("SELECT id, path, tags, date, mtime_ns FROM documents"))


def chunks_of_notes_sql(doc_ids: list[int]) -> str:
    """A subquery of the chunk ids of these notes (none: an empty list)."""
    return f"SELECT id FROM chunks WHERE doc_id IN ({_marks(doc_ids) or 'NULL'})"


def notes_sql(doc_ids: list[int]) -> str:
    """A subquery of these note ids (none: an empty list)."""
    return f"SELECT id FROM documents WHERE id IN ({_marks(doc_ids) or 'NULL'})"


def ids_from(idx: Index, sql: str) -> set[int]:
    """The ids a subquery yields (e.g. a filter's ``Restriction.doc_sql``)."""
    return {r[0] for r in idx.conn.execute(sql)}
