"""Names, globs and tags compare in one Unicode form (issue 35 F5, ADR
0156): a note macOS stored as 'résumé.md' decomposed (NFD) is found by a
glob, a folder and a tag typed composed (NFC), and the other way round; the
two forms of one tag, and its upper- and lower-case spellings, are one tag."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from groove import operations
from groove.operations import browse
from groove.pipeline import SearchParams
from helpers import make_runtime
from test_indexer import write


def nfd(s: str) -> str:
    return unicodedata.normalize("NFD", s)


def nfc(s: str) -> str:
    return unicodedata.normalize("NFC", s)


@pytest.fixture
def rt(tmp_path: Path, tiny_embedder):
    vault = tmp_path / "v"
    write(vault, nfd("Café/résumé.md"), nfd("---\ntags: [déjà]\n---\n# Résumé\n\nMy work history and #élan notes.\n"))
    write(vault, nfc("Thé/crème.md"), nfc("---\ntags: [DÉJÀ]\n---\n# Crème\n\nA recipe.\n"))
    write(vault, "plain.md", "# Plain\n\nNothing accented, about work history.\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    return rt


@pytest.mark.parametrize("form", [nfc, nfd])
def test_globs_folders_and_tags_find_a_note_whatever_form_either_side_is_in(rt, form) -> None:
    def paths(**kw) -> set[str]:
        hits = operations.search(rt, SearchParams(query="work history recipe", limit=20, **kw)).results
        return {nfc(h.path) for h in hits}

    assert paths(path_globs=(form("Café/résumé*"),)) == {nfc("Café/résumé.md")}
    assert paths(path_globs=(form("**/résumé.md"), form("Thé/*"))) == {nfc("Café/résumé.md"), nfc("Thé/crème.md")}
    assert paths(tags_any=(form("élan"),)) == {nfc("Café/résumé.md")}
    assert paths(tags_all=(form("déjà"),)) == {nfc("Café/résumé.md"), nfc("Thé/crème.md")}

    def listed(**kw) -> set[str]:
        return {nfc(n["path"]) for n in browse.list_notes(rt, browse.NoteFilter(**kw))["notes"]}

    assert listed(glob=form("résumé*")) == {nfc("Café/résumé.md")}
    assert listed(glob=form("Thé/crème.md")) == {nfc("Thé/crème.md")}
    assert listed(folder=form("Café")) == {nfc("Café/résumé.md")}
    assert listed(folder=form("Thé")) == {nfc("Thé/crème.md")}
    assert listed(tag=form("déjà")) == {nfc("Café/résumé.md"), nfc("Thé/crème.md")}
    assert listed(tag=form("#élan")) == {nfc("Café/résumé.md")}


def test_the_two_forms_of_a_tag_are_one_tag(rt) -> None:
    tags = browse.list_tags(rt)["tags"]
    assert {"tag": nfc("déjà"), "count": 2} in tags
    assert sum(1 for t in tags if nfc(t["tag"]) == nfc("déjà")) == 1
    assert browse.list_tags(rt, prefix=nfd("dé"))["tags"] == [{"tag": nfc("déjà"), "count": 2}]
