"""Helpers shared by test modules (import as `from helpers import ...`; a
module named conftest would be shadowed by the sub-folders' conftest files)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

TEST_MODELS_DIR = Path(os.environ.get("GROOVE_TEST_MODELS_DIR", Path.home() / ".cache" / "groove-test-models"))
SAMPLE_VAULT = Path(__file__).resolve().parents[1] / "backend" / "groove" / "sample_vault"


def write_note(vault: Path, rel: str, text: str) -> Path:
    """Write ``text`` at ``vault/rel`` (folders made as needed)."""
    p = vault / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def canvas_node(id_: str, type_: str, x: int, y: int, w: int = 250, h: int = 60, **extra: object) -> dict:
    """A JSON Canvas node (jsoncanvas.org): ``text=``, ``file=``/``subpath=``, ``url=`` or ``label=`` in extra."""
    return {"id": id_, "type": type_, "x": x, "y": y, "width": w, "height": h, **extra}


def obsidian_canvas(nodes: list[dict], edges: list[dict] | None = None) -> str:
    """A .canvas file's text as Obsidian writes it: tab-indented, one node or edge per line."""
    import json

    def line(o: dict) -> str:
        return "\t\t" + json.dumps(o, ensure_ascii=False, separators=(",", ":"))
    return ("{\n\t\"nodes\":[\n" + ",\n".join(line(n) for n in nodes) + "\n\t],\n\t\"edges\":[\n"
            + ",\n".join(line(e) for e in edges or []) + "\n\t]\n}")


def make_runtime(vault: Path, embedder, tmp_path: Path, config=None):
    """A Runtime on ``vault`` with an already-loaded embedder (no reload)."""
    from groove.runtime import open_runtime

    rt = open_runtime(vault, index_path=tmp_path / "index.sqlite", config=config)
    rt._embedder = embedder
    return rt


def indexed_runtime(tmp: Path, notes: dict[str, str], embedder):
    """A Runtime on a vault of ``notes`` (path -> text) under ``tmp``, indexed."""
    from groove import operations

    vault = tmp / "vault"
    for rel, text in notes.items():
        write_note(vault, rel, text)
    rt = make_runtime(vault, embedder, tmp)
    operations.reindex(rt)
    return rt


def scaffold_only_chunks(conn) -> set[int]:
    """Chunks the index left without a vector on purpose: every line of them
    template boilerplate by their note's own census rows (ADR 0210)."""
    from groove.index.boilerplate import Boilerplate

    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'note_lines'").fetchone():
        return set()
    left_out: dict[int, set[int]] = {}
    for doc_id, h in conn.execute("SELECT doc_id, h FROM note_lines WHERE suppressed = 1"):
        left_out.setdefault(doc_id, set()).add(h)
    return {cid for cid, doc_id, content in conn.execute("SELECT id, doc_id, content FROM chunks")
            if doc_id in left_out and Boilerplate(frozenset(left_out[doc_id])).embedded(content) is None}


def index_health(index_path: Path) -> dict:
    """What a crashed or failed run must leave: an intact SQLite file whose
    full-text and vector rows match its chunks exactly."""
    from groove.storage.db import Index

    idx = Index(index_path)
    try:
        c = idx.conn
        chunk_ids = {r[0] for r in c.execute("SELECT id FROM chunks")}
        unembedded = scaffold_only_chunks(c)
        docs_with_chunks = {r[0] for r in c.execute("SELECT DISTINCT doc_id FROM chunks")
                            if r[0] in {d for (d,) in c.execute(
                                "SELECT doc_id FROM chunks WHERE id NOT IN (SELECT value FROM json_each(?))",
                                (json.dumps(sorted(unembedded)),))}}
        has_vec = idx.has_vec_table()
        return {
            "integrity": c.execute("PRAGMA integrity_check").fetchone()[0],
            "fts_matches": {r[0] for r in c.execute("SELECT rowid FROM fts_chunks")} == chunk_ids,
            "vec_matches": not has_vec
            or {r[0] for r in c.execute("SELECT rowid FROM vec_chunks")} == chunk_ids - unembedded,
            "note_vec_matches": not has_vec
            or {r[0] for r in c.execute("SELECT rowid FROM vec_notes")} == docs_with_chunks,
            "orphans": c.execute(
                "SELECT count(*) FROM chunks WHERE doc_id NOT IN (SELECT id FROM documents)").fetchone()[0],
            "documents": c.execute("SELECT count(*) FROM documents").fetchone()[0],
        }
    finally:
        idx.close()


HEALTHY = {"integrity": "ok", "fts_matches": True, "vec_matches": True, "note_vec_matches": True, "orphans": 0}


def index_contents(index_path: Path) -> list[tuple]:
    """Everything a rerun must reproduce: each note's chunks and vectors."""
    from groove.storage.db import Index

    idx = Index(index_path)
    try:
        return sorted(idx.conn.execute(
            "SELECT d.path, d.content_hash, c.ordinal, c.content, c.byte_start, c.line_start, v.embedding "
            "FROM chunks c JOIN documents d ON d.id = c.doc_id JOIN vec_chunks v ON v.rowid = c.id"))
    finally:
        idx.close()


def run_groove(*args: str) -> subprocess.CompletedProcess[str]:
    """The CLI as a user runs it (``python -m groove ...``), output captured."""
    return subprocess.run([sys.executable, "-m", "groove", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ})


def indexed_notes(root: Path, notes: dict[str, str], model: Path) -> tuple[Path, Path]:
    """``notes`` (relative path -> text) written to ``root``/vault and indexed
    by the CLI with ``model`` into ``root``/notes.sqlite: (vault, index)."""
    vault = root / "vault"
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    index = root / "notes.sqlite"
    r = run_groove("index", str(vault), "--index", str(index), "--model", str(model))
    assert r.returncode == 0, r.stderr
    return vault, index


def quoted_hits(client, word: str) -> list[str]:  # noqa: ANN001 - a daemon test client
    """Paths of the hits of the exact phrase ``word`` whose text holds it."""
    return [h["path"] for h in client.search(f'"{word}"', limit=20)["results"] if word in h["content"]]


def like_e5(n: int, dim: int, rng: np.random.Generator) -> np.ndarray:
    """Unit vectors shaped as e5's are: one direction they all share (mean
    length ~0.9) and a spread that decays over the axes."""
    axes, _ = np.linalg.qr(rng.standard_normal((dim, dim)))
    spread = 0.09 * np.arange(1, dim + 1) ** -0.6
    x = 0.9 * axes[:, 0] + (rng.standard_normal((n, dim)) * spread) @ axes.T
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)
