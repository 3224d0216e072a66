"""The daemon's link resolver against the table of where Obsidian lands each
link (editor-client/test/fixtures/link-resolution.json, ADR 0107/0117), the
same table the plugins' tests run. Here: the note each link names, by the
pure resolver; subpaths, attachments and notes not yet indexed run against
the real daemon in editor-client/test/link-resolution.integration.test.ts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groove.vault.links import NameIndex, NoteName, parse_link_arg, resolve_target

TABLE = json.loads((Path(__file__).resolve().parents[2] / "editor-client" / "test" / "fixtures"
                    / "link-resolution.json").read_text(encoding="utf-8"))
NAMES = NameIndex.build(NoteName(i, p, Path(p).stem, ()) for i, p in enumerate(sorted(TABLE["notes"]))
                        if p.endswith(".md"))
CASES = [c for c in TABLE["cases"] if not c["id"].startswith("not-yet-indexed") and c["id"] != "attachment"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_the_resolver_lands_where_obsidian_does(case):
    link = parse_link_arg(case["link"])
    note = resolve_target(NAMES, link.target, case["from"])
    assert (note.path if note else None) == case["expect"]["path"], case["rule"]
