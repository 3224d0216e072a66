"""`groove index` and `groove status` with a bad .grooveignore line and a
folder nested 600 deep (issue 50 R3, R4): no traceback, each problem named
where it is, the rest indexed. Subprocesses: a RecursionError depends on the
real stack a command starts with."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_groove, write_note


def test_bad_lines_and_a_deep_folder_are_reported_not_fatal(tmp_path: Path, tiny_model_path: Path) -> None:
    vault = tmp_path / "vault"
    write_note(vault, "Home.md", "# Home\n\nhomeword\n")
    write_note(vault, "Secret/s.md", "# Secret\n\nsecretword\n")
    deep = vault.joinpath(*["d"] * 600)
    deep.mkdir(parents=True)
    (deep / "bottom.md").write_text("# Bottom\n\nabyssword\n", encoding="utf-8")
    (vault / ".grooveignore").write_text("!\nSecret/\n[z-a]\nPrivate\\\n", encoding="utf-8")
    index = str(tmp_path / "i.sqlite")

    r = run_groove("index", str(vault), "--index", index, "--model", str(tiny_model_path))
    assert r.returncode == 0 and "Traceback" not in r.stdout + r.stderr, r.stderr
    assert "indexed 2" in r.stdout, r.stdout
    for n, line in ((1, "!"), (3, "[z-a]"), (4, "Private\\\\")):
        assert f".grooveignore line {n} ('{line}') cannot be read" in r.stdout, r.stdout

    st = run_groove("status", "--vault", str(vault), "--index", index, "--json")
    assert st.returncode == 0 and "Traceback" not in st.stderr, st.stderr
    js = json.loads(st.stdout)
    assert js["stale_files"] == 0 and js["documents"] == 2
    assert sum(w.startswith(".grooveignore line") for w in js["warnings"]) == 3, js["warnings"]

    s = run_groove("search", '"abyssword"', "--vault", str(vault), "--index", index, "--model",
                   str(tiny_model_path), "--json", "--no-daemon")
    assert s.returncode == 0, s.stderr
    assert [h["path"] for h in json.loads(s.stdout)["results"] if "abyssword" in h["content"]] == ["d/" * 600 +
                                                                                                    "bottom.md"]
