"""Stage 1 at scale: its cost beyond the query embedding at 2k, 20k and N chunks.

    python bench/scale.py --chunks 100000 [--repeat 20] [--lang zh|ko] [--keep PATH | --index PATH]

Builds one synthetic index that grows through the sizes: notes made of
sentences drawn (seeded) from the eval vault's English and Japanese notes, so
the full-text leg sees real vocabulary, parsed and chunked by groove itself;
384-d unit vectors written directly (a real model would take hours here),
drawn from a Gaussian with the mean and covariance of the default model's
embeddings of 512 of those sentences: e5's vectors share one strong
direction and put most of their weight on a few axes, which is what the head
scan of ADR 0133 relies on, and isotropic noise has neither.
At each size it times, on the same queries:

- stage 1 (every leg, RRF, the candidate load) with the query vector given,
  the legs' work in sequence ("R seq");
- stage 1 as a search runs it: the query embedded on the pipeline's worker
  while the lexical leg runs (ADR 0081), minus the embedding ("R"): what
  stage 1 adds to a search's latency beyond the embedding;

  both against the p50 query embedding of the default model, measured
  alongside (interleaved per query, so load drift hits all alike);
- both as a one-shot process runs stage 1 (FTS5 ranks the full text,
  sqlite-vec scans the vectors: loading either copy would cost more than
  one search) and as the daemon and the MCP server run it, with the
  in-memory word index of ADR 0132 and the vector copy of ADR 0121/0133
  (below their 10k-row threshold the two are the same run twice), with the
  word index's build time and size;
- the vector KNN alone, three ways: sqlite-vec's own scan, groove's path
  (the in-memory copy above ``vectors.MIN_ROWS``; from 40k rows its head
  scan, ADR 0133, staged from 80k, ADR 0222), and numpy's exact brute force (``X @ q`` +
  argpartition).

At the largest size it times other shapes of query as the daemon runs them
(a folder filter, a tag filter, a note-wide exclusion of a common word, a
Japanese query with one, a short Japanese sentence), MMR over the plain
query's pool, and a note's backlinks and nearest notes (``related_notes``),
each against the plain query's stage 1 (ADR 0136-0138); and R for three
questions typed as sentences (one English, two Japanese). It compares the head scan with the exact scan on 120
real queries (the golden sets): the vector KNN's recall at 200, how often
the 20 nearest all came back, and how often stage 1's first 10 candidates
are the same. It also runs 60 seeded random queries (vault words
plus one or two very common ones) through the full-text leg's ranked match
both ways, interleaved: the plain ``ORDER BY bm25`` query, and the exact
top-k path of ``bm25_topk`` with its fallbacks (ADR 0130), and prints how
many the path answered, whether every answer was identical, and the time
ratio.

``--keep PATH`` keeps the index it builds; ``--index PATH`` times such an
index again at its size alone (the text and vectors are seeded, so it is the
index a run would build), for repeated runs on a shared machine.

The last line: ``stage-1 beyond the embedding at N chunks: R x the query
embedding`` (R as a search runs it; the line before gives R seq). The
line above those reports how many of the two cores were free around the
daemon's timings (``cores_free``): R leans on the embedding and the
full-text leg running at once, and a host that leaves one core shows R
near R seq.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
import sys
import time
from pathlib import Path

import groove  # noqa: F401  before numpy, as in groove's processes: it sets the BLAS threads' idling (ADR 0135)

# isort: split
import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from _common import EVAL, median, scratch_dir  # noqa: E402

DIM = 384
QUERIES = ["sync conflicts between devices", "keyboard shortcut for a command", "embed a video in a note",
           "canvas cards and connections", "同期の競合", "ホットキーの設定", "graph view filters", "-sync plugins"]
# --lang zh / ko (issue 37): a vault of that help's sentences, asked in its language (sentences, short
# words, a mixed-Latin query, an exclusion), as typed questions are.
LANG_QUERIES = {
    "zh": ["如何在手机和电脑之间同步笔记", "怎么给命令设置快捷键", "在笔记中嵌入视频", "白板上的卡片和连线",
           "同步冲突", "标签", "Obsidian URI 打开笔记", "插件 设置 -同步冲突"],
    "ko": ["휴대폰과 컴퓨터 사이에서 노트를 동기화하려면", "명령에 단축키를 지정하는 방법", "노트에 동영상 삽입하기",
           "Canvas 카드와 연결선", "동기화 충돌", "태그", "Obsidian URI로 노트 열기", "플러그인 설정 -동기화"],
}


def sentences(root: Path) -> list[str]:
    out: list[str] = []
    for p in sorted(root.rglob("*.md")):
        text = p.read_text(encoding="utf-8", errors="replace")
        out += [s.strip() for s in re.split(r"(?<=[.!?。])\s*|\n+", text) if 20 <= len(s.strip()) <= 300
                and not s.strip().startswith(("---", "#", "!", "|", "```"))]
    return out


class VectorModel:
    """Unit vectors like the default model's passages: a Gaussian with the
    mean and covariance of its embeddings of ``sample`` real sentences."""

    def __init__(self, emb, sample: list[str], rng: np.random.Generator) -> None:
        e = emb.embed_passages(sample).astype(np.float64)
        self.mean, self.spread = e.mean(axis=0), (e - e.mean(axis=0)) / np.sqrt(len(e) - 1)
        self.rng = rng

    def draw(self, n: int) -> np.ndarray:
        x = self.mean + self.rng.standard_normal((n, len(self.spread))) @ self.spread
        return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def build(idx, pool: list[str], rng: random.Random, vectors: VectorModel, start: int, target: int,
          chunk_tokens: int) -> int:
    """Add synthetic notes until the index holds ``target`` chunks; returns the count."""
    from groove.storage import store
    from groove.vault.markdown import parse_note

    have = start
    n = idx.conn.execute("SELECT count(*) FROM documents").fetchone()[0]
    while have < target:
        sections = []
        for _ in range(rng.randint(3, 12)):
            body = " ".join(rng.choice(pool) for _ in range(rng.randint(6, 30)))
            sections.append(f"## {rng.choice(pool)[:40]}\n\n{body}\n")
        text = f"# Note {n}\n\n" + "\n".join(sections)
        data = text.encode("utf-8")
        note = parse_note(f"synthetic/{n // 500:03d}/note-{n:06d}.md", data, chunk_tokens=chunk_tokens)
        vecs = vectors.draw(len(note.chunks))
        nv = vecs.mean(axis=0)
        store.upsert_note(idx, note, store.FileStamp(len(data), 0, hashlib.sha256(data).hexdigest()),
                          vectors=vecs, note_vector=nv / np.linalg.norm(nv))
        have += len(note.chunks)
        n += 1
    return have


def cores_free(trials: int = 5) -> float:
    """How many of two threads ran at once just now: hashing 8 MB on two
    threads against one (hashlib lets go of the GIL). ~2 on an idle
    two-core machine; near 1 when other load leaves this process one core,
    and then a search's embedding and full-text leg cannot overlap."""
    import hashlib
    import threading

    buf = b"g" * (8 << 20)

    def one() -> None:
        hashlib.sha256(buf).digest()

    got = []
    for _ in range(trials):
        t = time.perf_counter()
        one()
        alone = time.perf_counter() - t
        t = time.perf_counter()
        other = threading.Thread(target=one)
        other.start()
        one()
        other.join()
        got.append(2 * alone / (time.perf_counter() - t))
    return median(got)


def p50_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return median(times) * 1000


def random_queries(c, n: int = 60) -> list:
    """Seeded random queries: vault words plus one or two very common ones."""
    from groove.engines.lexical import fts
    from groove.query import parse_query

    text = " ".join(r[0] for r in c.execute("SELECT content FROM fts_chunks WHERE rowid % 997 = 0"))
    words = sorted(set(re.findall(r"[A-Za-z\u00c0-\u024f]{3,}|[\u3040-\u30ff\u4e00-\u9fff]{3,}", text)))
    common = ["the", "and", "for", "with", "note", "notes", "sync", "view", "you", "that", "this", "can"]
    rng, queries = random.Random(23), []  # seeds 5 and 11 chose MAX_DEPTH and MAX_BOUND_SHARE
    while len(queries) < n:
        ws = [rng.choice(words) for _ in range(rng.randint(1, 3))] + rng.sample(common, rng.randint(1, 2))
        rng.shuffle(ws)
        q = parse_query(" ".join(ws))
        if len(q.positives) >= 2:
            queries.append((q, fts.ranked_phrases(c, q.positives, {})))
    return queries


def topk_vs_plain(idx, n: int = 60) -> None:
    """The full-text leg's exact top-k path (with its fallbacks) against the plain ranked query."""
    from groove.engines.lexical import bm25_topk, fts

    c, w, limit = idx.conn, (2.0, 1.0, 1.0), 60
    queries = random_queries(c, n)
    counts = {p: fts.phrase_df(c, p) for _, kept in queries for p in kept}

    def plain(q, kept):
        expr = q.match_expr if len(kept) == len(q.positives) else fts._ranked_expr(q, kept)
        return [(int(r), -float(s)) for r, s in c.execute(fts.fts_sql(None), (*w, expr, limit))]

    t_plain = t_path = 0.0
    answered = same = 0
    for q, kept in queries:
        t = time.perf_counter()
        want = plain(q, kept)
        t_plain += time.perf_counter() - t
        t = time.perf_counter()
        got = bm25_topk.ranked_top(c, "fts_chunks", fts.RankedMatch(q.positives, kept, q.negatives, w), limit,
                                   fts.EVERY_ROW, counts.__getitem__)
        if got is None:
            plain(q, kept)
        t_path += time.perf_counter() - t
        answered += got is not None
        same += got == want
    print(f"full-text ranked match, {n} random queries: exact top-k answered {answered}, identical {same}; "
          f"with its fallbacks {t_path / t_plain:.2f} x the plain query's time")


def words_vs_plain(idx, n: int = 60) -> None:
    """The full-text leg with the word index against FTS5 alone, interleaved."""
    from groove.engines.lexical import fts

    c, w, limit = idx.conn, (2.0, 1.0, 1.0), 60
    wp = idx.words.ready(c)
    if wp is None:
        return
    t_plain = t_words = 0.0
    same = 0
    queries = random_queries(c, n)
    for q, _ in queries:
        t = time.perf_counter()
        want = fts.fts_search(fts.LexicalSearch(c, q, w, memo={}, counts={}), limit)
        t_plain += time.perf_counter() - t
        t = time.perf_counter()
        got = fts.fts_search(fts.LexicalSearch(c, q, w, memo={}, counts={}, words=wp), limit)
        t_words += time.perf_counter() - t
        same += got == want
    print(f"full-text leg, {len(queries)} random queries: word index identical to FTS5 alone on {same}; "
          f"{t_words / t_plain:.2f} x its time")


# The sets the typed-question sample is drawn from: the ones it was measured
# with when ADR 0141 settled R at 100k. Globbing bench/golden/ made every new
# set (Chinese and Korean questions, daily-note questions) change the sample,
# and so R, without any code changing.
SAMPLE_SETS = (
    "golden-extra", "golden-fresh", "golden-holdout", "kitchen-answerable", "kitchen-fresh-answerable",
    "kitchen-fresh-no-answer", "kitchen-no-answer", "no-answer-dev", "no-answer-fresh", "no-answer-holdout",
    "no-answer", "sample-answerable", "sample-no-answer",
)


def golden_queries(n: int = 120) -> list[str]:
    import json

    found = [json.loads(line)["query"] for name in SAMPLE_SETS
             for line in (Path(__file__).parent / "golden" / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
             if line.strip()]
    return random.Random(5).sample(found, min(n, len(found)))


def head_vs_exact(idx, emb, cfg) -> None:
    """ADR 0133's head scan against the exact scan, on real queries."""
    from groove.engines.vectors import cache as vectors
    from groove.pipeline import SearchParams, resolve_params
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import _blob, _nearest, hybrid_candidates
    from groove.query import parse_query

    queries = golden_queries()
    qv = emb.embed_queries(queries)

    def run() -> list[tuple[list[int], list[int]]]:
        out = []
        for q, v in zip(queries, qv):
            r = resolve_params(SearchParams(query=q), cfg)
            s1 = hybrid_candidates(idx, parse_query(r.query, short_cjk=r.short_cjk), v, r, build_restriction(idx, r))
            out.append(([rid for rid, _ in _nearest(idx, "vec_chunks", _blob(v), 200, None)],
                        [c.chunk_id for c in s1.candidates[:10]]))
        return out

    head = run()
    was, vectors.HEAD_MIN_ROWS = vectors.HEAD_MIN_ROWS, 10**12
    idx.vectors = vectors.VectorCache()
    idx.vectors.warm(idx.conn)
    exact = run()
    vectors.HEAD_MIN_ROWS, idx.vectors = was, vectors.VectorCache()
    idx.vectors.warm(idx.conn)
    recall = median([len(set(h[0]) & set(e[0])) / len(e[0]) for h, e in zip(head, exact)])
    mean = sum(len(set(h[0]) & set(e[0])) / len(e[0]) for h, e in zip(head, exact)) / len(head)
    top20 = sum(set(e[0][:20]) <= set(h[0]) for h, e in zip(head, exact))
    same10 = sum(h[1] == e[1] for h, e in zip(head, exact))
    print(f"head scan vs exact, {len(queries)} golden queries: KNN recall@200 mean {mean:.4f} (median {recall:.3f}); "
          f"20 nearest all found {top20}/{len(queries)}; stage 1's first 10 identical {same10}/{len(queries)}")


SHAPES = [  # other shapes of query, each against the plain one (ADR 0136-0138)
    ("folder filter", {"path_globs": ("synthetic/00*/**",)}),
    ("tag filter", {"tags_any": ("note",)}),
    ("note-wide exclusion", {"query": "sync conflicts -graph"}),
    ("Japanese with an exclusion", {"query": "同期の競合 -キャンバス"}),
    ("a Japanese sentence", {"query": "プラグインを無効にする"}),
]
# Questions as people type them, timed as a search runs them (the embedding
# on the worker): the full-text leg of a Japanese sentence outlasted the
# embedding while FTS5 ranked it (ADR 0139), until the word index held
# clauses of kana and kanji (ADR 0141).
SENTENCES = ["how do I resolve sync conflicts when a note was edited on two devices",
             "プラグインを無効にする", "ノートを別のデバイスと同期するときに競合が起きたらどうすればいいですか"]


def shapes(idx, emb, cfg, repeat: int, chunks: int) -> None:
    """Stage 1 of other query shapes as the daemon runs them (word index and
    vector copy warm, the vector given), MMR over the plain query's pool, and
    a note's backlinks and nearest notes (``related_notes``), each as a
    multiple of the plain query's stage 1."""
    from groove.index.notes import links_naming, nearest_notes_to
    from groove.pipeline import SearchParams, _embed_pool, resolve_params
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import hybrid_candidates
    from groove.pipeline.mmr import apply_mmr
    from groove.query import parse_query

    def stage1(**kw):
        r = resolve_params(SearchParams(**{"query": "sync conflicts between devices", **kw}), cfg)
        parsed = parse_query(r.query, short_cjk=r.short_cjk)
        v = emb.embed_query(parsed.embed_text)
        return lambda: hybrid_candidates(idx, parsed, v, r, build_restriction(idx, r))

    plain = stage1()
    base = p50_ms(plain, repeat)
    parts = [f"plain {base:.1f} ms"]
    for label, kw in SHAPES:
        t = p50_ms(stage1(**kw), repeat)
        parts.append(f"{label} {t:.1f} ms ({t / base:.2f}x)")
    pool = stage1(mmr=True)().candidates  # MMR asks stage 1 for a deeper pool
    t = p50_ms(lambda: apply_mmr(idx, pool, 0.7, 0.0, 10), repeat)
    parts.append(f"MMR of its {len(pool)} {t:.1f} ms ({t / base:.2f}x)")
    doc_id, path = idx.conn.execute("SELECT id, path FROM documents ORDER BY id LIMIT 1 "
                                    "OFFSET min(500, (SELECT count(*) / 2 FROM documents))").fetchone()
    stem = path.rsplit("/", 1)[-1][:-3].lower()
    t = p50_ms(lambda: (list(links_naming(idx, {stem, stem + ".md", path.lower()[:-3], path.lower()}, stem)),
                        list(nearest_notes_to(idx, doc_id, None, 10))), repeat)
    parts.append(f"a note's backlinks and nearest notes {t:.1f} ms ({t / base:.2f}x)")
    print(f"other shapes at {chunks} chunks, daemon, vector given: " + "; ".join(parts))
    parts = []
    for q in SENTENCES:
        r = resolve_params(SearchParams(query=q), cfg)
        parsed = parse_query(r.query, short_cjk=r.short_cjk)
        e = p50_ms(lambda: emb.embed_query(parsed.embed_text), repeat)
        se = p50_ms(lambda: hybrid_candidates(idx, parsed, _embed_pool().submit(emb.embed_query, parsed.embed_text),
                                              r, build_restriction(idx, r)), repeat)
        parts.append(f"{q[:12]}… R {max(0.0, se - e) / e:.2f} (embedding {e:.1f} ms)")
    print(f"typed questions at {chunks} chunks, as a search runs them: " + "; ".join(parts))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--lang", choices=("en+ja", "zh", "ko"), default="en+ja",
                    help="zh / ko: text and queries from that help alone; the size table and R only")
    ap.add_argument("--keep", type=Path, help="keep the index built here (for --index)")
    ap.add_argument("--index", type=Path, help="an index --keep kept (same --lang and --chunks): "
                    "time at its size only, without building (the size table and R only)")
    ap.add_argument("--bigram-index", choices=("on", "off"), default="on",
                    help="off: the daemon keeps no bigram table in memory (FTS5 ranks it, as before ADR 0163)")
    a = ap.parse_args()
    if a.lang != "en+ja":
        QUERIES[:] = LANG_QUERIES[a.lang]
    if a.bigram_index == "off":
        from groove.engines.lexical import word_postings

        word_postings.BIGRAM_MIN_ROWS = 1 << 62

    from groove.config import IndexConfig, SearchConfig
    from groove.engines.lexical.word_index import WordPostingsCache
    from groove.engines.vectors.cache import VectorCache
    from groove.models.registry import load_embedder
    from groove.pipeline import SearchParams, _embed_pool, resolve_params
    from groove.pipeline.filters import build_restriction
    from groove.pipeline.fusion import _blob, _nearest, hybrid_candidates
    from groove.query import parse_query
    from groove.storage import migrations
    from groove.storage.db import Index

    src = [EVAL / "vault-en", EVAL / "vault-ja"] if a.lang == "en+ja" else [EVAL / f"vault-{a.lang}"]
    if not all(p.is_dir() for p in src):
        src = [Path(__file__).resolve().parents[1] / "backend" / "groove" / "sample_vault"]
    pool = [s for p in src for s in sentences(p)]
    rng = random.Random(7)

    emb = load_embedder(None)
    model = VectorModel(emb, random.Random(3).sample(pool, min(512, len(pool))), np.random.default_rng(7))
    qvecs = {q: emb.embed_query(q) for q in QUERIES}

    if a.index is not None:
        idx = Index(a.index, create=False)
    else:
        path = a.keep if a.keep is not None else scratch_dir("groove-scale-") / "index.sqlite"
        idx = Index(path)
        with idx.atomic() as c:
            migrations.create_vec_tables(c, DIM)
    cfg = SearchConfig()
    sizes = sorted({s for s in (2_000, 20_000, a.chunks) if s <= a.chunks})
    have = 0
    if a.index is not None:  # built before by the same seeds: its size only
        have = idx.conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        sizes = [have]
    print(f"default model, {emb.n_threads} threads; {len(pool)} sentences for the text")
    print(f"{'':>8} {'one-shot process (FTS5, sqlite-vec)':<42} | {'daemon (word index, vector copy)':<36} |")
    print(f"{'chunks':>8} {'stage 1':>9} {'R seq':>6} {'+ embed':>9} {'embed':>7} {'R':>6} | "
          f"{'stage 1':>9} {'R seq':>6} {'R':>6} {'build':>6} {'size':>7} | "
          f"{'KNN sqlite-vec':>14} {'groove':>8} {'numpy':>8} {'groove/numpy':>12}")
    for size in sizes:
        t = time.perf_counter()
        have = build(idx, pool, rng, model, have, size, IndexConfig().chunk_tokens)
        built = time.perf_counter() - t
        X = np.stack([np.frombuffer(e, dtype=np.float32) for (e,) in idx.conn.execute(
            "SELECT embedding FROM vec_chunks")])

        def compiled(q: str):
            r = resolve_params(SearchParams(query=q), cfg)
            return r, parse_query(r.query, short_cjk=r.short_cjk)

        def stage1(q: str) -> None:
            r, parsed = compiled(q)
            hybrid_candidates(idx, parsed, qvecs[q], r, build_restriction(idx, r))

        def stage1_embedding(q: str) -> None:
            # As run_search does it: the embedding on a worker, the lexical leg here.
            r, parsed = compiled(q)
            qvec = _embed_pool().submit(emb.embed_query, parsed.embed_text)
            hybrid_candidates(idx, parsed, qvec, r, build_restriction(idx, r))

        def raw_vec(q: str) -> None:
            idx.conn.execute("SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ? "
                             "ORDER BY distance", (_blob(qvecs[q]), 200)).fetchall()

        def brute(q: str) -> None:
            s = X @ qvecs[q]
            np.argpartition(-s, 200)[:200]

        for q in QUERIES:  # warm: the in-memory copy loads on first use
            stage1(q)

        def timed() -> tuple[float, float, float]:
            seq, with_e, alone = [], [], []
            for q in QUERIES:
                seq.append(p50_ms(lambda q=q: stage1(q), a.repeat))
                with_e.append(p50_ms(lambda q=q: stage1_embedding(q), a.repeat))
                alone.append(p50_ms(lambda q=q: emb.embed_query(q), a.repeat))
            return median(seq), median(with_e), median(alone)

        idx.words = WordPostingsCache()  # a one-shot process: no word index, no vector copy
        idx.vectors = VectorCache()
        s1, se, te = timed()
        r_seq, r_one = s1 / te, max(0.0, se - te) / te
        t = time.perf_counter()
        wp = idx.words.warm(idx.conn)  # as the daemon holds it (ADR 0132)
        idx.vectors.warm(idx.conn)  # and its vectors (ADR 0121, 0133), loaded on a thread there
        w_build, w_mb = time.perf_counter() - t, (wp.nbytes / 1e6 if wp else 0.0)
        if wp is not None and wp.bigrams is not None:  # a CJK vault's bigram table (ADR 0163)
            b = wp.bigrams
            own = b.nbytes - b.chunk_ids.nbytes - b.chunk_docs.nbytes  # the note arrays are shared
            print(f"  word index {w_mb:.1f} MB, of which the bigram table's {own / 1e6:.1f} MB")
        free = cores_free()
        ws1, wse, wte = timed()
        free = min(free, cores_free())
        r_seq_w, r_all = ws1 / wte, max(0.0, wse - wte) / wte
        sv = median([p50_ms(lambda q=q: raw_vec(q), a.repeat) for q in QUERIES])
        gv = median([p50_ms(lambda q=q: _nearest(idx, "vec_chunks", _blob(qvecs[q]), 200, None), a.repeat)
                     for q in QUERIES])
        nb = median([p50_ms(lambda q=q: brute(q), a.repeat) for q in QUERIES])
        print(f"{have:>8} {s1:7.1f}ms {r_seq:6.2f} {se:7.1f}ms {te:5.1f}ms {r_one:6.2f} | "
              f"{ws1:7.1f}ms {r_seq_w:6.2f} {r_all:6.2f} {w_build:5.1f}s {w_mb:5.0f}MB | "
              f"{sv:12.2f}ms {gv:6.2f}ms {nb:6.2f}ms {gv / nb:12.2f}   (built in {built:.0f} s)")
    if a.lang == "en+ja" and a.index is None:
        head_vs_exact(idx, emb, cfg)
        shapes(idx, emb, cfg, a.repeat, have)
        topk_vs_plain(idx)
        words_vs_plain(idx)
    print(f"cores free to this process around those timings: {free:.1f} of 2 (two threads hashing against "
          f"one; near 1, the embedding and the full-text leg could not overlap and R nears R seq)")
    print(f"stage-1 beyond the embedding, vector given (legs in sequence), at {have} chunks: "
          f"R seq {r_seq_w:.2f} x the query embedding (one-shot process: {r_seq:.2f})")
    print(f"stage-1 beyond the embedding in a one-shot process (FTS5, sqlite-vec) at {have} chunks: "
          f"{r_one:.2f} x the query embedding")
    print(f"stage-1 beyond the embedding at {have} chunks: {r_all:.2f} x the query embedding")


if __name__ == "__main__":
    main()
