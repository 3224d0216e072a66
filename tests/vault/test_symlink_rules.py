"""One rule for "is this note part of the vault" (issue 35 F1, ADR 0150): a
symlink answers to the rules of what it leads to. A link to a hidden or
ignored note is neither indexed nor searchable nor readable nor suggested,
and a path through a symlinked folder (which the walk does not follow) is
not readable either: it names the note's own path instead."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from groove import operations
from groove.errors import NoteNotFound
from groove.operations import notes
from groove.pipeline import SearchParams
from groove.vault.gate import check_readable, safe_path
from groove.vault.scan import note_paths, scan_vault
from helpers import make_runtime
from test_indexer import write

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symlinks")

DIARY = "zebracorn diary entry about the lighthouse keeper"
DRAFT = "quokkasaurus draft about the harbour wall"


def laundering_vault(root: Path) -> Path:
    vault = root / "v"
    write(vault, "public.md", "# Public\n\nA note about the lighthouse and the harbour.\n")
    write(vault, ".private/diary.md", f"# Diary\n\n{DIARY}\n")
    write(vault, "drafts/d.md", f"# Draft\n\n{DRAFT}\n")
    write(vault, ".grooveignore", "drafts/\n")
    (vault / "diarylink.md").symlink_to(".private/diary.md")
    (vault / "draftlink.md").symlink_to("drafts/d.md")
    (vault / "okaylink.md").symlink_to("public.md")  # a link to a note the rules take is fine
    write(vault, "sub/n1.md", "# N1\n\nnested\n")
    (vault / "sub" / "loop").symlink_to("..", target_is_directory=True)
    return vault


def test_the_walk_leaves_out_links_to_hidden_or_ignored_notes_and_says_why(tmp_path: Path) -> None:
    vault = laundering_vault(tmp_path)
    notes, skipped = scan_vault(vault)
    assert sorted(n.path for n in notes) == ["okaylink.md", "public.md", "sub/n1.md"]
    reasons = {s.path: s.reason for s in skipped}
    assert set(reasons) == {"diarylink.md", "draftlink.md"}
    assert all("symlink to a note the vault's rules leave out" in r for r in reasons.values())
    assert ".private" not in " ".join(reasons.values())  # the reason does not name the hidden note
    assert sorted(note_paths(vault)) == ["okaylink.md", "public.md", "sub/n1.md"]


def test_a_link_cannot_launder_a_hidden_note_into_search_reads_or_suggestions(tmp_path, tiny_embedder) -> None:
    vault = laundering_vault(tmp_path)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    summary = operations.reindex(rt)
    assert sorted(summary.indexed) == ["okaylink.md", "public.md", "sub/n1.md"]
    assert sorted(s.path for s in summary.skipped) == ["diarylink.md", "draftlink.md"]
    for q in ("zebracorn", "quokkasaurus"):
        hits = operations.search(rt, SearchParams(query=q, limit=20)).results
        assert all(h.path in {"public.md", "okaylink.md", "sub/n1.md"} for h in hits)
        assert not any(q in h.content for h in hits)
    for wanted in ("diarylink.md", "draftlink.md", ".private/diary.md", "drafts/d.md", "diary.md", "d.md"):
        with pytest.raises(NoteNotFound) as e:
            notes.get_document(rt, wanted)
        offered = str(e.value).partition("Did you mean")[2]
        assert "diarylink" not in offered and "draftlink" not in offered
    assert notes.get_document(rt, "okaylink.md")["path"] == "okaylink.md"


def test_an_index_built_before_the_rule_suggests_no_link_to_a_hidden_note(tmp_path, tiny_embedder) -> None:
    vault = laundering_vault(tmp_path)
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    # The index of an older groove held the link: suggestions and links must not offer it.
    from groove.storage import store
    from groove.vault.markdown import parse_note

    note = parse_note("diarylink.md", (vault / "diarylink.md").read_bytes(), chunk_tokens=rt.config.index.chunk_tokens)
    vecs = tiny_embedder.embed_passages([store.embed_text(c.context, c.content) for c in note.chunks])
    store.upsert_note(rt.index, note, store.FileStamp(1, 1, "x"), vectors=vecs,
                      note_vector=store.note_vectors(tiny_embedder, [store.note_text(note)], vecs[:1])[0])
    assert notes.suggestions(rt, "diary.md") == []
    with pytest.raises(NoteNotFound) as e:
        notes.get_document(rt, "diary.md")
    assert "diarylink" not in str(e.value)
    write(vault, "home.md", "# Home\n\n[[diarylink]]\n")
    operations.reindex(rt, only={"home.md"})
    links = notes.get_document(rt, "home.md")["links"]
    assert links[0]["path"] is None


def test_a_path_through_a_symlinked_folder_is_refused_with_the_notes_own_path(tmp_path: Path) -> None:
    vault = laundering_vault(tmp_path)
    full, rel = safe_path(vault, "sub/loop/sub/n1.md")
    with pytest.raises(NoteNotFound) as e:
        check_readable(vault, full, rel)
    assert "symlinked folder 'sub/loop'" in str(e.value) and "read it as 'sub/n1.md'" in str(e.value)
    full, rel = safe_path(vault, "sub/n1.md")
    check_readable(vault, full, rel)  # its own path reads
