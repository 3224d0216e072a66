"""All the tools with the real default model (multilingual-e5-small) on
Obsidian Help pages from ../shared/eval/vault-en and vault-ja.

Skipped unless the converted default GGUF is already cached (the models
tests cache it); the vault is a slice of both eval vaults (one folder each)
so the class stays within the suite's time budget on two cores. The bench
(bench/mcp_latency.py) runs the whole vault-en.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import TEST_MODELS_DIR
from mcp_support import GROOVE, SyncSession, stdio_session, text_of

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"
EN, JA = "Linking notes and files", "ノートとファイルのリンク"


def cached_default_model() -> Path | None:
    try:
        out = subprocess.run([GROOVE, "models", "default-path"], capture_output=True, text=True, timeout=60,
                             env={**os.environ, "GROOVE_MODELS_DIR": str(TEST_MODELS_DIR)})
    except (OSError, subprocess.TimeoutExpired):
        return None
    p = Path(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip() else None
    return p if p is not None and p.is_file() else None


MODEL = cached_default_model()
pytestmark = [
    pytest.mark.needs_default_model,
    pytest.mark.skipif(MODEL is None, reason="no cached converted default model (run the models tests once)"),
    pytest.mark.skipif(not (EVAL / "vault-en").is_dir(), reason="../shared/eval is not there"),
]


@pytest.fixture(scope="module")
def s(server_env, tmp_path_factory):
    root = tmp_path_factory.mktemp("real")
    vault = root / "vault"
    shutil.copytree(EVAL / "vault-en" / EN, vault / "en" / EN)
    shutil.copytree(EVAL / "vault-ja" / JA, vault / "ja" / JA)
    args = ["--vault", str(vault), "--model", str(MODEL), "--index", str(root / "index.sqlite"), "--standalone"]
    sess = SyncSession(lambda: stdio_session(args, server_env, root / "stderr.log"))
    first = sess.call("reindex", {})
    assert not first.is_error, text_of(first)
    assert first.structured_content["indexed"] == sum(1 for _ in vault.rglob("*.md"))
    yield sess
    sess.close()


class TestRealModelOnEvalVaults:
    def test_english_question_finds_the_page(self, s) -> None:
        r = s.call("search", {"query": "how do I link to a specific heading in another note", "limit": 5})
        hits = r.structured_content["results"]
        assert hits[0]["path"] == f"en/{EN}/Internal links.md", text_of(r)
        assert not r.structured_content["low_confidence"]

    def test_japanese_question_finds_the_japanese_page(self, s) -> None:
        r = s.call("search", {"query": "別名でノートを参照するには", "limit": 5, "path_globs": ["ja/**"]})
        hits = r.structured_content["results"]
        assert hits and all(h["path"].startswith("ja/") for h in hits)
        assert hits[0]["path"] == f"ja/{JA}/エイリアス.md", text_of(r)

    def test_exclusion_and_phrase(self, s) -> None:
        r = s.call("search", {"query": '"block identifier" -heading', "limit": 5})
        hits = r.structured_content["results"]
        assert hits and all("heading" not in h["content"].lower() for h in hits)

    def test_block_link_of_the_real_vault_resolves(self, s) -> None:
        r = s.call("resolve_link", {"link": "[[Internal links#^b15695]]", "from_path": f"en/{EN}/Embed files.md"})
        sc = r.structured_content
        assert sc["path"] == f"en/{EN}/Internal links.md" and sc["block"] == "b15695" and sc["line_range"]
        doc = s.call("get_document", {"path": sc["path"], "line_start": sc["line_range"][0],
                                      "line_end": sc["line_range"][1]})
        assert "^b15695" in doc.structured_content["content"]

    def test_heading_section_and_related_notes(self, s) -> None:
        d = s.call("get_document", {"path": f"en/{EN}/Internal links.md", "heading": "Link to a heading in a note"})
        assert d.structured_content["content"].startswith("## Link to a heading in a note")
        rel = s.call("related_notes", {"path": f"en/{EN}/Internal links.md", "limit": 5}).structured_content
        assert rel["similar"] and all(x["path"] != f"en/{EN}/Internal links.md" for x in rel["similar"])
        assert {b["path"] for b in rel["backlinks"]} >= {f"en/{EN}/Aliases.md", f"en/{EN}/Embed files.md"}
        st = s.call("index_status").structured_content
        assert st["model"] == "multilingual-e5-small-q4_0" and st["model_load_seconds"] > 0
