"""`groove eval` and `groove tune`."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import GrooveError
from ..eval.golden import load_golden
from ..eval.history import (
    Comparison,
    QueryChange,
    compare_runs,
    history_path,
    load_history,
    previous_run,
    write_history,
)
from ..eval.metrics import NOTE
from ..eval.run import EvalRun, EvalSession, SearchOptions, make_record, parse_vault_for_lang, resolve_vaults
from ..printable import escape_controls
from .common import gathered, model_option, vault_option
from .search import search_options


def _safe(text: str) -> str:
    """Vault or golden-file text for rich: no terminal escapes, no markup."""
    return escape(escape_controls(str(text)))


def _console() -> Console:
    # Piped output (files, CI logs) is not squeezed to rich's 80-column default.
    from .pipes import stdout_console

    return stdout_console(soft_wrap=True, width=None if sys.stdout.isatty() else 120)


@dataclass(frozen=True)
class EvalSource:
    """What an eval or tune run reads: the golden file and the vault(s) and model it is run against."""

    golden: Path
    vault: Path | None = None
    vault_for_lang: Sequence[str] = ()  # LANG=PATH
    model: str | None = None


def eval_options(f):
    """Options shared by eval and tune (plus `groove search`'s pipeline flags).
    The command gets them as ``source: EvalSource`` and ``opts: SearchOptions``
    (the pipeline flags and --legs), beside ``k`` and ``as_json``."""
    opts = [
        click.argument("golden", type=click.Path(path_type=Path, exists=True, dir_okay=False)),
        vault_option,
        click.option("--vault-for-lang", "vault_for_lang", multiple=True, metavar="LANG=PATH",
                     help="Vault for queries with this lang (repeatable): --vault-for-lang ja=~/Notes-ja."),
        model_option,
        click.option("--k", "k", type=int, default=10, show_default=True,
                     help="Hits retrieved per query (chunks, like `groove search --limit`)."),
        click.option("--legs", type=click.Choice(["hybrid", "vector", "fts"]), default="hybrid",
                     show_default=True, help="Which stage-1 legs run."),
        click.option("--json", "as_json", is_flag=True, help="Print the result as JSON."),
    ]
    f = gathered("opts", SearchOptions)(gathered("source", EvalSource)(f))
    for o in reversed(opts):
        f = o(f)
    return search_options(f)


def _session(source: EvalSource, err: Console) -> tuple[Any, EvalSession, list]:
    golden = load_golden(source.golden)
    for w in golden.warnings:
        err.print(f"[yellow]warning:[/yellow] {_safe(w)}")
    vaults = resolve_vaults(golden, source.vault, parse_vault_for_lang(source.vault_for_lang))
    session = EvalSession(golden, vaults, model=source.model)
    for rt in session.runtimes.values():
        for w in rt.config.warnings:
            err.print(f"[yellow]warning:[/yellow] {_safe(w)}")
    for v in session.config_differences():
        err.print(f"[yellow]warning:[/yellow] {v} has other [search] settings than {session.primary.vault}; "
                  "the fingerprint records the first vault's")

    shown: list[bool] = []

    def progress(v: Path, ev: dict) -> None:
        if ev.get("phase") != "embed" or not ev.get("total"):
            return
        if err.is_terminal:
            err.print(f"indexing {v.name}: {ev.get('done', 0)}/{ev['total']} notes", end="\r")
        elif not shown:  # a log file gets one line, not hundreds
            err.print(f"indexing {v.name} (new or changed notes)…")
        shown.append(True)

    warnings = session.reindex(progress)
    if shown and err.is_terminal:
        err.print()
    for w in warnings:
        err.print(f"[yellow]warning:[/yellow] {_safe(w)}")
    quoted = session.quoted()
    if quoted:
        appear = "y appears" if len(quoted) == 1 else "ies appear"
        err.print(f"[yellow]warning:[/yellow] {len(quoted)} golden quer{appear} "
                  "verbatim in the vault, so the eval measures string matching, not retrieval:")
        for g, paths in quoted:
            more = f" (+{len(paths) - 3} more)" if len(paths) > 3 else ""
            err.print(f"  line {g.line}: {_safe(repr(g.query))} in {_safe(', '.join(paths[:3]))}{more}")
    return golden, session, quoted


def _fmt(v: float) -> str:
    return f"{v:.3f}"


def _short(metric: str) -> str:
    return metric.replace("recall", "R").replace("hit", "H").replace("ndcg", "nDCG").replace("mrr", "MRR")


def metrics_table(metrics: dict[str, Any], names: Sequence[str], title: str) -> Table:
    # Short headers and no vertical rules: the table fits 80 columns.
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    t.add_column("group", no_wrap=True)
    t.add_column("n", justify="right")
    for m in names:
        t.add_column(_short(m), justify="right", no_wrap=True)

    def row(label: str, d: dict[str, Any]) -> None:
        t.add_row(label, str(d.get("n", 0)), *[_fmt(d[m]) if m in d else "-" for m in names])

    row("all", metrics["overall"])
    if len(metrics["by_lang"]) > 1 or "-" not in metrics["by_lang"]:
        for lang, d in metrics["by_lang"].items():
            row(f"lang={lang}", d)
    for kind, d in metrics["by_kind"].items():
        row(f"kind={kind}", d)
    return t


def change_line(c: QueryChange) -> str:
    olds, news = c.old_ranks, c.new_ranks
    ranks = "; ".join(f"{_safe(Path(p).stem)} {olds.get(p) or '-'}→{news.get(p) or '-'}" for p in news)
    tag = "/".join(x for x in (c.lang, c.kind) if x)
    return f"{c.delta:+.3f}  {_safe(repr(c.query))} ({tag})  rank {ranks}"


def print_comparison(console: Console, cmp: Comparison, detailed: bool) -> None:
    head = f"vs previous run on this golden file ({cmp.previous_date})"
    if not cmp.comparable:
        console.print(f"[yellow]{head}: not comparable[/yellow] — {cmp.reason}")
    if detailed:
        t = Table(title=head, title_justify="left")
        for c in ("metric", "before", "now", "delta"):
            t.add_column(c, justify="right" if c != "metric" else "left")
        for m, (o, n) in cmp.metric_deltas.items():
            d = n - o
            style = "" if abs(d) < 1e-9 or not cmp.comparable else ("green" if d > 0 else "red")
            t.add_row(m, _fmt(o), _fmt(n), f"[{style}]{d:+.3f}[/{style}]" if style else f"{d:+.3f}")
        console.print(t)
        if cmp.fingerprint_changes:
            console.print("configuration differs from that run:")
            for f in cmp.fingerprint_changes:
                console.print(f"  [bold]{f.name}[/bold]: {f.old!r} → {f.new!r}")
        else:
            console.print("configuration: same fingerprint as that run")
    if cmp.comparable:
        console.print(f"per query (ndcg@10, ranks before→now): {len(cmp.worse)} worse, {len(cmp.better)} better"
                      + (f", {cmp.new_queries} new" if cmp.new_queries else ""))
        for q in cmp.worse:
            console.print(f"  [red]worse[/red]  {change_line(q)}", highlight=False)
        for q in cmp.better:
            console.print(f"  [green]better[/green] {change_line(q)}", highlight=False)


def print_run(console: Console, run: EvalRun, metrics: dict[str, Any]) -> None:
    console.print(f"[dim]{NOTE}; k = {run.k} hits per query[/dim]")
    console.print(metrics_table(metrics, run.metric_names, f"{len(run.results)} queries"))
    missed = [r for r in run.results if r.first_rank is None]
    if missed:
        console.print(f"no expected note in the top {run.k}: {len(missed)} quer{'y' if len(missed) == 1 else 'ies'}")
        for r in missed:
            console.print(f"  line {r.golden.line}: {_safe(repr(r.golden.query))} "
                          f"({r.golden.lang or '-'}/{r.golden.kind})",
                          highlight=False)
    unreachable = sum(len(r.unreachable) for r in run.results)
    if unreachable:
        console.print(f"[yellow]{unreachable} expected path(s) are not in the vault (unreachable)[/yellow]")
    console.print(f"[dim]{len(run.results)} queries in {run.seconds:.2f} s[/dim]")


@click.command("eval")
@eval_options
@click.option("--compare", is_flag=True,
              help="Show the delta to the last run on the same golden file and what changed.")
@click.option("--history", "history_file", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="History file (default: .groove-eval-history.json at the vault's root).")
@click.option("--no-record", is_flag=True, help="Don't append this run to the history.")
def eval_cmd(source: EvalSource, opts: SearchOptions, k: int, as_json: bool, compare: bool,
             history_file: Path | None, no_record: bool) -> None:
    """Score retrieval on golden queries: recall, hit, MRR, nDCG, overall and per lang/kind.

    Example: groove eval golden.jsonl --vault-for-lang en=~/Notes --vault-for-lang ja=~/Notes-ja
    """
    err = Console(stderr=True, soft_wrap=True)
    gset, session, quoted = _session(source, err)
    try:
        run = session.run(opts, k)
        for w in run.warnings:
            err.print(f"[yellow]warning:[/yellow] {_safe(w)}", highlight=False)
        record = make_record(gset, session.vault_of, run, session.fingerprint(opts, k))
    finally:
        session.close()
    hpath = history_file or history_path(session.primary.vault)
    runs, hw = load_history(hpath)
    for w in hw:
        err.print(f"[yellow]warning:[/yellow] {_safe(w)}")
    prev = previous_run(runs, gset.sha256)
    cmp = compare_runs(prev, record) if prev else None
    if not no_record:
        try:
            write_history(hpath, runs + [record])
        except OSError as e:
            err.print(f"[yellow]warning:[/yellow] could not write eval history {hpath}: {e}")
    if as_json:
        out: dict[str, Any] = {
            "note": NOTE, "run": record, "history": str(hpath),
            "warnings": list(gset.warnings) + run.warnings + hw,
            "quoted_in_vault": [{"line": g.line, "query": g.query, "notes": paths}
                                for g, paths in quoted],
        }
        if compare:
            out["compare"] = _comparison_json(cmp)
        click.echo(json.dumps(out, ensure_ascii=False, indent=2))
        return
    console = _console()
    print_run(console, run, record["metrics"])
    if cmp:
        print_comparison(console, cmp, detailed=compare)
    elif compare:
        console.print("no earlier run on this golden file to compare with")
    if not no_record:
        console.print(f"[dim]recorded in {hpath}[/dim]")


def _comparison_json(cmp: Comparison | None) -> dict[str, Any] | None:
    if cmp is None:
        return None
    def ch(c: Any) -> dict[str, Any]:
        return {"query": c.query, "lang": c.lang, "kind": c.kind, "before": c.old_ndcg, "now": c.new_ndcg,
                "ranks_before": c.old_ranks, "ranks_now": c.new_ranks}

    return {
        "previous_date": cmp.previous_date, "comparable": cmp.comparable, "reason": cmp.reason,
        "metrics": {m: {"before": o, "now": n, "delta": n - o} for m, (o, n) in cmp.metric_deltas.items()},
        "fingerprint_changes": [{"field": f.name, "before": f.old, "now": f.new} for f in cmp.fingerprint_changes],
        "worse": [ch(c) for c in cmp.worse], "better": [ch(c) for c in cmp.better],
    }


@click.command("tune")
@eval_options
@click.option("--plot", "plot", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write the nDCG@10 grid as a heatmap PNG (needs matplotlib: pip install 'groove[plot]').")
def tune_cmd(source: EvalSource, opts: SearchOptions, k: int, as_json: bool, plot: Path | None) -> None:
    """Do rrf_k and the bm25 column weights move quality on this KB? A grid with significance tests.

    Example: groove tune golden.jsonl --vault ~/Notes --plot tune.png
    """
    from ..eval.tune import plot_heatmap, run_tune

    err = Console(stderr=True, soft_wrap=True)
    if plot is not None:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise GrooveError("--plot needs matplotlib: pip install 'groove[plot]'") from None
    if opts.legs == "vector":
        err.print("[yellow]warning:[/yellow] --legs vector: bm25 weights and rrf_k change nothing without the FTS leg")
    _, session, _quoted = _session(source, err)
    try:
        tick = (lambda i, n: err.print(f"tune: {i}/{n} settings", end="\r")) if err.is_terminal else None
        result = run_tune(session, opts, k, progress=tick)
    finally:
        session.close()
    if err.is_terminal:
        err.print(" " * 30, end="\r")
    if plot is not None:
        plot_heatmap(result, plot)
    if as_json:
        click.echo(json.dumps(_tune_json(result, plot), ensure_ascii=False, indent=2))
        return
    console = _console()
    console.print(f"[dim]{NOTE}; k = {k}; baseline = rrf_k {result.baseline.rrf_k:g}, "
                  f"weights {result.baseline.label}; significance: paired bootstrap 95% CI and sign test "
                  f"on per-query {result.primary}, both must agree[/dim]")
    print_tune(console, result)
    if plot is not None:
        console.print(f"[dim]heatmap written to {plot}[/dim]")


def print_tune(console: Console, result: Any) -> None:
    t = Table(title=f"{result.primary} by rrf_k × bm25 heading/context/content", title_justify="left")
    t.add_column("weights")
    for k in result.rrf_ks:
        t.add_column(f"k={k:g}", justify="right")
    for wl in result.weight_labels:
        cells = []
        for k in result.rrf_ks:
            c = next(c for c in result.cells if c.label == wl and c.rrf_k == k)
            if c.is_baseline:
                cells.append(f"[bold]{c.means[result.primary]:.3f}[/bold] (base)")
            else:
                d = c.deltas[result.primary]
                mark = "*" if c.significance.significant else ""
                cells.append(f"{c.means[result.primary]:.3f} ({d:+.3f}{mark})")
        t.add_row(wl, *cells)
    console.print(t)
    d = Table(title="deltas vs baseline (mean; p: bootstrap / sign test on the primary metric)", title_justify="left")
    for col in ("rrf_k", "weights", "ndcg@10", "mrr", "recall@5", "recall@10", "W/L/T", "p boot", "p sign"):
        d.add_column(col, justify="right")
    for c in result.cells:
        if c.is_baseline:
            continue
        s = c.significance
        d.add_row(f"{c.rrf_k:g}", c.label, *[f"{c.deltas[m]:+.3f}" if m in c.deltas else "-"
                                              for m in ("ndcg@10", "mrr", "recall@5", "recall@10")],
                  f"{s.sign.wins}/{s.sign.losses}/{s.sign.ties}", f"{s.bootstrap.p_value:.3f}",
                  f"{s.sign.p_value:.3f}" + (" *" if s.significant else ""))
    console.print(d)
    console.print(f"[bold]verdict:[/bold] {escape(result.verdict())}")


def _tune_json(result: Any, plot: Path | None) -> dict[str, Any]:
    return {
        "note": NOTE, "primary": result.primary, "verdict": result.verdict(),
        "no_effect": not result.significant, "plot": str(plot) if plot else None,
        "cells": [{
            "rrf_k": c.rrf_k, "weights": list(c.weights), "baseline": c.is_baseline, "means": c.means,
            "deltas": c.deltas, "significant": c.significance.significant,
            "bootstrap": vars(c.significance.bootstrap), "sign_test": vars(c.significance.sign),
        } for c in result.cells],
    }
