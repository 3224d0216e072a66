from __future__ import annotations

from pathlib import Path

import pytest

from groove.errors import GrooveError
from groove.eval.golden import GoldenQuery, GoldenSet
from groove.eval.run import parse_vault_for_lang, resolve_vaults


def gset(tmp_path, *queries):
    return GoldenSet(tmp_path / "g.jsonl", "x", list(queries))


def test_line_vault_beats_lang_mapping_beats_default_vault(tmp_path):
    a = GoldenQuery("a", ("A.md",), lang="ja", vault="sub", line=1)
    b = GoldenQuery("b", ("A.md",), lang="ja", line=2)
    c = GoldenQuery("c", ("A.md",), lang="en", line=3)
    got = resolve_vaults(gset(tmp_path, a, b, c), tmp_path / "default", {"ja": tmp_path / "ja"})
    assert got[a.key] == (tmp_path / "sub").resolve()  # relative to the golden file's folder
    assert got[b.key] == (tmp_path / "ja").resolve()
    assert got[c.key] == (tmp_path / "default").resolve()


def test_a_query_without_any_vault_is_an_error_naming_its_lang_and_line(tmp_path):
    q = GoldenQuery("a", ("A.md",), lang="ja", line=7)
    with pytest.raises(GrooveError, match=r"lang ja \(lines 7\).*--vault-for-lang"):
        resolve_vaults(gset(tmp_path, q), None, {"en": tmp_path})


def test_vault_for_lang_parses_lang_equals_path_and_rejects_the_rest():
    assert parse_vault_for_lang(["en=/a", "ja = /b/c"]) == {"en": Path("/a"), "ja": Path("/b/c")}
    for bad in ("en", "=/a", "en="):
        with pytest.raises(GrooveError, match="LANG=PATH"):
            parse_vault_for_lang([bad])
