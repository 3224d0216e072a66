"""answer_spans (ADR 0256): what they cost a search, and whether they mark the answer.

    python bench/answer_spans.py --cost [--work DIR]         # cost per search, as ratios
    python bench/answer_spans.py --paraphrase [--work DIR]   # paraphrase questions: top 3 marked?
    python bench/answer_spans.py --set FILE... [--work DIR]  # marked answer sentences: overlap share

``--cost``: on the English help vault, for each query, side by side in one
run: the query's embedding, a search without answer spans, the answer spans
of its first 5 hits alone (as before ADR 0269), of those and their notes'
later hits with an empty sentence cache (the first search of a query), of
those and the notes' best sections not returned (``answers_beyond``), from
the sentence vectors an idle daemon stores (ADR 0281: what ships; the slice
is stored first, and how long that took is printed), and with a warm
cache (the same hits again, as when someone types on). Prints medians and
their ratios to the query embedding.

``--set``: lines ``{"query", "path", "answer", "lang"}`` (the sentence a
person marked as the answer in that note, written blind). Strict: a case
counts when the first answer span of the best hit from ``path`` overlaps
where ``answer`` is in that hit's content. Per note: the same of the hit
the note's row jumps to (``note_answer_rank``, ADR 0269), or the
sentence ``note_answer`` names in a section not returned (its byte range in
the note). Shares are of the
cases whose note is in the top 10 (and of those whose answered hit holds
the marked sentence); the others are counted apart.

Vaults are slices of ../shared/eval/vault-<lang>, as the quality guard
cuts them: the notes the questions name plus every ``--every``-th other
note; ``--work`` keeps the slices and their indexes between runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, default_embedder, median, scratch_dir  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GOLDEN_SETS = [*sorted(EVAL.glob("golden-dev*.jsonl")), *sorted((ROOT / "bench" / "golden").glob("golden-*.jsonl"))]
COST_QUERIES = [
    "how do I keep my notes in sync between my phone and my computer",
    "put two documents next to each other on screen",
    "keyboard shortcut for a command",
    "can I get my money back after buying Sync",
    "where are my settings stored",
    "embed a YouTube video",
]


def runtimes(keep: dict[str, set[str]], work: Path | None, every: int, embedder,  # noqa: ANN001, ANN201
             beyond: bool = False):
    """lang -> a Runtime on a slice of that help vault: the notes in ``keep``
    and every ``every``-th other one as distractors (the quality guard's
    way), indexed under ``work`` (kept between runs when given)."""
    from groove.eval.guard import slice_vault
    from groove.indexer import index_vault
    from groove.runtime import open_runtime

    where = work or scratch_dir("answer-spans-")
    where.mkdir(parents=True, exist_ok=True)
    out = {}
    for lang, paths in sorted(keep.items()):
        vault = where / f"vault-{lang}"
        slice_vault(EVAL / f"vault-{lang}", vault, paths, every or 10**9)  # 0: no distractors
        rt = open_runtime(vault, index_path=where / f"{lang}.sqlite")
        rt._embedder = embedder
        if beyond:  # [search] answers_beyond (ADR 0269)
            search = dataclasses.replace(rt.config.search, answers_beyond=True)
            rt.config = dataclasses.replace(rt.config, search=search)
        index_vault(rt.vault, rt.index, embedder, rt.config.index)  # incremental once built
        out[lang] = rt
    return out


def cost(rt, embedder) -> None:  # noqa: ANN001
    from groove.pipeline import SearchParams, run_search
    from groove.pipeline.answer_vectors import SentenceWarmer
    from groove.pipeline.answers import CACHE, answer_spans
    from groove.storage.sentences import SentenceVectors

    warmer = SentenceWarmer(rt.index, embedder)
    t, n = time.perf_counter(), 0
    while warmer.step():  # what an idle daemon does (ADR 0281)
        n += 1
    took = time.perf_counter() - t
    stored = SentenceVectors(rt.index, embedder.model_id)
    size = rt.index.conn.execute("SELECT sum(length(key) + length(vector)), count(*) FROM sentence_vectors").fetchone()
    print(f"stored {warmer.stored} sentence vectors in {took:.1f} s ({warmer.stored / max(took, 1e-9):.0f}/s), "
          f"{(size[0] or 0) / max(size[1], 1):.0f} bytes a row of data")
    rows = {"query embedding": [], "search, answer_spans off": [], "answer spans, first 5 hits, cold": [],
            "returned hits only, cold": [], "beyond them too, cold": [], "stored vectors (shipped)": [],
            "answer spans, warm cache": []}
    sentences = []
    for q in COST_QUERIES:
        run_search(rt, SearchParams(q, answer_spans=False))  # warm the index pages
        for _ in range(3):
            t = time.perf_counter()
            qv = embedder.embed_query(q)
            rows["query embedding"].append(time.perf_counter() - t)
            t = time.perf_counter()
            resp = run_search(rt, SearchParams(q, answer_spans=False))
            rows["search, answer_spans off"].append(time.perf_counter() - t)
            CACHE.clear()
            t = time.perf_counter()
            answer_spans(resp.results[:5], qv, embedder)  # as before ADR 0269: no later hit of the same notes
            rows["answer spans, first 5 hits, cold"].append(time.perf_counter() - t)
            CACHE.clear()
            t = time.perf_counter()
            answer_spans(resp.results, qv, embedder)  # no index: the returned hits only, no section beyond them
            rows["returned hits only, cold"].append(time.perf_counter() - t)
            CACHE.clear()
            t = time.perf_counter()
            answer_spans(resp.results, qv, embedder, None, stored)  # an idle daemon stored the vault's sentences
            rows["stored vectors (shipped)"].append(time.perf_counter() - t)
            CACHE.clear()
            t = time.perf_counter()
            answer_spans(resp.results, qv, embedder, rt.index)  # answers_beyond: the notes' best sections not returned
            rows["beyond them too, cold"].append(time.perf_counter() - t)
            t = time.perf_counter()
            answer_spans(resp.results, qv, embedder, rt.index)
            rows["answer spans, warm cache"].append(time.perf_counter() - t)
        from groove.pipeline.answers import ANSWER_HITS, MAX_SENTENCES
        from groove.pipeline.answers import sentences as split
        notes = {h.path for h in resp.results[:ANSWER_HITS]}
        sentences.append(sum(min(len(split(h.content)), MAX_SENTENCES) for i, h in enumerate(resp.results)
                             if i < ANSWER_HITS or h.path in notes))
    base = median(rows["query embedding"])
    print(f"{len(COST_QUERIES)} queries x 3, 10 hits each, {median(sentences):.0f} sentences marked a search"
          " (median: the first 5 hits' and their notes' later hits')")
    for name, xs in rows.items():
        print(f"  {name:<28} {median(xs) * 1000:8.1f} ms   x{median(xs) / base:6.1f} the query embedding")
    cold, search = median(rows["returned hits only, cold"]), median(rows["search, answer_spans off"])
    print(f"  cold answer spans / a search without them: {cold / search:.2f}; stored:"
          f" {median(rows['stored vectors (shipped)']) / search:.2f}")


def paraphrase_questions(langs: set[str]) -> list[tuple[str, dict]]:
    out = []
    for path in GOLDEN_SETS:
        for ln in path.read_text(encoding="utf-8").splitlines():
            q = json.loads(ln) if ln.strip() else {}
            if q.get("kind") == "paraphrase" and q.get("lang") in langs:
                out.append((path.name, q))
    return out


def paraphrase(rts, questions: list[tuple[str, dict]]) -> None:  # noqa: ANN001
    from groove.pipeline import SearchParams, run_search

    by_set: dict[str, list[str]] = {}
    for name, q in questions:
        top = run_search(rts[q["lang"]], SearchParams(q["query"])).results[:3]
        by_set.setdefault(name, []).append("" if top and all(h.answer_spans for h in top) else q["query"])
    for name, outcomes in by_set.items():
        bare = [o for o in outcomes if o]
        print(f"{name:<34} {len(outcomes) - len(bare):>3}/{len(outcomes)} paraphrase questions: top 3 all marked"
              + (f"; not: {bare}" if bare else ""))
    marked_rows([run_search(rts[q["lang"]], SearchParams(q["query"], limit=10)) for _, q in questions],
                "paraphrase questions")


def marked_rows(responses: list, what: str) -> None:  # noqa: ANN001
    """How much of the top 10 is underlined as an answer: hits with answer
    spans, and note rows (hits grouped by note) whose row shows one."""
    hits = [sum(bool(h.answer_spans) for h in r.results[:10]) for r in responses]
    rows = []
    for r in responses:
        firsts = {h.path: h for h in reversed(r.results[:10])}
        rows.append(sum(any(g.answer_spans for g in r.results[:10] if g.path == p) or f.note_answer is not None
                        for p, f in firsts.items()))
    notes = [len({h.path for h in r.results[:10]}) for r in responses]
    print(f"{what}: of the top 10, hits with answer spans {sum(hits) / len(hits):.1f} a search (median"
          f" {median(hits):.0f}); note rows with an answer {sum(rows) / len(rows):.1f}"
          f" of {sum(notes) / len(notes):.1f}")
    # What marking more than one sentence costs a reader: how much of a hit is lit.
    from groove.pipeline.answers import sentences
    from groove.pipeline.spans import utf8_offsets
    lit, of = [], []
    for r in responses:
        for h in r.results[:10]:
            if h.answer_spans:
                offs = utf8_offsets(h.content)
                ss = sentences(h.content)
                lit.append(sum(any(offs[s.start] < sp.end and sp.start < offs[s.end] for sp in h.answer_spans)
                               for s in ss))
                of.append(len(ss))
    if lit:
        print(f"{what}: a marked hit has {sum(lit) / len(lit):.2f} sentences lit of {sum(of) / len(of):.1f}"
              f" ({sum(x > 1 for x in lit) / len(lit):.0%} of marked hits more than one)")


def overlap_share(rts, cases: list[dict]) -> None:  # noqa: ANN001
    from groove.pipeline import SearchParams, run_search

    by_lang: dict[str, list[tuple[str, str]]] = {}
    responses = []
    for case in cases:
        lang = case.get("lang", "en")
        resp = run_search(rts[lang], SearchParams(case["query"], limit=10))
        responses.append(resp)
        note = (rts[lang].vault / case["path"]).read_bytes()
        by_lang.setdefault(lang, []).append((_outcome(resp, case, False, note), _outcome(resp, case, True, note)))
    marked_rows(responses, "answer sets")
    for lang, pairs in sorted(by_lang.items()):
        for name, outcomes in (("strict", [p[0] for p in pairs]), ("per note", [p[1] for p in pairs])):
            judged = [o for o in outcomes if o in ("overlap", "other sentence")]
            hits = sum(o == "overlap" for o in judged)
            found = [o for o in outcomes if o != "note not in top 10"]
            apart = {o: outcomes.count(o) for o in sorted(set(outcomes) - {"overlap", "other sentence"})}
            share = f"{hits}/{len(found)} = {hits / len(found) if found else 0:.0%}"
            held = f"{hits}/{len(judged)} = {hits / len(judged) if judged else 0:.0%}"
            print(f"{lang} {name:<8}: overlaps the marked sentence in {share} of the cases whose note is in the"
                  f" top 10 ({held} of those whose answered hit holds the sentence); apart: {apart or 'none'}")


def _outcome(resp, case: dict, per_note: bool, note: bytes) -> str:  # noqa: ANN001
    """How one case came out. Strict: the first answer span of the best hit
    from the case's note (the issue's "right hit"). Per note: of the hit the
    note's row jumps to, ``note_answer_rank``'s when the best hit names one."""
    hit = next((h for h in resp.results if h.path == case["path"]), None)
    if hit is None:
        return "note not in top 10"
    answer = case["answer"].strip().encode("utf-8")
    if per_note and hit.note_answer is not None:  # in a section not returned: where in the note's bytes
        at, (a, b) = note.find(answer), hit.note_answer.byte_range
        return "overlap" if at >= 0 and a < at + len(answer) and at < b else "other sentence"
    if per_note and hit.note_answer_rank is not None:
        hit = next(h for h in resp.results if h.rank == hit.note_answer_rank)
    at = hit.content.encode("utf-8").find(answer)
    if at < 0:
        if per_note and any(answer in h.content.encode("utf-8") for h in resp.results if h.path == case["path"]):
            return "marked sentence in another hit of the note"
        return "marked sentence not in the answered hit"
    first = hit.answer_spans[0] if hit.answer_spans else None
    return "overlap" if first is not None and first.start < at + len(answer) and at < first.end else "other sentence"


def read_cases(files: list[Path]) -> list[dict]:
    return [json.loads(ln) for f in files for ln in f.read_text(encoding="utf-8").splitlines() if ln.strip()]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cost", action="store_true")
    ap.add_argument("--paraphrase", action="store_true")
    ap.add_argument("--set", nargs="*", type=Path, default=[])
    ap.add_argument("--langs", default="en,ja,zh,ko", help="for --paraphrase")
    ap.add_argument("--every", type=int, default=8, help="every N-th other note of a vault joins its slice")
    ap.add_argument("--work", type=Path, default=None, help="keep the slices and their indexes here")
    ap.add_argument("--beyond", action="store_true",
                    help="[search] answers_beyond on (a note's answer also from a section not returned)")
    ap.add_argument("--bar", type=float, default=None, help="answers.ANSWER_BAR for this run (1: no bar)")
    ap.add_argument("--sections", type=int, default=None, help="note_sections.EXTRA_SECTIONS (0: returned hits only)")
    ap.add_argument("--nearer", type=int, default=None, help="note_sections.NEARER_ONLY (0: any section not returned)")
    ap.add_argument("--prior", type=float, default=None, help="answers.SECTION_PRIOR")
    a = ap.parse_args()
    from groove.pipeline import answers, note_sections
    answers.SECTION_PRIOR = answers.SECTION_PRIOR if a.prior is None else a.prior
    note_sections.NEARER_ONLY = note_sections.NEARER_ONLY if a.nearer is None else bool(a.nearer)
    answers.ANSWER_BAR = answers.ANSWER_BAR if a.bar is None else a.bar
    note_sections.EXTRA_SECTIONS = note_sections.EXTRA_SECTIONS if a.sections is None else a.sections
    if not EVAL.is_dir():
        sys.exit(f"the help vaults are not at {EVAL}")
    embedder = default_embedder()
    keep: dict[str, set[str]] = {}
    questions = paraphrase_questions(set(a.langs.split(","))) if a.paraphrase else []
    for _, q in questions:
        keep.setdefault(q["lang"], set()).update(q["expected"])
    cases = read_cases(a.set)
    for c in cases:
        keep.setdefault(c.get("lang", "en"), set()).add(c["path"])
    if a.cost:
        keep.setdefault("en", set())
    rts = runtimes(keep, a.work, a.every, embedder, a.beyond)
    try:
        if a.cost:
            cost(rts["en"], embedder)
        if questions:
            paraphrase(rts, questions)
        if cases:
            overlap_share(rts, cases)
    finally:
        for rt in rts.values():
            rt.close()


if __name__ == "__main__":
    main()
