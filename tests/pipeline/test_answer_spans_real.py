"""answer_spans with the default model on the help vaults (issue 47): for
the paraphrase questions of the dev golden sets (en, ja, zh, ko), whose
answers share few words with them, the top 3 hits each carry an answer
span. Slices of the vaults: the notes those questions expect. Needs
../shared/eval; skips without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groove.eval.guard import slice_vault
from groove.pipeline import SearchParams, run_search
from stagekit import indexed_runtime

EVAL = Path(__file__).resolve().parents[3] / "shared" / "eval"
SETS = ["golden-dev.jsonl", "golden-dev-zh.jsonl", "golden-dev-ko.jsonl"]

pytestmark = [pytest.mark.needs_default_model,
              pytest.mark.skipif(not (EVAL / "vault-en").is_dir(), reason="../shared/eval is not there")]


def paraphrases() -> list[dict]:
    return [q for name in SETS for ln in (EVAL / name).read_text(encoding="utf-8").splitlines()
            if ln.strip() and (q := json.loads(ln))["kind"] == "paraphrase"]


@pytest.fixture(scope="module")
def runtimes(default_embedder, tmp_path_factory):
    out = {}
    work = tmp_path_factory.mktemp("answers")
    for lang in ("en", "ja", "zh", "ko"):
        keep = {p for q in paraphrases() if q["lang"] == lang for p in q["expected"]}
        vault = work / f"vault-{lang}"
        slice_vault(EVAL / f"vault-{lang}", vault, keep, 10**9)  # only the expected notes
        out[lang] = indexed_runtime(vault, default_embedder, work / f"{lang}.sqlite")
    yield out
    for rt in out.values():
        rt.close()


def test_every_paraphrase_question_gets_answer_spans_on_its_top_3_hits(runtimes):
    qs = paraphrases()
    assert {q["lang"] for q in qs} == {"en", "ja", "zh", "ko"}
    bare = []
    for q in qs:
        top = run_search(runtimes[q["lang"]], SearchParams(q["query"], limit=10)).results[:3]
        assert len(top) == 3
        bare += [(q["query"], h.path) for h in top if not h.answer_spans]
        for h in top:
            for s in h.answer_spans:
                assert h.content.encode("utf-8")[s.start:s.end].decode("utf-8").strip()
    assert bare == []
