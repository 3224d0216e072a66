"""The word index (ADR 0132) on real notes: every query of the project's sets,
searched with it forced on and with FTS5 alone, must give identical responses.

    python bench/word_index_identity.py [--index-dir D] [--vaults zh,ko]

The eval vaults are far below the word index's 10k-row threshold, so a
search there never uses it; this lowers the threshold to 0 and builds it on
each vault (the Obsidian help in English, Japanese, Chinese and Korean, the
kitchen notebook, the sample vault), with the bigram table's beside it (ADR
0163), then runs every answerable and no-answer set of
``bench/calibrate_confidence.py`` against its vault twice, plain and with
``explain``, comparing the whole response (hits, scores, spans, explain,
low_confidence). It prints the count of identical responses and the time
ratio of the searches with the word index to those without (small vaults:
FTS5 is fast there; the ratio is no claim about big ones, see
``bench/scale.py``).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from calibrate_confidence import SETS, load_set, open_runtimes, vault_key  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--index-dir", type=Path, help="reuse/keep the indexes here ({en,ja,kitchen,sample,zh,ko}.sqlite)")
    ap.add_argument("--vaults", default="en,ja,kitchen,sample,zh,ko", help="comma-separated, a subset of those")
    a = ap.parse_args()

    from groove.engines.lexical import word_postings
    from groove.engines.lexical.word_index import WordPostingsCache
    from groove.pipeline import SearchParams, run_search

    word_postings.MIN_ROWS = 0  # the eval vaults are small: build it anyway
    word_postings.BIGRAM_MIN_ROWS = 0  # and the bigram table's (ADR 0163)
    rts = open_runtimes(a.index_dir, tuple(a.vaults.split(",")))
    on = {key: WordPostingsCache() for key in rts}
    built = {key: on[key].warm(rt.index.conn) for key, rt in rts.items()}
    total = same = 0
    t_off = t_on = 0.0
    for _name, path, _answerable, _role in SETS:
        for g in load_set(path):
            key = vault_key(g)
            if key not in rts:
                continue
            rt = rts[key]
            for explain in (False, True):
                params = SearchParams(g["query"], explain=explain)
                rt.index.words = WordPostingsCache()  # FTS5 alone, as a one-shot process
                t = time.perf_counter()
                want = run_search(rt, params).to_json()
                t_off += time.perf_counter() - t
                rt.index.words = on[key]
                assert rt.index.word_postings() is built[key] is not None
                t = time.perf_counter()
                got = run_search(rt, params).to_json()
                t_on += time.perf_counter() - t
                total += 1
                same += got == want
                if got != want:
                    print(f"DIFFERENT: {key}: {g['query']!r} (explain={explain})")
    sizes = ", ".join(f"{k} {len(wp.rowids)} rows {wp.nbytes / 1e6:.1f} MB" for k, wp in built.items() if wp)
    print(f"word index: {sizes}")
    print(f"identical responses with the word index: {same} of {total}; "
          f"searches took {t_on / t_off:.2f} x the time of FTS5 alone")


if __name__ == "__main__":
    main()
