"""Ways to cut a Chinese sentence, or a Korean word, for the lexical leg,
side by side (ADR 0160).

    python bench/cjk_segmenters.py GOLDEN... --index-dir DIR [--variants a,b] [--jieba-path DIR]
    python bench/cjk_segmenters.py GOLDEN... --index-dir DIR --korean [--kiwi-path DIR]

Every variant is query-time only (the bigram table already holds every
bigram of the vault's kanji runs), so one index per vault serves them all:

- ``phrase``: the sentence as one phrase (groove before ADR 0160).
- ``bigrams``: every overlapping bigram of the sentence, as Lucene's CJK
  analyzer and Elasticsearch's ``cjk`` analyzer index text.
- ``rules`` (shipped): the sentence cut at grammar characters, question and
  auxiliary bigrams dropped (``query.han_bigrams``).
- ``jieba``: jieba's dictionary segmentation (needs jieba importable, e.g.
  ``--jieba-path`` to a folder it was installed into with ``pip install
  --target``): its words of 2 characters go to the bigram table, longer ones
  are trigram phrases, one-character words and the same question words are
  dropped.

With ``--korean`` the variants cut each Korean word instead (the compiler
only; the title leg and ``known_share`` keep the shipped stems):

- ``whole``: the word as written, a phrase at 3+ syllables (about groove
  before ADR 0160).
- ``rules`` (shipped): ``query.hangul_terms``.
- ``kiwi``: kiwipiepy's morphemes (needs it importable, ``--kiwi-path``):
  nouns, foreign words and verb or adjective stems of 2+ syllables, and a
  word's nouns joined when they are written together (보관+함).

Prints nDCG@10 / MRR / Hit@1 per language and per kind, and the time to
compile the set's queries (a dictionary's load is counted once, apart).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL  # noqa: E402

METRICS = ["ndcg@10", "mrr", "hit@1", "recall@10"]


def variants(jieba_path: str | None) -> dict[str, Callable[[str], tuple[list[str], list[str]]]]:
    from groove.query import compiler as query

    def phrase(run: str) -> tuple[list[str], list[str]]:
        return [run], []

    def bigrams(run: str) -> tuple[list[str], list[str]]:
        return [run], [run[i:i + 2] for i in range(len(run) - 1)]

    out = {"phrase": phrase, "bigrams": bigrams, "rules": query.han_terms}
    if jieba_path is not None:
        sys.path.insert(0, jieba_path)
    try:
        import jieba
    except ImportError:
        print("jieba not importable: its variant is left out")
        return out
    jieba.setLogLevel(60)
    t0 = time.perf_counter()
    jieba.initialize()
    print(f"jieba dictionary load: {time.perf_counter() - t0:.2f} s")

    def segmented(run: str) -> tuple[list[str], list[str]]:
        words = [w for w in jieba.cut(run) if len(w) >= 2 and w not in query.HAN_STOP_BIGRAMS]
        return [run] + [w for w in words if len(w) >= 3], [w for w in words if len(w) == 2]

    out["jieba"] = segmented
    return out


def korean_variants(kiwi_path: str | None) -> dict[str, Callable[[str], tuple[list[str], list[str]]]]:
    from groove.query import compiler as query

    def whole(run: str) -> tuple[list[str], list[str]]:
        return ([run], []) if len(run) >= 3 else ([], [])

    out = {"whole": whole, "rules": query.hangul_terms}
    if kiwi_path is not None:
        sys.path.insert(0, kiwi_path)
    try:
        from kiwipiepy import Kiwi
    except ImportError:
        print("kiwipiepy not importable: its variant is left out")
        return out
    t0 = time.perf_counter()
    kiwi = Kiwi()
    kiwi.tokenize("노트를 동기화하려면")  # the model loads on first use
    print(f"kiwipiepy load: {time.perf_counter() - t0:.2f} s")
    content = ("NNG", "NNP", "SL", "XR", "VV", "VA")

    def analysed(run: str) -> tuple[list[str], list[str]]:
        terms: list[str] = []
        nouns, end = "", -1
        for tok in kiwi.tokenize(run):
            tag = tok.tag.split("-")[0]
            if tag in ("NNG", "NNP") and tok.start == end and nouns:
                nouns += tok.form
            else:
                if len(nouns) >= 3 and nouns not in terms:
                    terms.append(nouns)
                nouns = tok.form if tag in ("NNG", "NNP") else ""
            end = tok.start + tok.len
            if tag in content and len(tok.form) >= 2 and tok.form not in query.HANGUL_STOP_STEMS:
                terms.append(tok.form)
        if len(nouns) >= 3 and nouns not in terms:
            terms.append(nouns)
        return [], [t for t in dict.fromkeys(terms) if all(query.char_type(c) == query.HANGUL for c in t)]

    out["kiwi"] = analysed
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("golden", nargs="+", type=Path)
    ap.add_argument("--index-dir", type=Path, required=True, help="<dir>/<lang>.sqlite, built by groove")
    ap.add_argument("--variants", default="phrase,bigrams,rules,jieba")
    ap.add_argument("--jieba-path", default=None)
    ap.add_argument("--legs", default="hybrid", help="hybrid, fts or both (comma-separated)")
    ap.add_argument("--korean", action="store_true", help="cut Korean words instead of Chinese sentences")
    ap.add_argument("--kiwi-path", default=None)
    a = ap.parse_args()
    from groove.eval.golden import load_golden
    from groove.eval.run import EvalSession, SearchOptions, resolve_vaults
    from groove.query import compiler as query

    cuts = korean_variants(a.kiwi_path) if a.korean else variants(a.jieba_path)
    if a.korean and a.variants == "phrase,bigrams,rules,jieba":
        a.variants = "whole,rules,kiwi"
    vaults = {lang: EVAL / f"vault-{lang}" for lang in ("en", "ja", "zh", "ko")}
    for gpath in a.golden:
        golden = load_golden(gpath)
        idx = {vaults[lang]: a.index_dir / f"{lang}.sqlite" for lang in vaults}
        sess = EvalSession(golden, resolve_vaults(golden, None, vaults), index_paths=idx)
        print(f"\n== {gpath.name} ({len(golden.queries)} queries)")
        print(f"{'variant':<14}{'lang/kind':<12}" + "".join(f"{m:>10}" for m in METRICS) + f"{'compile':>12}")
        for name, legs in [(n, g) for g in a.legs.split(",") for n in a.variants.split(",")]:
            if name not in cuts:
                continue
            if a.korean:
                query.hangul_terms = cuts[name]
            else:
                query.han_terms = cuts[name]
            t0 = time.perf_counter()
            for g in golden.queries:
                query.parse_query(g.query)
            ms = (time.perf_counter() - t0) * 1000 / max(1, len(golden.queries))
            agg = sess.run(SearchOptions(legs=legs), 10).aggregate()
            for lang, m in sorted(agg["by_lang"].items()):
                print(f"{name + ' ' + legs:<14}{lang:<12}" + "".join(f"{m[k]:>10.3f}" for k in METRICS)
                      + f"{ms:>9.3f} ms")
            for kind, m in sorted(agg["by_kind"].items()):
                print(f"{'':<14}{kind:<12}" + "".join(f"{m[k]:>10.3f}" for k in METRICS))
        sess.close()


if __name__ == "__main__":
    main()
