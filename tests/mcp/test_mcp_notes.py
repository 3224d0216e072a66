"""notes.py on a small temp vault: the path gate, wikilink resolution
(Obsidian's rules), reading ranges/headings/blocks, related notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from groove import operations
from groove.errors import InvalidArgument, NoteNotFound, PathOutsideVault
from groove.operations import notes, related
from groove.runtime import Runtime, open_runtime
from groove.vault.gate import safe_path
from groove.vault.sections import find_section, sections
from groove.wire.note_types import ResolvedLink

ESCAPES = [
    "../secret.md",
    "Projects/../../secret.md",
    "/etc/passwd",
    "\\\\server\\share\\note.md",
    "//server/share/note.md",
    "C:\\Windows\\win.ini",
    "C:/Users/me/note.md",
    "c:note.md",
    "%2e%2e%2fsecret.md",
    "%2E%2E/secret.md",
    "..%2fsecret.md",
    "%252e%252e%252fsecret.md",
    "..\\..\\secret.md",
    "Home.md\x00.png",
    "file:///etc/passwd",
    "~/secret.md",
    "escape.md",  # symlink to a file outside
    "outside-folder/secret.md",  # symlinked folder outside
]


@pytest.fixture(scope="module")
def rt(vault: Path, tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Runtime:
    from groove.models.llama_embedder import LlamaEmbedder

    r = open_runtime(vault, index_path=tmp_path_factory.mktemp("idx") / "notes.sqlite")
    r._embedder = LlamaEmbedder(tiny_model, family="generic")  # no registry needed for these tests
    operations.reindex(r)
    yield r
    r.close()


# ----------------------------------------------------------------------------- safe_path


@pytest.mark.parametrize("trick", ESCAPES)
def test_safe_path_refuses_escape(vault: Path, trick: str) -> None:
    with pytest.raises(PathOutsideVault):
        safe_path(vault, trick)


@pytest.mark.parametrize("ok,rel", [
    ("Home.md", "Home.md"),
    ("Projects/Plan.md", "Projects/Plan.md"),
    ("./Home.md", "Home.md"),
    ("Projects\\Plan.md", "Projects/Plan.md"),
    ("100% done.md", "100% done.md"),
    ("groove://note/Projects/Plan.md", "Projects/Plan.md"),
    ("日本/会議.md", "日本/会議.md"),
])
def test_safe_path_accepts_vault_paths(vault: Path, ok: str, rel: str) -> None:
    full, got = safe_path(vault, ok)
    assert got == rel
    assert full == vault.resolve() / rel


def test_safe_path_rejects_empty_and_non_string(vault: Path) -> None:
    with pytest.raises(InvalidArgument):
        safe_path(vault, "  ")
    with pytest.raises(InvalidArgument):
        safe_path(vault, 42)  # type: ignore[arg-type]


@pytest.mark.parametrize("trick", ESCAPES)
def test_get_document_refuses_escape_and_never_reads_outside(rt: Runtime, trick: str) -> None:
    with pytest.raises((PathOutsideVault, NoteNotFound)) as e:
        notes.get_document(rt, trick)
    assert "TOP SECRET" not in str(e.value)


# ----------------------------------------------------------------------------- resolve_link


@pytest.mark.parametrize("link,from_path,path", [
    ("[[Projects/Plan]]", "Home.md", "Projects/Plan.md"),
    ("[[plan]]", "Home.md", "Projects/Plan.md"),  # case-insensitive; shortest path wins
    ("[[Plan]]", "Archive/Old/Notes.md", "Archive/Old/Plan.md"),  # same folder wins
    ("[[Old/Plan]]", "Home.md", "Archive/Old/Plan.md"),  # path suffix
    ("[[Plan.md]]", "Home.md", "Projects/Plan.md"),
    ("[[Home|the home note]]", None, "Home.md"),
    ("![[Image.png]]", "Home.md", "Image.png"),  # an attachment
    ("[[日本/会議]]", None, "日本/会議.md"),
    ("Meeting notes", None, "Meeting notes.md"),  # without brackets
    ("[[./Plan]]", "Archive/Old/Notes.md", "Archive/Old/Plan.md"),
])
def test_resolve_link_finds_the_note(rt: Runtime, link: str, from_path: str | None, path: str) -> None:
    r = notes.resolve_link(rt, link, from_path)
    assert r["path"] == path and r["exists"] is True


@pytest.mark.parametrize("link", ["[[Standup]]", "[[start page]]", "[[Meeting notes^decision-1]]"])
def test_aliases_are_not_link_targets_and_a_caret_without_hash_is_part_of_the_name(rt: Runtime, link: str) -> None:
    # As in Obsidian (ADR 0117): it writes [[Meeting notes|Standup]] for an alias.
    r = notes.resolve_link(rt, link, "Home.md")
    assert r["exists"] is False and r["path"] is None


def test_resolve_link_shape_is_the_protocol_shape(rt: Runtime) -> None:
    r = notes.resolve_link(rt, "[[Plan#Goals|goals]]", "Home.md")
    assert set(r) == {"path", "heading", "block", "line_range", "exists", "anchor_found"}
    assert set(r) <= set(ResolvedLink.__annotations__) and r["anchor_found"] is True


def test_resolve_link_missing_note(rt: Runtime) -> None:
    r = notes.resolve_link(rt, "[[Missing note]]", "Home.md")
    assert r == {"path": None, "heading": None, "block": None, "line_range": None, "exists": False,
                 "anchor_found": None}


def test_resolve_link_heading_gives_section_with_subsections(rt: Runtime) -> None:
    r = notes.resolve_link(rt, "[[Plan#Goals]]", "Home.md")
    assert r["heading"] == "Goals"
    assert r["line_range"] == [5, 11]  # "## Goals" through its "### Details"


def test_resolve_link_nested_heading_picks_the_one_under_the_parent(rt: Runtime) -> None:
    under_goals = notes.resolve_link(rt, "[[Plan#Goals#Details]]", "Home.md")
    assert under_goals["line_range"] == [9, 11]
    top_level = notes.resolve_link(rt, "[[Plan#Plan#Details]]", "Home.md")
    assert top_level["line_range"] in ([9, 11], [17, 19])
    risks_sibling = notes.resolve_link(rt, "[[Projects/Plan#Risks]]")
    assert risks_sibling["line_range"] == [13, 15]


def test_resolve_link_unknown_heading_keeps_path_without_range(rt: Runtime) -> None:
    r = notes.resolve_link(rt, "[[Plan#No such heading]]", "Home.md")
    assert r["path"] == "Projects/Plan.md" and r["exists"] and r["line_range"] is None


@pytest.mark.parametrize("link,rng", [
    ("[[Meeting notes#^decision-1]]", [8, 10]),  # paragraph ending with the id
    ("[[Meeting notes#^todo-2]]", [15, 15]),  # a list item
    ("[[Meeting notes#^quote-1]]", [17, 20]),  # id on its own line after a quote
    ("[[Plan#^step-1]]", [15, 15]),
])
def test_resolve_link_block_id(rt: Runtime, link: str, rng: list[int]) -> None:
    r = notes.resolve_link(rt, link, "Home.md")
    assert r["block"] == link.split("^")[1].rstrip("]")
    assert r["line_range"] == rng


def test_resolve_link_rejects_non_link(rt: Runtime) -> None:
    with pytest.raises(InvalidArgument):
        notes.resolve_link(rt, "  ")


def test_resolve_link_from_path_outside_is_refused(rt: Runtime) -> None:
    with pytest.raises(PathOutsideVault):
        notes.resolve_link(rt, "[[Plan]]", "../x.md")


# ----------------------------------------------------------------------------- get_document


def test_get_document_whole_note(rt: Runtime) -> None:
    d = notes.get_document(rt, "Home.md")
    assert set(d) == {"path", "title", "content", "frontmatter", "links", "line_range", "truncated"}
    assert d["title"] == "Home" and d["truncated"] is False
    assert d["frontmatter"]["aliases"] == ["Start page", "Lobby"]
    assert d["content"].splitlines()[5] == "# Home"  # the file verbatim: line numbers hold
    assert d["line_range"] == [1, 12]
    by_target = {(ln["target"], ln["heading"]): ln for ln in d["links"]}
    assert by_target[("Plan", "Goals")]["path"] == "Projects/Plan.md"
    assert by_target[("Missing note", None)]["path"] is None
    assert by_target[("Image.png", None)]["embed"] is True


def test_get_document_line_range(rt: Runtime) -> None:
    d = notes.get_document(rt, "Projects/Plan.md", line_start=5, line_end=7)
    assert d["content"] == "## Goals\n\nGrow tomatoes and beans in the garden."
    assert d["line_range"] == [5, 7]


def test_get_document_heading_section(rt: Runtime) -> None:
    d = notes.get_document(rt, "Projects/Plan.md", heading="Risks")
    assert d["content"].startswith("## Risks") and "Cats dig" in d["content"]
    assert d["line_range"] == [13, 15]


def test_get_document_unknown_heading_lists_headings(rt: Runtime) -> None:
    with pytest.raises(InvalidArgument, match="'Goals'"):
        notes.get_document(rt, "Projects/Plan.md", heading="Nope")


def test_get_document_forgives_case_and_missing_extension(rt: Runtime) -> None:
    assert notes.get_document(rt, "projects/plan")["path"] == "Projects/Plan.md"


def test_get_document_truncates_with_marker(rt: Runtime) -> None:
    d = notes.get_document(rt, "Projects/Plan.md", max_chars=100)
    assert d["truncated"] is True
    a, b = d["line_range"]
    assert a == 1 and b < 19
    assert f"line_start={b + 1}" in d["content"] and "truncated" in d["content"]


@pytest.mark.parametrize("kw", [
    {"line_start": 0}, {"line_start": 500}, {"line_start": 5, "line_end": 2},
    {"line_start": "3"}, {"heading": "Goals", "line_start": 1}, {"max_chars": 99}, {"max_chars": "500"},
])
def test_get_document_bad_ranges_are_invalid_arguments(rt: Runtime, kw: dict) -> None:
    with pytest.raises(InvalidArgument):
        notes.get_document(rt, "Projects/Plan.md", **kw)


@pytest.mark.parametrize("path", ["Missing.md", "Image.png", "notes.txt", ".obsidian/x.md"])
def test_get_document_not_a_note(rt: Runtime, path: str) -> None:
    with pytest.raises(NoteNotFound):
        notes.get_document(rt, path)


# ----------------------------------------------------------------------------- related_notes


def test_related_notes_excludes_itself_and_finds_links(rt: Runtime) -> None:
    r = related.related_notes(rt, "Home.md", limit=3)
    assert set(r) == {"path", "similar", "backlinks", "outgoing", "attachments", "own_headings"}
    assert r["path"] == "Home.md"
    assert 0 < len(r["similar"]) <= 3
    assert "Home.md" not in [s["path"] for s in r["similar"]]
    # relevance (ADR 0276) orders the list when the note vectors are there; score stays the cosine
    assert all(set(s) - {"relevance"} == {"path", "title", "score", "linked"} for s in r["similar"])
    rel = [s["relevance"] for s in r["similar"] if "relevance" in s]
    assert rel == sorted(rel, reverse=True)
    assert {b["path"] for b in r["backlinks"]} == {"Archive/Old/Notes.md", "Daily/2024-01-02.md", "日本/会議.md"}
    out = {(o["target"], o["heading"]): o["path"] for o in r["outgoing"]}
    assert out[("Plan", "Goals")] == "Projects/Plan.md"
    assert out[("Standup", None)] is None  # an alias is not a link target
    assert out[("Missing note", None)] is None


def test_backlinks_follow_resolution_not_just_the_name(rt: Runtime) -> None:
    # "[[Plan]]" in Archive/Old/Notes.md means Archive/Old/Plan.md, so it is
    # not a backlink of Projects/Plan.md.
    proj = {b["path"] for b in related.related_notes(rt, "Projects/Plan.md")["backlinks"]}
    old = {b["path"] for b in related.related_notes(rt, "Archive/Old/Plan.md")["backlinks"]}
    assert proj == {"Home.md"}
    assert old == {"Archive/Old/Notes.md"}


def test_related_notes_by_chunk_id(rt: Runtime) -> None:
    cid = rt.index.conn.execute(
        "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = 'Projects/Plan.md'"
    ).fetchone()[0]
    r = related.related_notes(rt, "", chunk_id=cid, limit=2)
    assert r["path"] == "Projects/Plan.md" and len(r["similar"]) == 2


def test_related_notes_unindexed_note(rt: Runtime) -> None:
    with pytest.raises(NoteNotFound):
        related.related_notes(rt, "Nope.md")


def test_sections_come_from_the_text_not_from_chunk_boundaries() -> None:
    # A long section is split into several chunks, and a heading-only section
    # may be merged into the next chunk: neither may move a heading's range.
    text = ("# T\n\n## Long\n\n" + "\n\n".join(f"para {i} " + "word " * 60 for i in range(12))
            + "\n\n## Next\n\nx\n\n```\n# not a heading\n```\n\nSetext\n------\n\ny\n")
    lines = text.split("\n")[:-1]
    secs = sections(lines)
    assert [(s.heading, s.level) for s in secs] == [("T", 1), ("Long", 2), ("Next", 2), ("Setext", 2)]
    long, nxt = find_section(secs, "Long"), find_section(secs, "Next")
    assert long.line_start == 3 and long.line_end == nxt.line_start - 2
    assert find_section(secs, "T").line_end == len(lines)  # the H1 holds everything
    assert find_section(secs, "T#Setext").line_start == len(lines) - 3


def test_sections_skip_frontmatter() -> None:
    lines = ["---", "title: x", "---", "# A", "", "text", "## B", "more"]
    secs = sections(lines)
    assert [(s.heading, s.line_start, s.line_end) for s in secs] == [("A", 4, 8), ("B", 7, 8)]


def test_links_to_notes_not_indexed_yet_resolve_and_indexed_names_come_first(tmp_path: Path, tiny_embedder) -> None:
    """A link the index cannot resolve is looked up among the notes on disk it
    lacks (the watcher has not reached them); a name the index knows is
    never taken over by one of those."""
    from helpers import make_runtime

    v = tmp_path / "vault"
    (v / "x").mkdir(parents=True)
    (v / "Home.md").write_text("# Home\n\n[[Fresh]] [[Deep/Later]] [[Dup]] [[Ghost]]\n", encoding="utf-8")
    (v / "Dup.md").write_text("# Dup\n\nindexed\n", encoding="utf-8")
    rt = make_runtime(v, tiny_embedder, tmp_path)
    operations.reindex(rt)
    (v / "Fresh.md").write_text("# Fresh\n", encoding="utf-8")  # on disk, not indexed
    (v / "x" / "Deep").mkdir()
    (v / "x" / "Deep" / "Later.md").write_text("# Later\n", encoding="utf-8")
    (v / "x" / "Dup.md").write_text("# Dup elsewhere\n", encoding="utf-8")
    out = {o["target"]: o["path"] for o in related.related_notes(rt, "Home.md")["outgoing"]}
    assert out == {"Fresh": "Fresh.md", "Deep/Later": "x/Deep/Later.md", "Dup": "Dup.md", "Ghost": None}
