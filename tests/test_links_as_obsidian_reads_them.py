"""Links as Obsidian reads them (ADR 0257, issue 47): ``[[Target\\|alias]]``
in a table names Target; a link in code is no link; an embedded image is an
attachment, not a missing note; ``[[#Heading]]`` is a place in the note
itself. At the service (related_notes, get_document) and in `groove related`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groove import operations
from groove.vault.markdown import parse_links
from helpers import run_groove
from stagekit import indexed_runtime

SOURCE = "Hub.md"
HUB = """# Hub

| Topic | Link |
|---|---|
| Formatting | [[Basic formatting syntax\\|syntax]] |
| Heading | [[Tables#Make a table\\|tables]] |

Sleep chart: ![[Sleep-2026-01.webp]] and the [[Manual.pdf]].

> ```
> [[In a fence]]
> ```

- A list item:
    - nested, with a fenced example:
      ```md
      [[In a list fence]]
      ```

Write `[[In inline code]]` or ``[[In double-tick code]]`` to show the syntax.

See [[#Details]] below, and [[Tables]].

## Details

Nothing more.
"""
NOTES = {
    SOURCE: HUB,
    "Basic formatting syntax.md": "# Basic formatting syntax\n\nBold and italic.\n",
    "Tables.md": "# Tables\n\n## Make a table\n\nBars and dashes.\n",
    "In a fence.md": "# In a fence\n\nA note a code sample names.\n",
    "In a list fence.md": "# In a list fence\n\nAnother.\n",
    "In inline code.md": "# In inline code\n\nAnother.\n",
    "In double-tick code.md": "# In double-tick code\n\nAnother.\n",
}
IN_CODE = {"In a fence", "In a list fence", "In inline code", "In double-tick code"}


def write_vault(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_parse_links_reads_a_table_alias_and_skips_code():
    links = parse_links(HUB)
    assert [(ln.target, ln.heading, ln.alias) for ln in links if not ln.embed][:2] == [
        ("Basic formatting syntax", None, "syntax"), ("Tables", "Make a table", "tables")]
    assert not {ln.target for ln in links} & IN_CODE


@pytest.fixture(scope="module")
def rt(tiny_embedder, tmp_path_factory):
    vault = write_vault(tmp_path_factory.mktemp("links") / "vault")
    runtime = indexed_runtime(vault, tiny_embedder, vault.parent / "i.sqlite")
    yield runtime
    runtime.close()


def test_related_lists_the_table_link_resolved_and_no_link_in_code(rt):
    r = operations.call(rt, "related_notes", {"path": SOURCE})
    out = {(o["target"], o["path"], o["heading"]) for o in r["outgoing"]}
    assert ("Basic formatting syntax", "Basic formatting syntax.md", None) in out
    assert ("Tables", "Tables.md", "Make a table") in out
    assert not {o["target"] for o in r["outgoing"]} & IN_CODE
    assert all(o["path"] for o in r["outgoing"]), r["outgoing"]  # nothing reads as a missing note


def test_related_lists_an_image_embed_as_an_attachment_and_own_headings_apart(rt):
    r = operations.call(rt, "related_notes", {"path": SOURCE})
    assert [(a["target"], a["embed"]) for a in r["attachments"]] == [("Sleep-2026-01.webp", True),
                                                                      ("Manual.pdf", False)]
    assert [(h["heading"], h["block"]) for h in r["own_headings"]] == [("Details", None)]
    assert not [o for o in r["outgoing"] if o["target"] in ("", "Sleep-2026-01.webp", "Manual.pdf")]


def test_get_document_marks_attachments(rt):
    d = operations.call(rt, "get_document", {"path": SOURCE})
    marked = {ln["target"]: ln["attachment"] for ln in d["links"]}
    assert marked["Sleep-2026-01.webp"] is True and marked["Manual.pdf"] is True
    assert marked["Basic formatting syntax"] is False
    assert not set(marked) & IN_CODE


@pytest.fixture(scope="module")
def built(tmp_path_factory, tiny_model_path: Path) -> tuple[Path, Path]:
    vault = write_vault(tmp_path_factory.mktemp("links-cli") / "vault")
    index = vault.parent / "i.sqlite"
    r = run_groove("index", str(vault), "--index", str(index), "--model", str(tiny_model_path))
    assert r.returncode == 0, r.stderr
    return vault, index


def test_groove_related_shows_the_table_link_resolved_attachments_and_no_code_link(built):
    vault, index = built
    args = ("related", SOURCE, "--vault", str(vault), "--index", str(index), "--no-daemon")
    r = run_groove(*args)
    assert r.returncode == 0, r.stderr
    assert "[[Basic formatting syntax]] -> Basic formatting syntax.md" in r.stdout
    assert "no such note" not in r.stdout
    assert "![[Sleep-2026-01.webp]] -> (not in the vault)" in r.stdout
    assert "[[#Details]]" in r.stdout
    assert not [name for name in IN_CODE if f"[[{name}]]" in r.stdout]
    res = json.loads(run_groove(*args, "--json").stdout)
    assert [a["target"] for a in res["attachments"]] == ["Sleep-2026-01.webp", "Manual.pdf"]
