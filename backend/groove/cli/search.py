"""`groove search`.

Answered by the vault's daemon when one runs: that path imports only click,
the socket client and the small styled-text printer (no numpy, pipeline,
index, llama.cpp, pydantic's annotations or rich), so a cold `groove search`
costs little more than a Python start and the daemon's answer (ADR 0119)."""

from __future__ import annotations

import bisect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from ..printable import escape_controls
from ..wire.bounds import MAX_LIMIT
from . import readable
from .common import (
    DaemonChoice,
    DashQueryCommand,
    Limit,
    ask_daemon,
    daemon_options,
    default_vault,
    ensure_model_downloaded,
    index_option,
    model_option,
    runtime_from,
    vault_option,
)
from .styled import Printer, Styled, cells

if TYPE_CHECKING:
    from ..wire.search import SearchResponse

HIGHLIGHT = "bold black on yellow"


def search_options(f):
    """The pipeline flags, shared by `search` and `eval` (same names as groove.toml)."""
    opts = [
        click.option("--rerank/--no-rerank", "rerank", default=None, help="Cross-encoder reranking (stage 2)."),
        click.option("--reranker", default=None, help="Reranker model (path or known name) for this run."),
        click.option("--mmr/--no-mmr", "mmr", default=None, help="MMR diversity (stage 3)."),
        click.option("--mmr-lambda", type=float, default=None, help="MMR relevance/diversity balance, 0..1."),
        click.option("--mmr-same-doc-penalty", type=float, default=None,
                     help="Extra MMR penalty for a note already picked."),
        click.option("--parent/--no-parent", "parent_retriever", default=None, help="Parent retriever (stage 4)."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


def filter_options(f):
    opts = [
        click.option("--path", "path_globs", multiple=True,
                     help="Only notes matching this glob (repeatable), e.g. 'Sync/**'."),
        click.option("--tag", "tags_any", multiple=True, help="Only notes with any of these tags (repeatable)."),
        click.option("--all-tags", "tags_all", multiple=True, help="Only notes with all of these tags (repeatable)."),
        click.option("--from", "date_from", default=None, help="Only notes dated on/after (YYYY-MM-DD)."),
        click.option("--to", "date_to", default=None, help="Only notes dated on/before (YYYY-MM-DD)."),
        click.option("--where", "where", multiple=True, metavar="KEY=VALUE",
                     help="Only notes whose property matches (repeatable, all must hold): key=value, key!=value, "
                          "key<value, key>value, key<=value, key>=value; e.g. status=done, priority>2."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


@click.command("search", cls=DashQueryCommand)
@click.argument("query")
@vault_option
@index_option
@model_option
@click.option("--limit", type=Limit(MAX_LIMIT, clamp=False), default=None,
              help=f"Number of hits (default: [search] limit, 10; at most {MAX_LIMIT}, a larger one is clamped).")
@search_options
@filter_options
@click.option("--json", "as_json", is_flag=True,
              help="Print {results, low_confidence, filter_applied, warnings, confidence}.")
@daemon_options
@click.option("--explain", is_flag=True, default=None,
              help="Under each hit: the legs that found it (rank, RRF share), fused score, stages 2-4.")
def search_cmd(query: str, vault: Path | None, index_path: Path | None, model: str | None, as_json: bool,
               daemon: DaemonChoice, **options: object) -> None:
    """Search the vault. "two words" favours the phrase, +"two words" requires it; -word excludes a word
    (a query may begin with one: groove search "-draft sync").

    A running `groove serve` for the vault answers (warm models, no model
    load here); without one the search runs in this process.

    Example: groove search "keep notes in sync between phone and computer" --vault ~/Notes
    """
    # The flags are named like the protocol's search params (and groove.toml's keys).
    wire = protocol_params(query, options)
    resp = _via_daemon(default_vault(vault), wire, required=daemon.use_daemon, verbose=daemon.verbose) \
        if not daemon.no_daemon and not (index_path or model) else None
    if resp is None:
        from .. import operations
        from ..pipeline import SearchParams

        if daemon.verbose:
            why = "--no-daemon" if daemon.no_daemon else "--index/--model given" if (index_path or model) else \
                "no daemon answers for this vault"
            click.echo(f"searching in this process ({why})", err=True)
        rt = runtime_from(vault, index_path, model, create=False)
        params = SearchParams.from_json(wire)
        _arguments_first(rt, params)
        ensure_model_downloaded(rt.model or rt.config.index.model)
        _same_model(rt)
        resp = operations.search(rt, params)  # the daemon's maximum, and its warning
    if as_json:
        click.echo(json.dumps(resp.to_json(), ensure_ascii=False, indent=2))
    else:
        print_response(resp)


def _arguments_first(rt: Any, params: Any) -> None:
    """A wrong argument or a query with nothing to search is said before a
    model loads (the search checks them again; both are cheap)."""
    from ..pipeline.params import resolve_params
    from ..query.compiler import parse_query

    r = resolve_params(params, rt.config.search)
    parse_query(r.query, short_cjk=r.short_cjk, identifiers=r.identifier_phrases)


def _same_model(rt: Any) -> None:
    """An index searched with another model than it was built with fails
    deep in sqlite-vec ("Dimension mismatch ... Expected 32 dimensions"),
    a traceback; or, at the same dimension, ranks by vectors that do not
    compare. Say which model built it, and the two ways out."""
    from ..errors import EmbedderMismatch

    info = rt.index.embedder_info()
    emb = rt.embedder
    if info and (info.get("model_id"), int(info.get("dim", -1))) != (emb.model_id, emb.dim):
        raise EmbedderMismatch(
            f"this index was built with the model {info.get('model_id')} ({info.get('dim')} dimensions), not "
            f"{emb.model_id} ({emb.dim}): search with --model set to the model that built it, or run "
            "`groove index --rebuild` to re-embed the vault with this one")


def protocol_params(query: str, options: dict[str, Any]) -> dict[str, Any]:
    """The flags as the protocol's search params: unset ones left out, lists
    as lists (what ``SearchParams.to_json`` gives, without importing the
    pipeline; a test pins the two equal)."""
    out: dict[str, Any] = {"query": query}
    for k, v in options.items():
        if v is None or v == ():
            continue
        out[k] = list(v) if isinstance(v, tuple) else v
    return out


def _via_daemon(vault: Path, params: dict[str, Any], *, required: bool, verbose: bool) -> SearchResponse | None:
    from ..wire.search import SearchResponse

    raw = ask_daemon(vault, "search", params, required=required, verbose=verbose)
    return None if raw is None else SearchResponse.from_json(raw)


def _utf8_offsets(text: str) -> list[int]:
    """Byte offset of every character index of ``text``, plus the end (as
    ``pipeline.spans.utf8_offsets``, in plain Python: no numpy on this path)."""
    if text.isascii():
        return list(range(len(text) + 1))
    out = [0]
    for ch in text:
        out.append(out[-1] + len(ch.encode("utf-8", errors="surrogatepass")))
    return out


def _unspaced(ch: str) -> bool:
    """A character of the scripts written without spaces between words: kana,
    kanji/hanzi, CJK punctuation and full-width forms (not Hangul)."""
    o = ord(ch)
    return (0x3000 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF or 0xF900 <= o <= 0xFAFF
            or 0xFF00 <= o <= 0xFFEF or o >= 0x20000)


SNIPPET_CHARS = 240
TEXT_HANG = 4  # a hit's text, and any line that wraps, goes on at this column


def snippet(content: str, spans: list, width: int = SNIPPET_CHARS, answers: list | tuple = (),
            marks: tuple[str, str] | None = None) -> Styled:
    """One line of at most ``width`` characters around the first span, the
    spans highlighted and the ``answers`` (answer_spans) underlined; with
    ``marks`` (text without colour) each answer also stands between the two
    marks, so a reader of plain text sees it too. Spans are UTF-8 byte offsets; whitespace runs
    (newlines included) collapse to one space, and a line break between two
    Japanese or Chinese characters to nothing. Markdown's markup is hidden
    (``readable``): links read as their text, no emphasis or heading marks.
    The chunk's leading headings
    are left out unless a span is in them (the hit's line names them), and a
    cut falls between words, not inside one."""
    offs = _utf8_offsets(content)
    # byte offsets -> character indices (spans always fall on character boundaries)
    char_spans = [(bisect.bisect_left(offs, sp.start), bisect.bisect_left(offs, sp.end)) for sp in spans]
    char_answers = [(bisect.bisect_left(offs, sp.start), bisect.bisect_left(offs, sp.end)) for sp in answers]
    body = _after_headings(content)  # the hit's line above already names its headings
    starts = [a for a, _ in char_spans[:1] + char_answers[:1]]
    first = min(starts) if starts else body
    lo = max(0, first - width // 3)
    if first >= body:
        lo = max(lo, body)
    lo = _word_start(content, lo, first)
    lit = bytearray(len(content) + 1)  # 1: a word match, 2: an answer, 3: both
    for a, b in char_spans:
        lit[a:b] = b"\x01" * (b - a)
    for n, (a, b) in enumerate(char_answers):
        if n + 1 < len(char_answers) and b <= char_answers[n + 1][0] and not content[b:char_answers[n + 1][0]].strip():
            b = char_answers[n + 1][0]  # two sentences of one answer, a space apart: marked as one
        for k in range(a, b):
            lit[k] |= 2
    out = Styled("…" if lo and lo != body else "")  # headings left out are no cut text
    run: list[str] = []
    run_hl, shown, last_space = 0, 0, False
    keep = readable.shown(content)  # Markdown's markup hidden: links as their text, no ** or ##
    i = lo
    while i < len(content) and shown < width:
        if not keep[i]:
            i += 1
            continue
        ch = content[i]
        hl = lit[i]
        if ch.isspace():
            if last_space or shown == 0:
                i += 1
                continue
            end = i
            while end < len(content) and content[end].isspace():
                end += 1
            if content.count("\n", i, end) == 1 and end < len(content) and _unspaced(content[i - 1]) \
                    and _unspaced(content[end]):
                i = end  # a line wrapped inside Japanese or Chinese text: no word gap there (a blank line is one)
                continue
            ch, last_space = " ", True
            if "\n" in content[i:end] and end < len(content) and _is_heading(content, content.rfind("\n", 0, i) + 1):
                # a heading shown (it holds a highlight) is set off from what follows, as on the hit's line
                ch = " > " if _is_heading(content, end) else " — "
        else:
            last_space = False
        if hl != run_hl:
            if run:
                out.append("".join(run), style=_STYLES[run_hl])
                run = []
            if marks and (hl ^ run_hl) & 2:  # an answer begins or ends here
                out.append(marks[0] if hl & 2 else marks[1])
        run.append(ch)
        run_hl = hl
        shown += 1
        i += 1
    if run:
        out.append("".join(run), style=_STYLES[run_hl])
    if not (i < len(content) and content[i:].strip()):
        out = out.rstrip()
        return out.append(marks[1]) if marks and run_hl & 2 else out
    if _in_word(content, i):  # cut inside a word: end at the last space instead
        last = out.plain.rfind(" ", len(out.plain) - 30)
        if last > len(out.plain) // 2:
            out = out.slice(0, last)
    if marks and run_hl & 2 and not out.plain.endswith(marks[1]):
        out = out.rstrip().append(marks[1])  # the answer goes on past the cut
    return out.append("…")


# A run's style by what it is: 1 a word the query matched, 2 the answer, 3 both.
_STYLES: dict[int, str | None] = {0: None, 1: HIGHLIGHT, 2: "underline", 3: f"underline {HIGHLIGHT}"}
# Around an answer where there is no colour (a pipe, NO_COLOR): plain text a person and a script can see.
ANSWER_MARKS = ("»", "«")


def _in_word(text: str, i: int) -> bool:
    """``text[i - 1]`` and ``text[i]`` are letters of one spaced-script word."""
    return 0 < i < len(text) and text[i - 1].isalnum() and text[i].isalnum() \
        and not (_unspaced(text[i - 1]) or _unspaced(text[i]))


def _word_start(text: str, lo: int, limit: int) -> int:
    """``lo``, or the start of the next word when ``lo`` falls inside one
    (never past ``limit``, the first highlight)."""
    if not _in_word(text, lo):
        return lo
    j = lo
    while j < min(limit, lo + 30) and not text[j].isspace():
        j += 1
    return j if j < limit and text[j].isspace() else lo


def _is_heading(text: str, at: int) -> bool:
    """The line starting at ``at`` is a Markdown heading."""
    line = text[at:text.find("\n", at) if "\n" in text[at:] else len(text)].strip()
    return line.startswith("#") and line.lstrip("#")[:1] in (" ", "")


def _after_headings(text: str) -> int:
    """Where a chunk's text starts after its leading Markdown headings (and blank lines)."""
    at = 0
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if stripped and not (stripped.startswith("#") and stripped.lstrip("#")[:1] in (" ", "")):
            break
        at += len(line)
    return at if at < len(text) else 0


# The filter flags, by their protocol names, as a user typed them.
FILTER_FLAGS = {"path_globs": "--path", "tags_any": "--tag", "tags_all": "--all-tags", "date_from": "--from",
                "date_to": "--to", "where": "--where"}


def filters_named(applied: dict[str, Any]) -> list[str]:
    """A search's ``filter_applied`` as the user wrote it (``--tag x``, ``+"phrase"``)."""
    out = []
    for name, flag in FILTER_FLAGS.items():
        v = applied.get(name)
        for item in (v if isinstance(v, list | tuple) else [v] if v else []):
            out.append(f"{flag} {item}")
    out += [f'+"{p}"' for p in applied.get("required_phrases") or []]
    return out


HEAD_MIN = 16  # columns a cut heading keeps: enough to name its section


def _fit(text: str, room: int, sep: str) -> str:
    """``text`` in at most ``room`` terminal columns: its start cut to an
    ellipsis when it is longer (a path's file name and a heading path's own
    section are at the end), at a ``sep`` where one is left."""
    text = escape_controls(text)
    if sum(map(cells, text)) <= room:
        return text
    used, at = 1, len(text)  # 1: the ellipsis
    while at > 0 and used + cells(text[at - 1]) <= room:
        at -= 1
        used += cells(text[at])
    whole = text.find(sep, at)
    return "…" + text[whole if whole >= 0 else at:]


def _on_one_line(width: int | None, fixed: int, path: str, head: str) -> tuple[str, str]:
    """The hit line's path and heading cut so that, with its ``fixed``
    columns (rank, line, score), it fits a terminal ``width``: the score
    stays on the line it scores. The heading gives way first, down to
    ``HEAD_MIN`` columns, then the path; a pipe gets both whole."""
    room = (width or 0) - fixed
    if width is None or room < HEAD_MIN + 8 or sum(map(cells, path + head)) <= room:
        return path, head
    path = _fit(path, room - min(sum(map(cells, head)), max(HEAD_MIN, room - sum(map(cells, path)))), "/")
    return path, _fit(head, room - sum(map(cells, path)), " > ")


def print_response(resp: SearchResponse) -> None:
    out = Printer()
    # The lines above the hits wrap under the hits' text, not at the margin.
    if resp.low_confidence and resp.results:
        out.line(("no strong match", "yellow"), " — these are the closest notes:", hang=TEXT_HANG)
    for w in resp.warnings:
        out.line(("warning:", "yellow"), f" {w}", hang=TEXT_HANG)
    if resp.confidence is not None:
        from ..explain_text import describe_confidence

        out.line(("confidence: " + describe_confidence(resp.confidence), "dim"), hang=TEXT_HANG)
    if not resp.results and resp.filter_applied:
        out.line(f"no note matches the filters ({', '.join(filters_named(resp.filter_applied))})")
    elif not resp.results:
        out.line("no results")
    # One note per entry (issue 47): its best hit, then its other sections indented
    # beneath. Presentation only; --json stays one hit per chunk.
    # On a terminal about three lines of text a hit (wrapped by the printer), a pipe the whole 240 characters.
    shown = SNIPPET_CHARS if out.width is None else max(60, min(SNIPPET_CHARS, 3 * (out.width - 8)))
    notes: dict[str, list] = {}
    for h in resp.results:
        notes.setdefault(h.path, []).append(h)
    for hits in notes.values():
        for k, h in enumerate(hits):
            head = " > ".join(h.heading_path) if h.heading_path else h.title
            pad = " " * TEXT_HANG if k == 0 else "       "
            rank = f"{h.rank:>2}. " if k == 0 else f"     + {h.rank}. "
            tail = ((f"  L{h.line_range[0]}", "dim"), (f"  {h.score:.4f}", "magenta"))
            fixed = len(rank) + sum(len(t) for t, _ in tail) + (2 if k == 0 else 0)
            path, head = _on_one_line(out.width, fixed, h.path if k == 0 else "", head)
            lead: tuple[tuple[str, str], ...] = ((rank, "bold"), (path, "bold cyan"), (f"  {head}", "green"))
            if k:
                lead = (rank, "bold"), (head, "green")
            out.line(*lead, *tail, hang=len(pad))
            out.line(pad, snippet(h.content, h.match_spans, width=shown, answers=h.answer_spans,
                                  marks=None if out.colour else ANSWER_MARKS))
            if h.explain is not None:
                from ..explain_text import describe

                out.line((f"{pad}why: " + describe(h.explain), "dim"))
