"""Template boilerplate through the indexer (ADR 0210), with llama.cpp
running the tiny random BERT: what is embedded, and an incremental index
that stays what a fresh one would be when the template changes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from groove.config import IndexConfig
from groove.indexer import index_vault
from groove.storage.db import Index
from helpers import run_groove as _groove
from helpers import write_note

DAYS = 30  # threshold(0.2, notes) = MIN_NOTES = 10 here
WORDS = ["apples", "brakes", "cello", "dentist", "engine", "fennel", "garage", "harbour", "invoice", "jasmine"]


def daily(i: int, extra: str = "") -> str:
    w = WORDS[i % len(WORDS)]
    return (f"---\ndate: 2026-01-{i + 1:02d}\n---\n# Day {i}\n\n## Tasks\n- [ ] Review inbox\n- [ ] Plan the day\n\n"
            f"## Log\n- Talked to the {w} person number {i} about {WORDS[(i * 3) % len(WORDS)]}\n{extra}\n"
            "## Linked today\n```dataview\nLIST FROM \"\" WHERE file.cday = this.file.day\n```\n")


def make_vault(root: Path, extra: dict[int, str] | None = None) -> Path:
    for i in range(DAYS):
        write_note(root, f"Daily/2026-01-{i + 1:02d}.md", daily(i, (extra or {}).get(i, "")))
    write_note(root, "Garden.md", "# Garden\n\nThe shed, the apple trees and the compost.\n")
    return root


def vectors(index: Path) -> tuple[dict[tuple[str, int], np.ndarray], dict[str, np.ndarray]]:
    idx = Index(index)
    try:
        c = idx.conn
        chunks = {(p, o): np.frombuffer(b, dtype=np.float32) for p, o, b in c.execute(
            "SELECT d.path, ch.ordinal, v.embedding FROM chunks ch JOIN documents d ON d.id = ch.doc_id "
            "JOIN vec_chunks v ON v.rowid = ch.id")}
        notes = {p: np.frombuffer(b, dtype=np.float32) for p, b in c.execute(
            "SELECT d.path, v.embedding FROM documents d JOIN vec_notes v ON v.rowid = d.id")}
        return chunks, notes
    finally:
        idx.close()


def run(vault: Path, index: Path, embedder, cfg: IndexConfig | None = None):
    idx = Index(index)
    try:
        return index_vault(vault, idx, embedder, cfg or IndexConfig())
    finally:
        idx.close()


def assert_same_vectors(a: Path, b: Path) -> None:
    """Same chunks embedded, each by cosine (llama.cpp floats are not pinned)."""
    (ca, na), (cb, nb) = vectors(a), vectors(b)
    assert ca.keys() == cb.keys()
    assert na.keys() == nb.keys()
    for k in ca:
        assert float(ca[k] @ cb[k]) > 0.999, k
    for k in na:
        assert float(na[k] @ nb[k]) > 0.999, k


def test_a_scaffold_only_section_gets_no_vector_but_stays_in_the_full_text(tmp_path, tiny_embedder):
    vault = make_vault(tmp_path / "v")
    s = run(vault, tmp_path / "i.sqlite", tiny_embedder)
    assert s.boilerplate_lines >= 5  # "## Tasks", both tasks, "## Linked today", the query, ...
    idx = Index(tmp_path / "i.sqlite")
    c = idx.conn
    no_vec = c.execute("SELECT d.path, ch.heading FROM chunks ch JOIN documents d ON d.id = ch.doc_id "
                       "WHERE ch.id NOT IN (SELECT rowid FROM vec_chunks)").fetchall()
    assert {h for _, h in no_vec} == {"Linked today", "Tasks"}
    assert len(no_vec) == 2 * DAYS  # Garden.md and every Log section are embedded
    fts = c.execute("SELECT count(*) FROM fts_chunks WHERE fts_chunks MATCH '\"file.cday\"'").fetchone()[0]
    assert fts == DAYS
    idx.close()
    off = run(vault, tmp_path / "off.sqlite", tiny_embedder, IndexConfig(boilerplate=False))
    assert off.boilerplate_lines == 0
    assert len(vectors(tmp_path / "off.sqlite")[0]) == len(vectors(tmp_path / "i.sqlite")[0]) + 2 * DAYS


def test_a_line_that_becomes_common_later_is_taken_out_of_the_notes_embedded_before(tmp_path, tiny_embedder):
    gratitude = "Gratitude: three good things\n"
    early = {i: gratitude for i in range(5)}  # 5 notes < 10: not common yet
    vault = make_vault(tmp_path / "v", early)
    first = run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    later = {**early, **{i: gratitude for i in range(5, 15)}}  # the template gains the line: 15 notes
    make_vault(vault, later)
    second = run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    assert len(second.indexed) == 10  # the edited notes...
    assert second.boilerplate_refreshed == 5  # ...and the five embedded before, redone from the index
    assert second.boilerplate_lines == first.boilerplate_lines + 1
    make_vault(tmp_path / "fresh", later)
    run(tmp_path / "fresh", tmp_path / "fresh.sqlite", tiny_embedder)
    assert_same_vectors(tmp_path / "inc.sqlite", tmp_path / "fresh.sqlite")

    make_vault(vault, early)  # and back: the line is no longer common, the five get it again
    third = run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    assert third.boilerplate_refreshed == 5
    make_vault(tmp_path / "fresh2", early)
    run(tmp_path / "fresh2", tmp_path / "fresh2.sqlite", tiny_embedder)
    assert_same_vectors(tmp_path / "inc.sqlite", tmp_path / "fresh2.sqlite")


def test_switching_it_off_or_on_redoes_only_what_it_changes(tmp_path, tiny_embedder):
    vault = make_vault(tmp_path / "v")
    run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    off = run(vault, tmp_path / "inc.sqlite", tiny_embedder, IndexConfig(boilerplate=False))
    assert off.indexed == [] and off.boilerplate_refreshed == DAYS
    run(vault, tmp_path / "fresh-off.sqlite", tiny_embedder, IndexConfig(boilerplate=False))
    assert_same_vectors(tmp_path / "inc.sqlite", tmp_path / "fresh-off.sqlite")
    on = run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    assert on.boilerplate_refreshed == DAYS
    run(vault, tmp_path / "fresh-on.sqlite", tiny_embedder)
    assert_same_vectors(tmp_path / "inc.sqlite", tmp_path / "fresh-on.sqlite")
    assert run(vault, tmp_path / "inc.sqlite", tiny_embedder).boilerplate_refreshed == 0  # settled


def test_an_index_made_before_the_census_is_counted_from_its_chunks_and_redone(tmp_path, tiny_embedder):
    vault = make_vault(tmp_path / "v")
    run(vault, tmp_path / "old.sqlite", tiny_embedder, IndexConfig(boilerplate=False))
    idx = Index(tmp_path / "old.sqlite")
    with idx.atomic() as c:  # what an index of the previous schema holds: no census at all
        c.execute("DELETE FROM note_lines")
        c.execute("DELETE FROM meta WHERE key = 'line_census'")
    idx.close()
    up = run(vault, tmp_path / "old.sqlite", tiny_embedder)
    assert up.indexed == [] and up.boilerplate_refreshed == DAYS
    run(vault, tmp_path / "fresh.sqlite", tiny_embedder)
    assert_same_vectors(tmp_path / "old.sqlite", tmp_path / "fresh.sqlite")


def test_deleting_template_notes_can_make_a_line_ordinary_again(tmp_path, tiny_embedder):
    vault = make_vault(tmp_path / "v")
    run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    for i in range(DAYS - 9):  # 9 dailies left: below MIN_NOTES
        (vault / f"Daily/2026-01-{i + 1:02d}.md").unlink()
    s = run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    assert s.boilerplate_lines == 0 and s.boilerplate_refreshed == 9
    fresh = tmp_path / "fresh"
    for p in vault.rglob("*.md"):
        write_note(fresh, p.relative_to(vault).as_posix(), p.read_text(encoding="utf-8"))
    run(fresh, tmp_path / "fresh.sqlite", tiny_embedder)
    assert_same_vectors(tmp_path / "inc.sqlite", tmp_path / "fresh.sqlite")


def test_cli_a_scaffold_only_section_is_not_embedded_yet_found_and_shown(tmp_path, tiny_model_path):
    vault = make_vault(tmp_path / "v")
    index = tmp_path / "i.sqlite"
    r = _groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["boilerplate_lines"] >= 5 and out["chunks_embedded"] == DAYS + 1
    idx = Index(index)
    (cid,) = idx.conn.execute(
        "SELECT ch.id FROM chunks ch JOIN documents d ON d.id = ch.doc_id "
        "WHERE d.path = 'Daily/2026-01-07.md' AND ch.heading = 'Linked today'").fetchone()
    assert idx.conn.execute("SELECT count(*) FROM vec_chunks WHERE rowid = ?", (cid,)).fetchone()[0] == 0
    idx.close()
    s = _groove("search", '"file.cday"', "--path", "Daily/2026-01-07.md", "--vault", str(vault),
                "--index", str(index), "--model", str(tiny_model_path), "--json", "--no-daemon")
    assert s.returncode == 0, s.stderr
    # found by the full-text leg alone (the vector leg cannot see it), shown as written
    found = [h for h in json.loads(s.stdout)["results"] if "file.cday" in h["content"]]
    assert len(found) == 1 and found[0]["path"] == "Daily/2026-01-07.md"
    top = found[0]
    assert top["content"].startswith("## Linked today\n```dataview")
    a, b = top["match_spans"][0]
    assert top["content"].encode()[a:b].decode().lower() == "file.cday"


def test_a_watcher_batch_of_one_note_that_tips_a_line_over_settles_the_others(tmp_path, tiny_embedder):
    gratitude = "Gratitude: three good things\n"
    early = {i: gratitude for i in range(9)}  # 9 notes: one short of common
    vault = make_vault(tmp_path / "v", early)
    run(vault, tmp_path / "inc.sqlite", tiny_embedder)
    tipped = {**early, 9: gratitude}
    write_note(vault, "Daily/2026-01-10.md", daily(9, gratitude))
    idx = Index(tmp_path / "inc.sqlite")
    try:
        s = index_vault(vault, idx, tiny_embedder, IndexConfig(), only={"Daily/2026-01-10.md"})
    finally:
        idx.close()
    assert s.indexed == ["Daily/2026-01-10.md"] and s.boilerplate_refreshed == 9
    make_vault(tmp_path / "fresh", tipped)
    run(tmp_path / "fresh", tmp_path / "fresh.sqlite", tiny_embedder)
    assert_same_vectors(tmp_path / "inc.sqlite", tmp_path / "fresh.sqlite")
