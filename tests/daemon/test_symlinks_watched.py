"""The watcher applies the vault's one rule to symlinks too (issue 35 F1,
ADR 0150): a link to a hidden note made while the daemon runs is not
indexed, and a link that is retargeted at a hidden note leaves search."""

from __future__ import annotations

import os

import pytest

from .conftest import poll

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symlinks")


def test_links_made_or_retargeted_while_the_daemon_runs_follow_the_rules(spawn) -> None:
    d = spawn(n=3)
    c = d.client()
    d.wait_idle(c)
    hidden = d.vault / ".private" / "diary.md"
    hidden.parent.mkdir()
    hidden.write_text("# Diary\n\nThe xylocarp secret of the diary.\n", encoding="utf-8")
    (d.vault / "public.md").write_text("# Public\n\nThe quetzalcoatl note anyone may read.\n", encoding="utf-8")
    (d.vault / "diarylink.md").symlink_to(".private/diary.md")
    (d.vault / "okaylink.md").symlink_to("public.md")

    def contents(q: str) -> set[str]:
        return {h["path"] for h in c.call("search", {"query": q, "limit": 50})["results"] if q in h["content"]}

    poll(lambda: contents("quetzalcoatl") == {"public.md", "okaylink.md"}, 30, "the fine link to be indexed")
    d.wait_idle(c)
    assert contents("xylocarp") == set()
    st = c.index_status()
    assert any(s["path"] == "diarylink.md" and "symlink to a note" in s["reason"] for s in st["skipped"])
    # retarget the fine link at the hidden note: it leaves search
    (d.vault / "okaylink.md").unlink()
    (d.vault / "okaylink.md").symlink_to(".private/diary.md")
    poll(lambda: contents("quetzalcoatl") == {"public.md"}, 30, "the retargeted link to leave search")
    d.wait_idle(c)
    assert contents("xylocarp") == set()
    c.close()
