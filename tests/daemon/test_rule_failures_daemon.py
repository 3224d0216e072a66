"""A running daemon outlives a bad rule line and a folder nested hundreds
deep (issue 50 R3, R4): each is reported where it is, later edits are still
indexed, index_status and search still answer."""

from __future__ import annotations

from helpers import quoted_hits

from .conftest import poll

TIMEOUT = 60.0


def test_bad_ignore_lines_are_reported_and_the_daemon_keeps_indexing(spawn) -> None:
    d = spawn(n=6)
    with d.client() as c:
        d.wait_idle(c)
        (d.vault / ".grooveignore").write_text("!\nPrivate\\\n[z-a]\nprojects/\n", encoding="utf-8")
        poll(lambda: quoted_hits(c, "coffee") == [], TIMEOUT, "projects/ to leave search")
        poll(lambda: c.index_status()["stale_files"] == 0, TIMEOUT, "projects/ to leave the index")
        st = d.wait_idle(c)
        said = [w for w in st["warnings"] if w.startswith(".grooveignore line")]
        assert [w.split(" (")[0] for w in said] == [".grooveignore line 1", ".grooveignore line 2",
                                                      ".grooveignore line 3"], st["warnings"]
        assert st["stale_files"] == 0 and st["last_error"] is None
        (d.vault / "journal" / "note001.md").write_text("# Edited\n\nquokkaword after the bad lines\n",
                                                        encoding="utf-8")
        poll(lambda: quoted_hits(c, "quokkaword") == ["journal/note001.md"], TIMEOUT, "a later edit to be indexed")
        assert any(".grooveignore line 1" in w for w in c.search("quokkaword")["warnings"])


def test_a_folder_nested_500_deep_is_indexed_and_edits_go_on(spawn) -> None:
    d = spawn(n=3)
    with d.client() as c:
        d.wait_idle(c)
        deep = d.vault.joinpath(*["n"] * 500)
        deep.mkdir(parents=True)
        (deep / "bottom.md").write_text("# Bottom\n\nabyssword at the bottom\n", encoding="utf-8")
        bottom = "n/" * 500 + "bottom.md"
        poll(lambda: quoted_hits(c, "abyssword") == [bottom], TIMEOUT, "the deep note to be indexed")
        (d.vault / "journal" / "note001.md").write_text("# Edited\n\nplatypusword later\n", encoding="utf-8")
        poll(lambda: quoted_hits(c, "platypusword") == ["journal/note001.md"], TIMEOUT, "a later edit")
        st = d.wait_idle(c)
        assert st["stale_files"] == 0 and st["last_error"] is None
