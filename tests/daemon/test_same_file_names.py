"""One file under several names stays one text under the daemon (issue 50
R9): a symlinked note and a hard-linked one follow an edit of their target,
whichever name the event carries, and an edit that keeps the size and puts
the old mtime back is still indexed (an event is checked by content)."""

from __future__ import annotations

import os

import pytest

from .conftest import poll

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symlinks and hard links")


def test_links_to_an_edited_note_follow_it(spawn) -> None:
    d = spawn(n=3)
    c = d.client()
    target = d.vault / "Real" / "Target.md"
    target.parent.mkdir()
    target.write_text("# Target\n\nThe first pelican text.\n", encoding="utf-8")
    (d.vault / "Link.md").symlink_to("Real/Target.md")
    os.link(target, d.vault / "Hard.md")

    def holding(word: str) -> set[str]:
        return {h["path"] for h in c.call("search", {"query": word, "limit": 50})["results"] if word in h["content"]}

    poll(lambda: holding("pelican") == {"Real/Target.md", "Link.md", "Hard.md"}, 30, "the three names indexed")
    d.wait_idle(c)
    # Edit in place through the target's own name: one event, for it alone.
    with open(target, "w", encoding="utf-8") as fh:
        fh.write("# Target\n\nThe second albatross text.\n")
    poll(lambda: holding("albatross") == {"Real/Target.md", "Link.md", "Hard.md"}, 30,
         "every name of the file to carry the new text")
    d.wait_idle(c)
    assert holding("pelican") == set()
    # An editor's save-by-rename gives the target a new inode: the hard link
    # keeps the old file (and its text), the symlink follows the name.
    tmp = target.with_name(".Target.md.tmp")
    tmp.write_text("# Target\n\nThe third cormorant text.\n", encoding="utf-8")
    os.replace(tmp, target)
    poll(lambda: holding("cormorant") == {"Real/Target.md", "Link.md"}, 30, "the symlink to follow the rename")
    d.wait_idle(c)
    assert holding("albatross") == {"Hard.md"}
    c.close()


def test_a_same_size_edit_with_the_old_mtime_put_back_is_indexed(spawn) -> None:
    d = spawn(n=3)
    c = d.client()
    note = d.vault / "Same.md"
    note.write_text("# Same\n\nThe word is walrus.\n", encoding="utf-8")

    def holding(word: str) -> set[str]:
        return {h["path"] for h in c.call("search", {"query": word, "limit": 50})["results"] if word in h["content"]}

    poll(lambda: holding("walrus") == {"Same.md"}, 30, "the note indexed")
    d.wait_idle(c)
    st = note.stat()
    note.write_text("# Same\n\nThe word is narwal.\n", encoding="utf-8")  # same length as "walrus"
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns))  # rsync -t, a sync tool, `touch -r`
    assert note.stat().st_size == st.st_size
    poll(lambda: holding("narwal") == {"Same.md"}, 30, "the same-size edit to be indexed")
    assert holding("walrus") == set()
    c.close()
