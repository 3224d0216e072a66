"""End to end on a tiny temp vault with the tiny random BERT: the real
indexer, run_search, history and CLI; the numbers mean nothing, the plumbing does."""

from __future__ import annotations

import dataclasses
import functools
import json

import pytest

from groove.eval.golden import load_golden
from groove.eval.history import history_path, load_history
from groove.eval.metrics import NOTE
from groove.eval.run import EvalSession, SearchOptions, make_record, resolve_vaults

NOTES = {
    "Coffee.md": "# Coffee\n\nHow to make coffee at home with a cat on the table.\n",
    "Garden/Plan.md": (
        "# Garden plan\n\nThe garden plan for the week: tea and bread.\n\n## Work\n\nWork in the garden.\n"
    ),
    "Tokyo.md": "# Tokyo travel\n\nTravel notes from Tokyo, Japan. Music and books.\n",
    "Quotes.md": "# FAQ\n\nwhat is the garden plan for the week\n",
}
GOLDEN = [
    {"query": "coffee at home", "expected": ["Coffee.md"], "kind": "natural", "lang": "en"},
    {"query": "what is the garden plan for the week", "expected": ["Garden/Plan.md"], "partial": ["Quotes.md"],
     "kind": "natural", "lang": "en"},
    {"query": "tokyo", "expected": ["Tokyo.md", "Gone.md"], "kind": "keyword", "lang": "en"},
]


@pytest.fixture
def vault(tmp_path):
    v = tmp_path / "vault"
    for p, text in NOTES.items():
        (v / p).parent.mkdir(parents=True, exist_ok=True)
        (v / p).write_text(text, encoding="utf-8")
    return v


@pytest.fixture
def golden(tmp_path):
    g = tmp_path / "golden.jsonl"
    g.write_text("".join(json.dumps(o) + "\n" for o in GOLDEN), encoding="utf-8")
    return g


def test_session_indexes_searches_scores_and_flags_quotes_and_unreachable(vault, golden, tiny_embedder):
    gs = load_golden(golden)
    s = EvalSession(gs, resolve_vaults(gs, None, {"en": vault}), embedder=tiny_embedder)
    try:
        s.reindex()
        quoted = s.quoted()
        run = s.run(SearchOptions(), k=10)
        fp = s.fingerprint(SearchOptions(), k=10)
        fts_only = s.run(SearchOptions(legs="fts"), k=5)
    finally:
        s.close()
    assert [(g.line, paths) for g, paths in quoted] == [(2, ["Quotes.md"])]
    assert len(run.results) == 3
    assert run.results[2].unreachable == ["Gone.md"]
    assert run.results[2].metrics["recall@10"] <= 0.5  # Gone.md can never be found
    assert any("unreachable" in w for w in run.warnings)
    for r in run.results:
        assert len(r.docs) == len(set(r.docs))  # collapsed
    assert fp.legs == "hybrid" and fp.embedder_sha256 and fp.query_compiler_version
    fusion = s.primary.config.search.fusion
    assert {f.name for f in dataclasses.fields(fusion)} <= set(fp.to_json())  # every knob is fingerprinted
    assert "ndcg@10" not in fts_only.results[0].metrics  # k = 5 drops @10
    rec = make_record(gs, s.vault_of, run, fp)
    assert rec["unreachable"] == 1 and rec["metrics"]["by_lang"]["en"]["n"] == 3
    json.dumps(rec)  # serialisable as is


def test_cli_eval_records_history_and_compare_flags_changed_fingerprint(vault, golden, tiny_embedder, monkeypatch):
    from click.testing import CliRunner

    from groove.cli import eval as cli_eval

    monkeypatch.setattr(cli_eval, "EvalSession", functools.partial(EvalSession, embedder=tiny_embedder))
    runner = CliRunner()
    first = runner.invoke(cli_eval.eval_cmd, [str(golden), "--vault", str(vault)])
    assert first.exit_code == 0, first.output
    assert NOTE in first.output and "kind=natural" in first.stdout
    second = runner.invoke(cli_eval.eval_cmd, [str(golden), "--vault", str(vault), "--mmr", "--compare", "--json"])
    assert second.exit_code == 0, second.output
    out = json.loads(second.stdout)
    assert [f["field"] for f in out["compare"]["fingerprint_changes"]] == ["mmr"]
    runs, _ = load_history(history_path(vault))
    assert len(runs) == 2 and runs[1]["fingerprint"]["mmr"] is True
    assert (vault / ".groove-eval-history.json").is_file()  # where SPEC §2 keeps it; the run says so


def test_cli_tune_runs_the_grid_and_gives_a_verdict(vault, golden, tiny_embedder, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from groove.cli import eval as cli_eval

    monkeypatch.setattr(cli_eval, "EvalSession", functools.partial(EvalSession, embedder=tiny_embedder))
    res = CliRunner().invoke(cli_eval.tune_cmd, [str(golden), "--vault", str(vault), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert len(out["cells"]) == 5 * 4 and sum(c["baseline"] for c in out["cells"]) == 1
    assert out["verdict"]
