"""What `groove index` leaves out, no MCP client can read (issue 15, D5).

A vault whose `.grooveignore` excludes `private/`, written *after* the index
was built (the index still holds the diary: the worst case, a prompt-injected
model asking before the next reindex). Every tool and the note resource
refuse the diary under every spelling; nothing of it leaks into links,
backlinks or neighbours. The socket's side is tests/daemon/test_read_gate.py.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from urllib.parse import quote

import pytest

from mcp_support import SyncSession, groove_index, inproc_session, text_of

SECRET = "DIARY SECRET"
NOTES = {
    "Home.md": "# Home\n\nSee [[private/diary]], [[diary]] and [[Plan]].\n",
    "Plan.md": "# Plan\n\nThe garden plan. Back to [[Home]].\n",
    "private/diary.md": f"# Diary\n\n{SECRET}: the garden plan, privately. [[Home]] [[Plan]]\n",
    "Café/menu.md": f"# Menu\n\n{SECRET} of the café.\n",
    ".hidden/x.md": f"# X\n\n{SECRET} in a hidden folder.\n",
}
IGNORE = "private/\nCafé/\n"

# Spellings that reach an excluded file: as named, percent-encoded, another
# case, another Unicode normalisation, without '.md', through a symlinked
# folder, with '.'/'..' and backslashes, and as a note URI.
TRICKS = [
    "private/diary.md",
    "private/diary",
    "./private/../private/diary.md",
    "private\\diary.md",
    "public/diary.md",  # public -> private (a symlink inside the vault)
    "PRIVATE/diary.md",
    "Private/Diary",
    "groove://note/private%2fdiary.md",
    "groove://note/private%2Fdiary.md",
    "Café/menu.md",
    unicodedata.normalize("NFD", "Café/menu.md"),
    "CAFÉ/MENU.md",
    ".hidden/x.md",
]


def build_vault(root: Path) -> Path:
    for rel, text in NOTES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (root / "public").symlink_to(root / "private", target_is_directory=True)
    return root


@pytest.fixture(scope="module")
def gated(tmp_path_factory: pytest.TempPathFactory, tiny_model: Path, server_env: dict) -> tuple[Path, Path]:
    vault = build_vault(tmp_path_factory.mktemp("gated"))
    index = tmp_path_factory.mktemp("gated-index") / "index.sqlite"
    summary = groove_index(vault, index, tiny_model, server_env)
    assert summary["indexed"] == 4  # the hidden folder was never indexed; private/ and Café/ were
    (vault / ".grooveignore").write_text(IGNORE, encoding="utf-8")
    return vault, index


@pytest.fixture(scope="module")
def s(gated, tiny_model, server_env, tmp_path_factory):
    vault, index = gated
    args = ["--vault", str(vault), "--model", str(tiny_model), "--index", str(index), "--standalone"]
    sess = SyncSession(lambda: inproc_session(args, tmp_path_factory.mktemp("log") / "err.log"))
    yield sess
    sess.close()


@pytest.mark.parametrize("trick", TRICKS)
def test_get_document_refuses_an_excluded_note_under_every_spelling(s, trick) -> None:
    r = s.call("get_document", {"path": trick})
    assert r.is_error, (trick, r.structured_content)
    assert SECRET not in text_of(r)


@pytest.mark.parametrize("uri", [
    "groove://note/private/diary.md",
    "groove://note/private%2Fdiary.md",
    "groove://note/private%2fdiary.md",
    "groove://note/PRIVATE%2Fdiary.md",
    "groove://note/public/diary.md",
    "groove://note/" + quote("Café/menu.md"),
    "groove://note/" + quote(unicodedata.normalize("NFD", "Café/menu.md")),
])
def test_the_note_resource_refuses_an_excluded_note(s, uri) -> None:
    try:
        res = s.read_resource(uri)
        text = " ".join(getattr(c, "text", "") for c in res.contents)
    except Exception as e:  # refused: a JSON-RPC error
        text = f"refused: {e}"
    assert text.startswith("refused") and SECRET not in text, text


def test_links_to_an_excluded_note_resolve_to_nothing(s) -> None:
    for link in ("[[private/diary]]", "[[diary]]", "[[Diary#Diary]]", "[[public/diary]]", "[[Café/menu]]"):
        r = s.call("resolve_link", {"link": link, "from_path": "Home.md"})
        assert not r.is_error, text_of(r)
        assert r.structured_content["exists"] is False and r.structured_content["path"] is None, link
    home = s.call("get_document", {"path": "Home.md"}).structured_content
    assert {ln["target"]: ln["path"] for ln in home["links"]} == {
        "private/diary": None, "diary": None, "Plan": "Plan.md"}


def test_related_notes_neither_reads_nor_lists_an_excluded_note(s) -> None:
    for trick in ("private/diary.md", "PRIVATE/diary.md", "public/diary.md", "Café/menu.md"):
        r = s.call("related_notes", {"path": trick})
        assert r.is_error and SECRET not in text_of(r), trick
    for path in ("Plan.md", "Home.md"):
        rel = s.call("related_notes", {"path": path, "limit": 10}).structured_content
        listed = [x["path"] for x in rel["similar"] + rel["backlinks"]] + [x["path"] for x in rel["outgoing"]]
        assert not any(p and (p.startswith("private/") or p.startswith("Café/")) for p in listed), rel


def test_notes_the_rules_allow_are_read_as_before(s) -> None:
    r = s.call("get_document", {"path": "Plan.md"})
    assert not r.is_error and "garden plan" in r.structured_content["content"]
    assert s.read_resource("groove://note/Plan.md").contents[0].text == NOTES["Plan.md"]
