"""get_document with a heading the note lacks names its headings whole: a long
list is cut between names ("and N more"), within what an error may say,
rather than clipped in the middle of one (a name came back as
'Updating your synced vault sett…e', which a caller could pass back)."""

from __future__ import annotations

import re

import pytest

from groove.errors import MAX_ERROR_CHARS, InvalidArgument
from groove.operations import notes
from helpers import indexed_runtime

HEADINGS = [f"Updating your synced vault settings on device number {k}" for k in range(1, 21)]


def test_an_unknown_heading_lists_whole_headings_and_how_many_more(tmp_path, tiny_embedder):
    text = "# Sync settings\n\n" + "".join(f"## {h}\n\nSome text.\n\n" for h in HEADINGS)
    rt = indexed_runtime(tmp_path, {"Sync settings.md": text}, tiny_embedder)
    with pytest.raises(InvalidArgument) as e:
        notes.get_document(rt, "Sync settings.md", heading="Nope")
    msg = str(e.value)
    assert len(msg) <= MAX_ERROR_CHARS, len(msg)  # no surface clips it
    listed = re.findall(r"'([^']*)'", msg.split("its headings are: ", 1)[1])
    assert listed and all(h in ["Sync settings", *HEADINGS] for h in listed), listed
    assert msg.endswith(f", and {1 + len(HEADINGS) - len(listed)} more")
