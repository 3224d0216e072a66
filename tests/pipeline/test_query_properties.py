"""Any string compiles to valid FTS5, or to a clear BadQuery (never a crash)."""

from __future__ import annotations

import apsw
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from groove.engines.lexical import shortcjk
from groove.errors import BadQuery
from groove.query import HANGUL, char_type, parse_query, sanitize
from groove.storage import migrations

# Fragments a user (or a fuzzer) types that mean something to FTS5 or to us.
SPECIAL = st.sampled_from([
    '"', '""', "-", "--", "AND", "OR", "NOT", "NEAR(", ")", "(", "*", "^", ":", "+",
    "{", "}", "heading:", "NEAR(a b, 2)", "\x00", "\x01", "\u200b", "\ufeff", "\u0301",
    "\u3099", "🎉", "👩‍👩‍👧", "々", "ー", "・", "ｶﾞ", "再ランキング", "の評価", "脚注", "AI",
    " ", "\t", "\n", "\ud800", "\udfff", "x" * 3,
])
TEXT = st.lists(st.one_of(SPECIAL, st.text(max_size=12)), max_size=24).map("".join)


@pytest.fixture(scope="module")
def conn() -> apsw.Connection:
    c = apsw.Connection(":memory:")
    c.execute("CREATE VIRTUAL TABLE fts_chunks USING fts5(heading, context, content, tokenize='trigram')")
    migrations.m007_short_cjk_bigrams(c)
    rows = [
        ("再ランキング", "Doc > 評価", "再ランキングの評価について書く。脚注もある。"),
        ("Foundry Local", "Setup", 'the "-foo" flag and AND/OR NEAR( operators'),
        ("", "", "emoji 🎉 and combining é, ｶﾞ"),
    ]
    for i, r in enumerate(rows, 1):
        c.execute("INSERT INTO fts_chunks(rowid, heading, context, content) VALUES (?,?,?,?)", (i, *r))
        shortcjk.upsert(c, i, *r)
    return c


def run_all(conn: apsw.Connection, text: str) -> None:
    try:
        p = parse_query(text)
    except BadQuery as e:
        assert str(e)  # a clear message, never an empty one
        return
    for expr in (p.match_expr, p.negative_expr):
        if expr is not None:
            conn.execute("SELECT rowid, bm25(fts_chunks) FROM fts_chunks WHERE fts_chunks MATCH ?",
                         (expr,)).fetchall()
    if p.short_terms:
        expr = " OR ".join('"' + t.replace('"', '""') + '"' for t in p.short_terms)
        conn.execute(f"SELECT rowid FROM {shortcjk.TABLE} WHERE {shortcjk.TABLE} MATCH ?",
                     (expr,)).fetchall()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(TEXT)
def test_any_string_compiles_to_a_valid_fts5_expression_or_a_clear_error(conn, text):
    run_all(conn, text)


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_arbitrary_unicode_never_raises_an_fts5_syntax_error(conn, text):
    run_all(conn, text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_every_fts_phrase_is_a_substring_of_the_query(text):
    try:
        p = parse_query(text)
    except BadQuery:
        return
    # Control characters read as spaces; a quoted phrase's "" is one "; the
    # no-phrase fallback is the query with its quote marks taken out.
    q = sanitize(text)
    for ph in p.positives + p.negatives + p.short_terms:
        assert (ph in q or ph.replace('"', '""') in q
                or ph.replace('"', "") in q.replace('"', "")), (ph, text)


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_every_compiled_phrase_reaches_the_trigram_floor(text):
    try:
        p = parse_query(text)
    except BadQuery:
        return
    assert all(len(ph) >= 3 for ph in p.positives + p.negatives)
    # 2 characters, or a Korean stem (searched as the phrase of its bigrams, ADR 0160)
    assert all(len(t) == 2 or all(char_type(c) == HANGUL for c in t) for t in p.short_terms)
    assert len(p.positives) <= 32 and len(p.negatives) <= 32


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_short_cjk_switch_never_changes_the_compiled_expression(text):
    try:
        on = parse_query(text, short_cjk=True)
    except BadQuery:
        with pytest.raises(BadQuery):
            parse_query(text, short_cjk=False)
        return
    try:
        off = parse_query(text, short_cjk=False)
    except BadQuery:
        # Only a query whose sole content is a short CJK term may differ.
        assert on.match_expr is None and on.short_terms
        return
    if not any(char_type(c) == HANGUL for c in text):
        # Korean stems move from the bigram table to trigram phrases when the
        # table is off (ADR 0160); every other query's expression is untouched.
        assert (on.match_expr, on.negative_expr) == (off.match_expr, off.negative_expr)
    assert on.negative_expr == off.negative_expr
    assert off.short_terms == []


@settings(max_examples=200, deadline=None)
@given(TEXT)
def test_embed_text_never_contains_an_exclusion(text):
    try:
        p = parse_query(text)
    except BadQuery:
        return
    assume_ok = p.embed_text.strip()
    assert assume_ok, text  # positives exist, so the embedder sees something
    assert parse_query(p.embed_text).negatives == []


@pytest.mark.parametrize("text", [
    "", " ", '"', '""', '"""', "-", "--x", '-"', "\x00", "NEAR(", "a AND b OR c NOT d",
    "heading: foo", "*", "^foo", "🎉🎉🎉", "é" * 50, "\u0301\u0301\u0301",
])
def test_named_bad_inputs_search_or_fail_clearly(conn, text):
    run_all(conn, text)


def test_100_kb_query_compiles_fast_and_is_capped(conn):
    import time
    text = "".join(f"再ランキング{i}の評価 NEAR( \"q{i:05d}\" -neg{i:04d} AND 🎉 "
                   for i in range(4000))[:100_000]
    assert len(text) == 100_000

    def seconds(q: str) -> float:
        t = time.perf_counter()
        parse_query(q)
        return time.perf_counter() - t

    # A ratio to a tenth of the text, not a time: linear is ~10x, quadratic ~100x.
    small = min(seconds(text[:10_000]) for _ in range(3))
    big = min(seconds(text) for _ in range(2))
    assert big / max(small, 1e-3) < 30, (small, big)
    p = parse_query(text)
    assert len(p.positives) == 32 and len(p.negatives) == 32 and len(p.warnings) >= 2
    run_all(conn, text)
