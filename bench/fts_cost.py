"""Cost of the FTS leg on the worst-case corpus (every row holds every phrase).

Prints: the OR-expansion scaling table (1..32 phrases x 5k/20k/40k rows) for
the naive expression and for the pruned one groove runs, as ms and as ratios
to one phrase; the exclusion-scan ratio; and the short-CJK bigram leg's cost
(query, index build, size) relative to the trigram leg.

    .venv/bin/python bench/fts_cost.py [--rows 5000,20000,40000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import string
import time
from collections.abc import Callable

import apsw

from groove.engines.lexical import fts, shortcjk
from groove.query import parse_query
from groove.storage import migrations

W = (2.0, 1.0, 1.0)
KS = (1, 2, 4, 8, 16, 32)


def best(f: Callable[[], object], n: int) -> float:
    t_best = float("inf")
    for _ in range(n):
        t = time.perf_counter()
        f()
        t_best = min(t_best, time.perf_counter() - t)
    return t_best * 1e3


def latin_corpus(n: int, ph: list[str]) -> apsw.Connection:
    rnd = random.Random(n)
    filler = ["".join(rnd.choices(string.ascii_lowercase, k=7)) for _ in range(2000)]
    head = " ".join(ph)
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    with c:
        c.executemany("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?,?,?,?)",
                      ((i, f"heading {ph[i % 32]}", "Note > Section",
                        head + " " + " ".join(rnd.sample(filler, 45))) for i in range(1, n + 1)))
    return c


KANA = [chr(c) for c in range(0x30A2, 0x30F3)]
KANJI = [chr(c) for c in range(0x4E00, 0x4E00 + 3000)]
HIRA = [chr(c) for c in range(0x3042, 0x3093)]


def japanese_corpus(n: int) -> tuple[apsw.Connection, float, float, int, int]:
    """~600-character Japanese rows, each holding 脚注 and 脚注を (worst case)."""
    rnd = random.Random(n)
    rows = []
    for i in range(1, n + 1):
        parts = ["脚注を"]
        while sum(map(len, parts)) < 600:
            parts.append("".join(rnd.choices(KANJI, k=2)) + rnd.choice(HIRA)
                         + "".join(rnd.choices(KANA, k=3)) + "、")
        rows.append((i, "見出し" + rnd.choice(KANJI), "ノート > 節", "".join(parts)))
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    migrations.m007_short_cjk_bigrams(c)
    t = time.perf_counter()
    with c:
        c.executemany("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?,?,?,?)", rows)
    t_tri = time.perf_counter() - t
    t = time.perf_counter()
    with c:
        for r in rows:
            shortcjk.upsert(c, *r)
    t_bi = time.perf_counter() - t
    size = lambda t: c.execute(f"SELECT sum(length(block)) FROM {t}_data").fetchone()[0]  # noqa: E731
    return c, t_tri, t_bi, size("fts_chunks"), size(shortcjk.TABLE)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", default="5000,20000,40000")
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    sizes = [int(x) for x in a.rows.split(",")]
    rnd = random.Random(7)
    ph = ["".join(rnd.choices(string.ascii_lowercase, k=7)) for _ in range(32)]

    print(f"OR expansion, worst case (ms, best of {a.repeat}; ratio to 1 phrase)")
    print(f"{'rows':>6} {'phrases':>7} {'naive ms':>9} {'ratio':>6} {'groove ms':>9} {'ratio':>6} {'unranked ms':>11}")
    excl = {}
    for n in sizes:
        c = latin_corpus(n, ph)
        base_naive = base = None
        for k in KS:
            q = parse_query(" ".join(ph[:k]))
            t_naive = best(lambda: fts.fts_search(fts.LexicalSearch(c, q, W, prune=False), 50), a.repeat)
            t_groove = best(lambda: fts.fts_search(fts.LexicalSearch(c, q, W), 50), a.repeat)
            t_unr = best(lambda: c.execute(fts.match_ids_sql(limit=True), (q.match_expr, 50)).fetchall(), a.repeat)
            base_naive = base_naive or t_naive
            base = base or t_groove
            print(f"{n:>6} {k:>7} {t_naive:>9.1f} {t_naive/base_naive:>5.1f}x {t_groove:>9.1f} "
                  f"{t_groove/base:>5.1f}x {t_unr:>11.2f}")
        qe, qr = parse_query(f"zzzzzz -{ph[0]}"), parse_query(ph[0])
        excl[n] = (best(lambda: fts.excluded_ids(c, qe), a.repeat * 2),
                   best(lambda: fts.fts_search(fts.LexicalSearch(c, qr, W), 50), a.repeat * 2))
        c.close()
    print("\nExclusion id scan vs ranked 1-phrase FTS query (negative matches every row)")
    for n, (s, r) in excl.items():
        print(f"{n:>6} rows: scan {s:.2f} ms, ranked {r:.2f} ms, ratio {s/r:.2f}")

    print("\nShort-CJK bigram leg vs trigram leg (Japanese rows ~600 chars, term in every row)")
    print(f"{'rows':>6} {'trigram ms':>10} {'bigram ms':>9} {'ratio':>6} {'fused ms':>8} "
          f"{'build tri s':>11} {'build bi s':>10} {'size tri KB':>11} {'size bi KB':>10}")
    for n in sizes:
        c, t_tri, t_bi, s_tri, s_bi = japanese_corpus(n)
        tri = parse_query("脚注を", short_cjk=False)
        bi = parse_query("脚注")
        both = parse_query("脚注をの評価")  # trigram phrases + the short term 評価
        t1 = best(lambda: fts.fts_search(fts.LexicalSearch(c, tri, W), 50), a.repeat)
        t2 = best(lambda: fts.fts_search(fts.LexicalSearch(c, bi, W), 50), a.repeat)
        t3 = best(lambda: fts.fts_search(fts.LexicalSearch(c, both, W), 50), a.repeat)
        print(f"{n:>6} {t1:>10.1f} {t2:>9.1f} {t2/t1:>5.2f}x {t3:>8.1f} {t_tri:>11.2f} {t_bi:>10.2f} "
              f"{s_tri/1024:>11.0f} {s_bi/1024:>10.0f}")
        c.close()


if __name__ == "__main__":
    main()
