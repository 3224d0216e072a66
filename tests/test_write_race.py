"""An index run never writes a note's older text over the newer one another
writer stored meanwhile (issue 50 R8): `groove index` read v2, the user
saved v3 and a daemon indexed it while the run was still embedding; the
run's write of v2 is checked against the file inside its transaction and
dropped."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable

from groove import operations
from helpers import make_runtime, write_note


class SavedWhileEmbedding:
    """The real embedder; before its first batch is embedded, ``meanwhile``
    runs (a save of the note and another process indexing it)."""

    def __init__(self, inner, meanwhile: Callable[[], None]) -> None:  # noqa: ANN001 - an Embedder
        self._inner, self._meanwhile = inner, meanwhile

    def __getattr__(self, name: str):  # noqa: ANN204 - everything else is the real embedder's
        return getattr(self._inner, name)

    def embed_passages(self, texts):  # noqa: ANN001, ANN201
        if self._meanwhile is not None:
            hook, self._meanwhile = self._meanwhile, None
            hook()
        return self._inner.embed_passages(texts)


def stored_text(rt, path: str) -> str:  # noqa: ANN001
    return " ".join(r[0] for r in rt.index.conn.execute(
        "SELECT c.content FROM chunks c JOIN documents d ON d.id = c.doc_id WHERE d.path = ? ORDER BY c.ordinal",
        (path,)))


def test_an_older_text_is_not_written_over_a_newer_one(tmp_path, tiny_embedder, tiny_model_path):
    vault = tmp_path / "vault"
    write_note(vault, "Plan.md", "# Plan\n\nversion one: the otter plan.\n")
    write_note(vault, "Other.md", "# Other\n\nsomething else entirely.\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    write_note(vault, "Plan.md", "# Plan\n\nversion two: the beaver plan.\n")

    def save_and_index_elsewhere() -> None:
        write_note(vault, "Plan.md", "# Plan\n\nversion three: the heron plan, much longer now.\n")
        r = subprocess.run([sys.executable, "-m", "groove", "index", str(vault), "--index", str(rt.index.path),
                            "--model", str(tiny_model_path)], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr

    rt._embedder = SavedWhileEmbedding(tiny_embedder, save_and_index_elsewhere)
    summary = operations.reindex(rt)  # read v2, then (while embedding) v3 is saved and indexed elsewhere
    assert "Plan.md" not in summary.indexed
    assert any(p == "Plan.md" and "changed while" in w for p, w in summary.warnings)
    assert "heron" in stored_text(rt, "Plan.md"), stored_text(rt, "Plan.md")
    rt._embedder = tiny_embedder
    again = operations.reindex(rt)
    assert again.indexed == [] and "heron" in stored_text(rt, "Plan.md")
    rt.close()


def test_a_run_without_a_rival_still_stores_everything(tmp_path, tiny_embedder):
    vault = tmp_path / "vault"
    for i in range(5):
        write_note(vault, f"n{i}.md", f"# N{i}\n\nnote {i} text\n")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    s = operations.reindex(rt)
    assert sorted(s.indexed) == [f"n{i}.md" for i in range(5)] and not s.warnings
    rt.close()
