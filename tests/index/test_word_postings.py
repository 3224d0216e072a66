"""The in-memory word index (ADR 0132) gives the full-text leg exactly what
FTS5 gives it — the same rows, order and floats, the same coverage and the
same exclusions — or declines; it is dropped when the rows change, and only
long-lived processes build it, off the search's thread."""

from __future__ import annotations

import os
import random
import re
import time

import apsw
import numpy as np
import pytest

from groove import operations
from groove.config import SearchConfig
from groove.engines.lexical import fts, word_index, word_postings, word_runs
from groove.index import vocabulary
from groove.pipeline import SearchParams, resolve_params
from groove.pipeline.filters import build_restriction
from groove.pipeline.fusion import excluded_chunk_ids
from groove.query import parse_query
from groove.storage.db import Index
from helpers import make_runtime

COMMON = ["the", "and", "for", "note", "notes", "with", "sync", "view"]
RARE = ["canvas", "graph", "vault", "plugin", "hotkey", "embed", "folder", "backlink", "template", "daily"]
# Case, digits, overlapping repeats, words inside words, letters outside
# ASCII, and the two characters the trigram tokenizer folds to ASCII.
ODDITIES = ["SYNC", "Sync2", "v2024", "aaaa", "aaaaaa", "syncsync", "asynchronous", "café", "Straße", "naïve",
            "note-taking", "e.g.", "ſync", "\u212aeyboard", "keyboard", "\u212aKK", "kkk", "İstanbul"]
# Clauses of kana and kanji (runs the index holds), overlapping repeats, and
# halfwidth katakana (outside them: left to FTS5).
JAPANESE = ["ノートを同期する", "設定を変更", "キャンバスのカード", "プラグインを無効にする", "同期同期する",
            "ああああ", "コミュニティプラグイン", "設定の変更を同期", "ｶﾝﾊﾞｽ"]
JA_PHRASES = ["ノートを", "を同期", "同期する", "設定を", "を変更", "キャンバス", "プラグイン", "を無効",
              "にする", "同期同期", "ああああ", "あああ", "コミュニティ", "の変更"]
# Korean words with particles (runs of Hangul syllables, ADR 0161), repeats,
# a word inside a word, and Hangul glued to Latin and to kanji.
KOREAN = ["노트를 동기화하려면", "플러그인을 비활성화", "보관함에서 동기화", "동기화동기화", "가가가가",
          "Obsidian에서 플러그인", "漢字한글"]
KO_PHRASES = ["동기화", "플러그인", "보관함", "비활성화", "가가가", "동기화동기화", "한글"]


def _note(rng: random.Random, filler: list[str], i: int) -> str:
    def sentence() -> str:
        words = []
        for _ in range(rng.randint(4, 30)):
            r = rng.random()
            pool = COMMON if r < 0.25 else RARE if r < 0.35 else ODDITIES if r < 0.42 else filler
            w = rng.choice(pool)
            words.append(w.upper() if rng.random() < 0.05 else w.capitalize() if rng.random() < 0.1 else w)
        if rng.random() < 0.3:
            words.append(rng.choice(JAPANESE) + ("" if rng.random() < 0.5 else rng.choice(JAPANESE)))
        if rng.random() < 0.2:
            words.append(rng.choice(KOREAN))
        return " ".join(words) + "."

    sections = [f"## {rng.choice(RARE + ODDITIES)} {rng.choice(filler)}\n\n" + " ".join(
        sentence() for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 4))]
    return f"# Note {i} {rng.choice(RARE)}\n\n{sentence()}\n\n" + "\n\n".join(sections) + "\n"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory, tiny_embedder):
    tmp = tmp_path_factory.mktemp("words")
    vault = tmp / "vault"
    vault.mkdir()
    rng = random.Random(11)
    filler = ["".join(rng.choice("bcdfghklmnprstvwz") + rng.choice("aeiou") for _ in range(rng.randint(2, 4)))
              for _ in range(300)]
    for i in range(90):
        (vault / f"n{i:03d}.md").write_text(_note(rng, filler, i), encoding="utf-8")
    rt = make_runtime(vault, tiny_embedder, tmp)
    operations.reindex(rt)
    return rt, filler


@pytest.fixture
def words(indexed, monkeypatch):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)  # the test vault is far below a big vault's size
    rt, _ = indexed
    wp = word_index.build(rt.index.conn)
    assert wp is not None
    return wp


def _queries(filler: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    ascii_words = RARE + filler + [w for w in ODDITIES if w.isascii() and w.isalnum()] + ["ync", "ey", "aaa"]
    out = []
    for i in range(n):
        ws = [rng.choice(ascii_words) for _ in range(rng.randint(1, 3))] + rng.sample(COMMON, rng.randint(0, 2))
        if i % 3 == 0:
            ws.append(rng.choice(JA_PHRASES))
        if i % 5 == 1:
            ws.append(rng.choice(KO_PHRASES))
        if i % 4 == 0:
            ws.append("-" + rng.choice(ascii_words + COMMON + JA_PHRASES))
        rng.shuffle(ws)
        out.append(" ".join(w.upper() if rng.random() < 0.1 else w for w in ws))
    return out


def _leg(conn: apsw.Connection, text: str, weights, limit: int, wp):
    q = parse_query(text)
    memo: dict[str, int] = {}
    counts: dict[str, int] = {}
    hits = fts.fts_search(fts.LexicalSearch(conn, q, weights, memo=memo, counts=counts, words=wp), limit)
    ids = [cid for cid, _ in hits]
    return hits, fts.query_coverage(conn, q, ids, memo, counts, words=wp)


# The last weights have a zero: a row holding a word only in that column matches, scoring 0.
@pytest.mark.parametrize("weights", [(2.0, 1.0, 1.0), (1.5, 0.7, 1.0), (1.0, 0.0, 1.0)])
@pytest.mark.parametrize("limit", [5, 50])
def test_the_word_index_ranks_exactly_as_fts5_with_the_same_coverage(indexed, words, weights, limit):
    rt, filler = indexed
    conn = rt.index.conn
    answered = 0
    for text in _queries(filler, 60, seed=limit):
        q = parse_query(text)
        if q.match_expr is None:
            continue
        want = _leg(conn, text, weights, limit, None)
        got = _leg(conn, text, weights, limit, words)
        assert got == want, text  # ids, order, the floats themselves, and each row's coverage
        match = fts.RankedMatch(q.positives, fts.ranked_phrases(conn, q.positives), q.negatives, weights)
        answered += words.ranked(conn, match, limit) is not None
    assert answered >= 40  # the word index really answered


def test_phrases_it_cannot_count_are_left_to_fts5(indexed, words):
    rt, _ = indexed
    conn = rt.index.conn
    for text in ['"sync the" canvas', '"同期canvas" vault', "café vault", "canvas -ｶﾝﾊﾞｽ", '"graph view" sync',
                 "ｶﾝﾊﾞｽ 設定を"]:
        q = parse_query(text)
        match = fts.RankedMatch(q.positives, q.positives, q.negatives, (2.0, 1.0, 1.0))
        assert words.ranked(conn, match, 10) is None, text
        assert _leg(conn, text, (2.0, 1.0, 1.0), 10, words) == _leg(conn, text, (2.0, 1.0, 1.0), 10, None)


def test_rows_holding_the_folded_characters_are_counted_by_the_tokenizer(indexed, words):
    rt, _ = indexed
    assert words.odd  # the vault holds ſ and the Kelvin sign
    for phrase in ["sync", "keyboard", "kkk", "ync"]:
        assert words.df(rt.index.conn, phrase) == fts.phrase_df(rt.index.conn, phrase), phrase


@pytest.mark.parametrize("scope", ["note", "chunk"])
def test_exclusions_are_the_same_rows_as_fts5_finds(indexed, words, scope):
    rt, filler = indexed
    idx = rt.index
    r = resolve_params(SearchParams(query="x"), SearchConfig())
    restriction = build_restriction(idx, r)
    # The last two it cannot count: FTS5 finds the rows, the word index widens them to notes.
    for neg in ["sync", "canvas", "aaaa", "ync", filler[0], "keyboard", "キャンバス", "設定を", "あああ",
                "café", "ｶﾝﾊﾞｽ"]:
        q = parse_query(f"vault -{neg}")
        want = excluded_chunk_ids(idx, q, scope, restriction)
        assert want  # the word is in the vault
        assert excluded_chunk_ids(idx, q, scope, restriction, words) == want, neg


@pytest.mark.parametrize("use_words", [True, False], ids=["word index", "fts5"])
def test_skipped_rows_leave_the_same_first_rows_as_ranking_them_all_and_dropping_them(indexed, words, use_words):
    """A note-wide exclusion's rows are skipped round by round (a few more
    rows asked each time), never by ranking limit + len(skip) rows at once;
    the rows kept must be those the single big ask keeps."""
    rt, filler = indexed
    conn, wp = rt.index.conn, (words if use_words else None)
    rng = random.Random(5)
    all_rows = [r for (r,) in conn.execute("SELECT rowid FROM fts_chunks")]
    texts = [f"{a} -{b}" for a, b in zip(_queries(filler, 30, 8), RARE * 3)] + [
        "ノートを同期 -キャンバス", "設定 -sync", "同期 vault -canvas"]
    for i, text in enumerate(texts):
        q = parse_query(text)
        r = resolve_params(SearchParams(query=text), SearchConfig())
        note_wide = excluded_chunk_ids(rt.index, q, "note", build_restriction(rt.index, r), wp)
        skip = note_wide if i % 2 else set(rng.sample(all_rows, rng.randint(1, len(all_rows) // 2)))
        for limit in (3, 10, 40):
            whole = fts.fts_search(fts.LexicalSearch(conn, q, (2.0, 1.0, 1.0), words=wp), limit + len(skip))
            want = [h for h in whole if h[0] not in skip][:limit]
            search = fts.LexicalSearch(conn, q, (2.0, 1.0, 1.0), words=wp)
            assert fts.fts_search(search, limit, skip) == want, (text, limit)


def _folded(end: int):
    """(code point, what the trigram tokenizer makes of it) for every
    character from U+0080 up to ``end``, surrogates left out."""
    tok = apsw.Connection(":memory:").fts5_tokenizer("trigram")
    for cp in range(0x80, end):
        if 0xD800 <= cp < 0xE000:
            continue
        grams = list(tok((chr(cp) * 3).encode("utf-8"), apsw.FTS5_TOKENIZE_DOCUMENT, None,
                         include_offsets=False, include_colocated=False))
        yield cp, grams[0][0] if grams else ""


def test_the_folded_characters_are_exactly_those_the_trigram_tokenizer_folds_to_ascii():
    folds = [chr(cp) for cp, f in _folded(0x10000) if f.isascii() and f.isalnum()]
    assert "".join(folds) == word_postings.FOLDS_TO_ASCII


def test_kana_and_kanji_fold_to_themselves_and_nothing_else_folds_to_them():
    """Why a kana-and-kanji phrase can be counted in its runs: the trigram
    tokenizer leaves those letters as they are and maps no other character
    onto one (else a row could match where the runs do not show it)."""
    letter = re.compile(f"[{word_postings.CJK_LETTERS}]")
    wrong = [hex(cp) for cp, f in _folded(0x30000)
             if (letter.match(chr(cp)) is not None) != (letter.match(f) is not None)
             or (letter.match(chr(cp)) and f != chr(cp))]
    assert wrong == []
    assert word_postings.answers("プラグイン") and word_postings.answers("を無効") and word_postings.answers("ー々ー")
    assert not any(map(word_postings.answers, ["無効", "ｶﾝﾊﾞｽ", "同期canvas", "設定・変更", "ノート 同期"]))


def test_hangul_folds_to_itself_and_nothing_else_folds_to_it():
    """ADR 0161: the argument of the kana-and-kanji clauses, for Korean words."""
    letter = re.compile(f"[{word_postings.HANGUL_LETTERS}]")
    wrong = [hex(cp) for cp, f in _folded(0x30000)
             if (letter.match(chr(cp)) is not None) != (letter.match(f) is not None)
             or (letter.match(chr(cp)) and f != chr(cp))]
    assert wrong == []
    assert word_postings.answers("동기화") and word_postings.answers("플러그인")
    assert not any(map(word_postings.answers, ["태그", "노트 동기화", "Obsidian에서", "漢字한글"]))


def test_a_change_to_the_rows_makes_the_index_stale_until_rebuilt(indexed, monkeypatch):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)
    rt, _ = indexed
    idx = rt.index
    cache = word_index.WordPostingsCache()
    assert cache.ready(idx.conn) is None  # never built on the caller's thread
    assert cache.warm(idx.conn) is not None
    assert cache.ready(idx.conn) is not None
    other = Index(idx.path)  # another connection, as another process would write
    try:
        with other.atomic() as c:
            c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'rows_version'")
    finally:
        other.close()
    assert cache.ready(idx.conn) is None


def test_a_long_lived_process_builds_it_in_the_background_and_again_after_a_write(indexed, monkeypatch):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)
    monkeypatch.setattr(word_index, "SPACING", 0.0)
    rt, _ = indexed
    idx = Index(rt.index.path)
    try:
        idx.keep_word_index()
        first = _wait_ready(idx)
        vault = rt.vault
        (vault / "zebra.md").write_text("# Zebra\n\nzebra stripes and the sync\n", encoding="utf-8")
        operations.reindex(rt)
        assert idx.word_postings() is None or idx.word_postings() is not first  # stale: FTS5 answers meanwhile
        second = _wait_ready(idx)
        assert second is not first and second.df(idx.conn, "zebra") == 1
    finally:
        (rt.vault / "zebra.md").unlink(missing_ok=True)
        operations.reindex(rt)
        idx.close()


def test_a_small_vault_gets_no_index_and_no_build_per_search(indexed, monkeypatch):
    rt, _ = indexed  # 90 notes: far below MIN_ROWS
    idx = Index(rt.index.path)
    try:
        starts = []
        real = word_index.threading.Thread

        def counting(*a, **k):
            starts.append(k.get("name"))
            return real(*a, **k)

        monkeypatch.setattr(word_index.threading, "Thread", counting)
        idx.keep_word_index()
        deadline = time.monotonic() + 10
        while idx.words._building and time.monotonic() < deadline:
            time.sleep(0.02)
        for _ in range(5):
            assert idx.word_postings() is None
        assert starts == ["groove-words"]  # one check for these rows, not one per search
    finally:
        idx.close()


def test_one_shot_processes_never_build_it(indexed, monkeypatch):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)
    rt, _ = indexed
    idx = Index(rt.index.path)
    try:
        for _ in range(3):
            assert idx.word_postings() is None
        assert not idx.words._building
    finally:
        idx.close()


def _wait_ready(idx: Index) -> word_postings.WordPostings:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        wp = idx.word_postings()
        if wp is not None:
            return wp
        time.sleep(0.05)
    raise AssertionError("the word index was not built in the background")


def test_the_known_word_share_is_the_same_read_from_the_word_index(indexed, words):
    rt, filler = indexed
    conn = rt.index.conn
    texts = _queries(filler, 30, seed=5) + ["sourdough bread at home", "syncing the vaults", "café ſync 同期"]
    for text in texts:
        q = parse_query(text)
        memo: dict[str, int] = {}
        if q.match_expr is not None:  # the leg fills the memo first, as a search does
            fts.fts_search(fts.LexicalSearch(conn, q, (2.0, 1.0, 1.0), memo=memo, counts={}, words=words), 20)
        got = vocabulary.known_share(conn, q.terms, memo, word_index=words)
        assert got == vocabulary.known_share(conn, q.terms, {}), text


def test_index_status_says_whether_the_word_index_ranks(indexed, monkeypatch):
    rt, _ = indexed
    st = operations.index_status(rt)["word_index"]
    assert st["state"] == "off" and st["rows"] is None  # this process keeps none
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)
    monkeypatch.setattr(word_index, "SPACING", 0.0)
    idx = rt.index
    saved = idx.words
    try:
        idx.keep_word_index()
        _wait_ready(idx)
        st = operations.index_status(rt)["word_index"]
        assert st["state"] == "ready" and st["rows"] == operations.index_status(rt)["chunks"]
        assert st["megabytes"] > 0 and st["build_seconds"] >= 0
        monkeypatch.setattr(word_postings, "MIN_ROWS", 10**9)
        idx.words = word_index.WordPostingsCache()
        idx.keep_word_index()
        deadline = time.monotonic() + 10
        while operations.index_status(rt)["word_index"]["state"] == "building" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert operations.index_status(rt)["word_index"]["state"] == "small"
    finally:
        idx.words = saved


@pytest.fixture
def own_vault(tmp_path, tiny_embedder, monkeypatch):
    monkeypatch.setattr(word_postings, "MIN_ROWS", 10)
    vault = tmp_path / "vault"
    vault.mkdir()
    rng = random.Random(5)
    filler = ["".join(rng.choice("bcdfghklmnprstvwz") + rng.choice("aeiou") for _ in range(3)) for _ in range(150)]
    for i in range(40):
        (vault / f"n{i:03d}.md").write_text(_note(rng, filler, i), encoding="utf-8")
    rt = make_runtime(vault, tiny_embedder, tmp_path)
    operations.reindex(rt)
    return rt, filler, rng


def test_a_refresh_rereads_only_rewritten_notes_and_equals_a_fresh_build(own_vault):
    rt, filler, rng = own_vault
    conn, vault = rt.index.conn, rt.vault
    base = word_index.build(conn)
    assert base is not None
    (vault / "n001.md").write_text(_note(rng, filler, 1) + "\nzebra ſyncing \u212aelvin\n", encoding="utf-8")
    (vault / "n002.md").unlink()
    (vault / "n003.md").rename(vault / "renamed.md")
    (vault / "new.md").write_text("# Brand new\n\nquokka wallaby and the sync\n", encoding="utf-8")
    operations.reindex(rt)
    got = word_index.refresh(conn, base)
    want = word_index.build(conn)
    assert got is not None and want is not None and got.version == want.version != base.version
    assert np.array_equal(got.rowids, want.rowids) and np.array_equal(got.sizes, want.sizes)
    assert got.odd.keys() == want.odd.keys()
    for w in ["zebra", "quokka", "sync", "kelvin", "note", *filler[:20]]:
        assert got.df(conn, w) == want.df(conn, w) == fts.phrase_df(conn, w), w
    for text in _queries(filler, 40, seed=3) + ["zebra sync", "quokka -wallaby note"]:
        if parse_query(text).match_expr is not None:
            assert _leg(conn, text, (2.0, 1.0, 1.0), 20, got) == _leg(conn, text, (2.0, 1.0, 1.0), 20, None), text


def test_rows_rewritten_behind_the_notes_stamps_make_the_refresh_build_anew(own_vault):
    rt, _, _ = own_vault
    idx = rt.index
    base = word_index.build(idx.conn)
    assert base is not None
    with idx.atomic() as c:  # an FTS row no note accounts for, and a new rows version
        c.execute("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (999999, 'x', 'y', 'stray row')")
        c.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'rows_version'")
    assert word_index.refresh(idx.conn, base) is None


def test_many_rewritten_notes_are_built_anew_rather_than_refreshed(own_vault):
    rt, filler, rng = own_vault
    base = word_index.build(rt.index.conn)
    for i in range(10):  # a quarter of the notes
        (rt.vault / f"n{i:03d}.md").write_text(_note(rng, filler, i), encoding="utf-8")
    operations.reindex(rt)
    assert word_index.refresh(rt.index.conn, base) is None


def test_a_touched_note_keeps_every_row_under_the_new_version(own_vault):
    rt, _, _ = own_vault
    base = word_index.build(rt.index.conn)
    note = rt.vault / "n005.md"
    st = note.stat()
    os.utime(note, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))  # same bytes, a new mtime
    operations.reindex(rt)
    got = word_index.refresh(rt.index.conn, base)
    assert got is not None and got.version != base.version and got.slots is base.slots


@pytest.mark.parametrize("setting, words, vectors", [
    ("", True, True),
    ("[index]\nword_index = false\n", False, True),
    ("[index]\nvector_copy = false\n", True, False),  # ADR 0134
])
def test_the_mcp_server_keeps_its_in_memory_copies_unless_the_vault_turns_them_off(tmp_path, setting, words,
                                                                                    vectors):
    from groove.config import parse_config
    from groove.mcp.backend import Backend, ServerOptions

    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\nsome text\n", encoding="utf-8")
    (vault / "groove.toml").write_text(setting, encoding="utf-8")
    cfg = parse_config(setting).index
    assert (cfg.word_index, cfg.vector_copy) == (words, vectors)
    backend = Backend(ServerOptions(vault=vault, index_path=tmp_path / "index.sqlite", attach=False, warm=False))
    try:
        backend.open()
        assert backend.rt is not None
        assert (backend.rt.index.words.background, backend.rt.index.vectors.kept) == (words, vectors)
    finally:
        backend.close()


@pytest.mark.parametrize("key", ["word_index", "vector_copy"])
def test_an_in_memory_copy_setting_that_is_not_a_boolean_is_refused(key):
    from groove.config import parse_config
    from groove.errors import ConfigError

    with pytest.raises(ConfigError, match=key):
        parse_config(f'[index]\n{key} = "no"\n')


def test_the_trigram_map_lists_each_word_under_each_of_its_trigrams_once(monkeypatch):
    """The map is built from code points in batches; it must equal the plain
    reading (a set of trigrams per word), across batch ends and for words
    added to a prior map by a refresh."""
    monkeypatch.setattr(word_runs, "GRAM_BATCH", 17)  # many batch ends
    rng = random.Random(3)
    letters = "abcxyz019あいうアイウー同期設定々"
    names = list(dict.fromkeys("".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(400)))

    def plain(ns: list[str]) -> dict[int, set[int]]:
        out: dict[int, set[int]] = {}
        for wi, n in enumerate(ns):
            for g in {n[i:i + 3] for i in range(len(n) - 2)}:
                out.setdefault(word_postings.gram_code(g), set()).add(wi)
        return out

    def read(grams, ptr, ws) -> dict[int, set[int]]:
        assert np.all(np.diff(grams) > 0)
        for i in range(len(grams)):
            assert np.all(np.diff(ws[ptr[i]:ptr[i + 1]]) > 0)  # ascending, each word once
        return {int(g): set(ws[ptr[i]:ptr[i + 1]].tolist()) for i, g in enumerate(grams)}

    grams, ptr, ws, _ = word_runs.gram_map(names[:300])
    assert read(grams, ptr, ws) == plain(names[:300])
    prior = word_postings.WordPostings.__new__(word_postings.WordPostings)
    prior.starts, prior.grams, prior.gram_ptr, prior.gram_words = np.zeros(301), grams, ptr, ws
    assert read(*word_runs.gram_map(names, prior)[:3]) == plain(names)
