"""``<vault>/.groove-eval-history.json``: one record per eval run (SPEC §2;
``groove eval`` says where it wrote, ``--history`` and ``--no-record`` choose
otherwise).

File format (version 1)::

    {"version": 1, "runs": [record, ...]}   # oldest first

A record::

    {"date": "2026-12-02T15:04:05+00:00",
     "golden": {"path": "...", "sha256": "...", "queries": 40},
     "vaults": {"en": "/abs/vault-en", ...},
     "k": 10,
     "fingerprint": {ConfigFingerprint fields},
     "metrics": {"overall": {"n": 40, "recall@1": ...},
                 "by_kind": {"natural": {...}}, "by_lang": {"en": {...}}},
     "unreachable": 0,
     "queries": [{"key", "query", "kind", "lang", "ranks": {path: rank|null},
                  "docs": [top paths], "metrics": {...}}]}

Writes are atomic (temp file + ``os.replace``), so a crash never leaves half
a file; a file that does not parse is moved aside with a warning and a new
history starts — an eval run never dies on its own bookkeeping.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HISTORY_NAME = ".groove-eval-history.json"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class ConfigFingerprint:
    """Everything that can change what an eval run measures."""

    embedder_model: str
    embedder_sha256: str
    reranker: str  # "" when the reranker stage is off
    reranker_sha256: str
    rerank: bool
    mmr: bool
    mmr_lambda: float
    mmr_same_doc_penalty: float
    parent_retriever: bool
    legs: str
    limit: int
    candidates: int
    rrf_k: float
    heading_weight: float
    context_weight: float
    content_weight: float
    vec_weight: float
    fts_weight: float
    query_compiler_version: str
    short_cjk: bool
    exclusion_scope: str
    groove_version: str
    # Knobs added after this class was written (e.g. fusion.title_weight,
    # the index's passage-text recipe), flattened into the record so the diff sees them.
    extra: dict[str, Any] = dataclasses.field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        extra = d.pop("extra")
        return {**d, **{k: v for k, v in extra.items() if k not in d}}


@dataclass(frozen=True)
class FieldDiff:
    name: str
    old: Any
    new: Any


def fingerprint_diff(old: dict[str, Any], new: dict[str, Any]) -> list[FieldDiff]:
    """Fields whose values differ, in the new fingerprint's field order; a field
    only one side has (an older groove's record) counts as differing."""
    names = list(new) + [k for k in old if k not in new]
    return [FieldDiff(n, old.get(n), new.get(n)) for n in names if old.get(n) != new.get(n)]


def history_path(vault: Path) -> Path:
    """The vault's eval history, at its root as SPEC §2 asks (``--history`` overrides)."""
    return Path(vault) / HISTORY_NAME


def _valid(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("runs"), list)
            and all(isinstance(r, dict) for r in data["runs"]))


def load_history(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The runs recorded so far, and warnings. A corrupt file is renamed to
    ``<name>.corrupt-<timestamp>`` and treated as empty."""
    path = Path(path)
    if not path.exists():
        return [], []
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not _valid(data):
            raise ValueError("not a groove eval history (expected {\"runs\": [...]})")
    except (ValueError, UnicodeDecodeError, OSError) as e:
        aside = path.with_name(f"{path.name}.corrupt-{time.strftime('%Y%m%dT%H%M%S')}")
        try:
            os.replace(path, aside)
            where = f"moved it to {aside}"
        except OSError as e2:
            where = f"could not move it aside ({e2}); it will be overwritten"
        return [], [f"eval history {path} is unreadable ({e}); {where} and started a new history"]
    return data["runs"], []


def write_history(path: Path, runs: list[dict[str, Any]]) -> None:
    path = Path(path)
    text = json.dumps({"version": FORMAT_VERSION, "runs": runs}, ensure_ascii=False, indent=1)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def append_run(path: Path, record: dict[str, Any]) -> list[str]:
    """Append ``record``; returns warnings (e.g. a corrupt file moved aside)."""
    runs, warnings = load_history(path)
    runs.append(record)
    write_history(path, runs)
    return warnings


def previous_run(runs: list[dict[str, Any]], golden_sha256: str) -> dict[str, Any] | None:
    """The latest recorded run over the same golden file."""
    for r in reversed(runs):
        if r.get("golden", {}).get("sha256") == golden_sha256:
            return r
    return None


# -- comparing two runs ---------------------------------------------------------


@dataclass(frozen=True)
class QueryChange:
    key: str
    query: str
    lang: str | None
    kind: str
    old_ndcg: float
    new_ndcg: float
    old_ranks: dict[str, int | None]
    new_ranks: dict[str, int | None]

    @property
    def delta(self) -> float:
        return self.new_ndcg - self.old_ndcg


@dataclass(frozen=True)
class Comparison:
    previous_date: str
    metric_deltas: dict[str, tuple[float, float]]  # name -> (old, new), overall
    fingerprint_changes: list[FieldDiff]
    comparable: bool  # False: another query-compiler version; not a regression
    reason: str
    worse: list[QueryChange]
    better: list[QueryChange]
    new_queries: int
    dropped_queries: int


def compare_runs(old: dict[str, Any], new: dict[str, Any], metric: str = "ndcg@10") -> Comparison:
    """What changed from ``old`` to ``new`` (two records over the same golden file).

    Per-query changes are judged on ``metric`` (falls back to MRR when the run
    was too shallow to have it).
    """
    fp_old, fp_new = old.get("fingerprint", {}), new.get("fingerprint", {})
    diffs = fingerprint_diff(fp_old, fp_new)
    comparable = fp_old.get("query_compiler_version") == fp_new.get("query_compiler_version")
    reason = "" if comparable else (
        f"recorded under query compiler {fp_old.get('query_compiler_version')!r}, now "
        f"{fp_new.get('query_compiler_version')!r}: queries reach FTS5 differently, so the "
        "difference is not reported as a regression")
    o_all = old.get("metrics", {}).get("overall", {})
    n_all = new.get("metrics", {}).get("overall", {})
    deltas = {m: (float(o_all[m]), float(n_all[m])) for m in n_all if m != "n" and m in o_all}
    old_q = {q["key"]: q for q in old.get("queries", [])}
    new_q = {q["key"]: q for q in new.get("queries", [])}
    worse: list[QueryChange] = []
    better: list[QueryChange] = []
    for key, nq in new_q.items():
        oq = old_q.get(key)
        if oq is None:
            continue
        m = metric if metric in nq["metrics"] and metric in oq["metrics"] else "mrr"
        ch = QueryChange(key, nq["query"], nq.get("lang"), nq.get("kind", ""), float(oq["metrics"][m]),
                         float(nq["metrics"][m]), oq.get("ranks", {}), nq.get("ranks", {}))
        if ch.delta < -1e-9:
            worse.append(ch)
        elif ch.delta > 1e-9:
            better.append(ch)
    worse.sort(key=lambda c: c.delta)
    better.sort(key=lambda c: -c.delta)
    if not comparable:
        worse, better = [], []
    return Comparison(
        previous_date=str(old.get("date", "?")), metric_deltas=deltas, fingerprint_changes=diffs,
        comparable=comparable, reason=reason, worse=worse, better=better,
        new_queries=sum(1 for k in new_q if k not in old_q), dropped_queries=sum(1 for k in old_q if k not in new_q),
    )
