"""Related-notes quality on judged sets, side by side (ADR 0276, issue 49).

    python bench/related_quality.py JUDGED=INDEX [JUDGED=INDEX ...] [--variants a,b,...] [--per-note]

JUDGED: JSON Lines of ``{"note", "related": [...]}`` (``bench/golden/
daily-related.jsonl``, ``related-notes.jsonl``); INDEX: a built index of
that set's vault, used as it is. For each variant prints nDCG@10, precision
at 5 and recall at 10 of the first similar notes, ``linked@5`` (of the notes
with a judged related note that a link joins to them, the share with one in
the first 5), ``tiny@5`` (notes of under 50 letters of their own among the
first 5 that are not judged related, per note) and the gap between the 1st and 10th score shown
(and in standard deviations of the note's similarities to the vault: the
relevance is in those units, a cosine is not; e5's cosines sit in 0.8-0.9).

Variants: ``today`` (nearest neighbours of the mean chunk vector,
``index.notes.nearest_notes_to``), ``all`` (``RelatedLevers()``, the
default), ``none`` (every lever off), ``only:<lever>+<lever>`` (those levers on
alone) and ``-<lever>+<lever>`` (the default without the first, with the
second), for the fields of ``RelatedLevers``: ``weigh``, ``by_length``,
``csls``, ``global_hub``, ``shrink``, ``links``, ``two_hop``.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
import time
from dataclasses import fields, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "backend"))

TINY = 50
DEFAULT_VARIANTS = ("today,none,all,only:weigh,only:csls,only:links,only:weigh+csls,only:weigh+csls+links,"
                    "-weigh,-csls,-links,-two_hop,-csls+global_hub,+shrink,+shrink+shrink_letters=20,+sections,"
                    "+by_length")


def levers_of(spec: str):
    from groove.index.related_rank import RelatedLevers
    names = [f.name for f in fields(RelatedLevers)]
    if spec == "all":
        return RelatedLevers()
    if spec == "none":
        return RelatedLevers(**{n: False for n in names})
    if spec.startswith("only:"):
        on = set(spec[5:].split("+"))
        return RelatedLevers(**{n: n in on for n in names})
    if spec[:1] in "+-" and spec:
        return replace(RelatedLevers(), **{n: (float(v) if v else sign == "+")
                                           for sign, n, v in re.findall(r"([+-])(\w+)=?([\d.]*)", spec)})
    raise SystemExit(f"unknown variant {spec!r}")


def ranked(idx, names, resolve, doc_id: int, spec: str, limit: int = 10) -> list[tuple[str, float]]:
    from groove.index.notes import nearest_notes_to
    from groove.index.related_rank import rank_related
    by_id = names.by_id()
    if spec == "today":
        return [(by_id[d].path, cos) for d, cos in nearest_notes_to(idx, doc_id, None, limit) if d in by_id][:limit]
    got = rank_related(idx, doc_id, None, resolve, levers_of(spec)) or []
    return [(by_id[r.doc_id].path, r.relevance) for r in got if r.doc_id in by_id][:limit]


def ndcg(sim: list[str], rel: set[str], k: int = 10) -> float:
    dcg = sum(1 / math.log2(i + 2) for i, p in enumerate(sim[:k]) if p in rel)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(len(rel), k)))
    return dcg / ideal if ideal else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="+", help="JUDGED=INDEX")
    ap.add_argument("--variants", default=DEFAULT_VARIANTS)
    ap.add_argument("--per-note", action="store_true", help="the first 5 of each note, per variant")
    a = ap.parse_args()
    from groove.index.related_rank import _notes, with_letters
    from groove.index.space import space_of
    from groove.operations.notes import name_index
    from groove.storage.db import Index
    from groove.vault.links import resolve_target

    variants = a.variants.split(",")
    print("| set | variant | nDCG@10 | P@5 | R@10 | linked@5 | tiny@5 | gap 1st-10th (in σ) |")
    print("|---|---|---|---|---|---|---|---|")
    for spec in a.sets:
        judged_path, _, index_path = spec.partition("=")
        judged = [json.loads(x) for x in Path(judged_path).read_text(encoding="utf-8").splitlines() if x.strip()]
        idx = Index(Path(index_path), create=False)
        names = name_index(idx)

        def resolve(target: str, src: str) -> int | None:
            hit = resolve_target(names, target, src)
            return hit.id if hit is not None else None

        t0 = time.perf_counter()
        notes = _notes(idx, resolve)
        cold = time.perf_counter() - t0
        assert notes is not None, f"{index_path}: no vectors"
        per_call = {}
        for var in ("today", "all"):  # warm, side by side
            t0 = time.perf_counter()
            for j in judged:
                ranked(idx, names, resolve, names.lookup(j["note"]).id, var)
            per_call[var] = (time.perf_counter() - t0) / len(judged)
        timing = (f"{Path(judged_path).stem}: {len(notes.ids)} notes; per call, warm: all / today = "
                  f"{per_call['all'] / per_call['today']:.2f}x; the first call after a change also builds "
                  f"the note vectors and link graph: {cold / per_call['today']:.0f}x one plain call")
        space = space_of(idx)
        assert space is not None
        counts = with_letters(idx, space, notes).letters
        assert counts is not None
        letters = {int(d): float(n) for d, n in zip(notes.ids, counts)}
        for var in variants:
            tot = {"ndcg": 0.0, "p5": 0.0, "r10": 0.0, "tiny": 0.0, "gap": 0.0, "band": 0.0}
            lk_n = lk_hit = 0
            for j in judged:
                doc = names.lookup(j["note"])
                assert doc is not None, j["note"]
                got = ranked(idx, names, resolve, doc.id, var)
                sim = [p for p, _ in got]
                rel = set(j["related"])
                tot["ndcg"] += ndcg(sim, rel)
                tot["p5"] += len(rel & set(sim[:5])) / 5
                tot["r10"] += len(rel & set(sim[:10])) / len(rel)
                tot["tiny"] += sum(letters.get(names.docs[p].id, 0) < TINY and p not in rel for p in sim[:5])
                scores = [s for _, s in got]
                if len(scores) >= 10:
                    tot["gap"] += scores[0] - scores[9]
                    # Relevance is in standard deviations already; a cosine is not.
                    own = notes.plain[list(notes.ids).index(doc.id)]
                    sd = float((notes.plain @ own).std()) if var == "today" else 1.0
                    tot["band"] += (scores[0] - scores[9]) / sd
                near = {by.path for by in (names.by_id().get(i) for i in notes.neighbours.get(doc.id, ())) if by}
                linked_rel = rel & near
                if linked_rel:
                    lk_n += 1
                    lk_hit += bool(linked_rel & set(sim[:5]))
                if a.per_note:
                    print(f"    {var:<12} {j['note']}: " + " | ".join(
                        ("*" if p in rel else "") + p.rsplit("/", 1)[-1] for p in sim[:5]))
            n = len(judged)
            print(f"| {Path(judged_path).stem} ({n}) | {var} | {tot['ndcg'] / n:.3f} | {tot['p5'] / n:.3f} | "
                  f"{tot['r10'] / n:.3f} | {lk_hit}/{lk_n} | {tot['tiny'] / n:.2f} | "
                  f"{tot['gap'] / n:.3f} / {tot['band'] / n:.2f} |")
        print(f"\n{timing}\n")
        idx.close()


if __name__ == "__main__":
    main()
