"""The query compiler: a user's query as FTS5 MATCH expressions (docs/design.md §1.2).

Both the index (``engines/lexical/fts.py``, ``engines/lexical/shortcjk.py``) and the pipeline
import it; it imports neither.

The query string never reaches FTS5 as is. ``parse_query`` turns it into
quoted phrases joined with `` OR `` (``match_expr``), a separate expression of
excluded phrases (``negative_expr``), the text the embedder, reranker and
match_spans see (exclusions removed), and, when enabled, the 2-character CJK
terms that trigram cannot match (``short_terms``, searched by
``groove.engines.lexical.shortcjk``).

Rules, decided in docs/adr/0010 (phrases), 0011 (short CJK), 0013 (edge cases):

* ``"..."`` is a verbatim phrase; ``""`` inside it is one literal ``"``. A
  ``"`` with no closing partner is ignored (treated as a separator).
* Unquoted text splits at whitespace and punctuation into words, and each word
  at character-type boundaries into runs (kanji incl. 々〆〇, hiragana,
  katakana incl. ー and half-width forms, and "word": every other letter,
  digit, ``_`` or combining mark). Runs of 3+ characters are phrases; shorter
  runs are joined to a neighbour to reach 3.
* ``+"..."`` is a required phrase (issue 48): the phrase is searched like
  ``"..."`` and only notes that contain it are kept (``required``, applied by
  the pipeline to every leg as a filter: an exclusion in reverse). Only a
  quoted phrase takes ``+``; ``+word`` and ``C++`` are text as before.
* ``-item`` at the start of a whitespace-delimited item excludes it, compiled
  by the same rules; ``--item`` is plain text (a command-line flag, ADR 0077),
  and so is a ``-`` before an item with no letter or digit (``->``).
  An exclusion too short for trigram that is a 2-letter CJK or Hangul word
  (``-标签``, ``-脚注``, ``-태그를``) excludes through the bigram table
  (``negative_shorts``, ADR 0223).
  A query made only of exclusions raises ``BadQuery``.
* No phrase at all -> the whole trimmed positive text is one phrase (the old
  form); under 3 characters -> no FTS leg (``match_expr is None``).
* A kana-free kanji run of 5+ characters is a Chinese sentence, searched by
  the bigrams of its words; a Korean word by its stem, in the bigram table
  (ADR 0160; the word lists are in ``words``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from groove.errors import BadQuery
from groove.query.chars import (  # noqa: F401  (re-exported: the index and the pipeline read them here)
    HAN_SENTENCE,
    HANGUL,
    HIRA,
    KANJI,
    KATA,
    SEP,
    WORD,
    char_type,
    is_cjk,
    is_han_sentence,
)
from groove.query.chars import (
    runs as _runs,
)
from groove.query.chars import (
    words as _words,
)
from groove.query.highlight import HighlightTerm, dedup, quoted_term, word_terms
from groove.query.lex import Item as _Item
from groove.query.lex import lex as _lex
from groove.query.terms import QueryTerms, terms_of
from groove.query.words import (  # noqa: F401  (re-exported: the index and the title leg read them here)
    HAN_FUNCTION_CHARS,
    HAN_STOP_BIGRAMS,
    HANGUL_STOP_STEMS,
    HANGUL_TAILS,
    han_bigrams,
    han_segments,
    han_terms,
    hangul_stem,
    hangul_terms,
    split_at,
)

log = logging.getLogger(__name__)

# Recorded in the eval fingerprint: bump whenever compiled output can change.
COMPILER_VERSION = "5"  # 2: `--flag` is text (ADR 0077); 3: four-kanji halves (ADR 0080); 4: Chinese, Korean (ADR 0160)
# 5: identifier phrases (ADR 0142). `+"..."` (ADR 0246) took no number: a query without it compiles as before.

MIN_PHRASE = 3  # trigram floor: shorter phrases match no row
SHORT_LEN = 2  # the length the short-CJK bigram path adds


@dataclass(frozen=True)
class ParsedQuery:
    positives: list[str]
    negatives: list[str]
    match_expr: str | None  # None: skip the trigram FTS leg
    negative_expr: str | None  # None: no exclusion scan
    embed_text: str  # the query minus exclusions, for the embedder and the reranker only
    terms: QueryTerms  # its words, for every other reader (the title rule, the confidence check)
    short_terms: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # Excluded words too short for trigram, matched in the bigram table (ADR 0223).
    negative_shorts: list[str] = field(default_factory=list)
    # +"phrase": only notes holding every one of these are searched (issue 48).
    required: list[str] = field(default_factory=list)
    # What match_spans lights: the positive content words, each with where it may match (ADR 0255).
    highlight: list[HighlightTerm] = field(default_factory=list)


def sanitize(text: str) -> str:
    """Control characters and lone surrogates become spaces.

    FTS5 rejects a NUL inside a phrase ("unterminated string") and UTF-8
    cannot encode a lone surrogate, so neither may reach a phrase.
    """
    out = []
    for ch in text:
        o = ord(ch)
        if o < 0x20 or 0x7F <= o <= 0x9F or 0xD800 <= o <= 0xDFFF:
            out.append(" ")
        else:
            out.append(ch)
    return "".join(out)


def fts_phrase(p: str) -> str:
    """One FTS5 string: always valid syntax, whatever ``p`` holds."""
    return '"' + p.replace('"', '""') + '"'


def or_expr(phrases: list[str]) -> str | None:
    return " OR ".join(fts_phrase(p) for p in phrases) if phrases else None


def _word_phrases(runs: list[str]) -> list[str]:
    """Runs of 3+ are phrases; short runs join a neighbour to reach 3.

    Consecutive short runs accumulate; a pending group joins the next long
    run (``再`` + ``ランキング``), or, at the end of the word, the runs before
    it (``システム`` + ``化``).
    """
    out: list[str] = []
    pending, pending_start = "", 0
    for i, run in enumerate(runs):
        if len(run) >= MIN_PHRASE:
            if pending:
                out.append(pending + run)
                pending = ""
            out.append(run)
        else:
            if not pending:
                pending_start = i
            pending += run
            if len(pending) >= MIN_PHRASE:
                out.append(pending)
                pending = ""
    if pending:  # short tail: extend leftwards over the preceding runs
        j = pending_start - 1
        while len(pending) < MIN_PHRASE and j >= 0:
            pending = runs[j] + pending
            j -= 1
        if len(pending) >= MIN_PHRASE:
            out.append(pending)
    return out


def _short_terms_of_word(word: str, runs: list[str]) -> list[str]:
    """2-character CJK terms trigram cannot match.

    A whole 2-character CJK word (``タグ``, ``音声``, even ``ねこ``), and inside
    longer words every 2-character kanji or katakana run (``評価`` in
    ``の評価``), and both halves of a 4-kanji run: such compounds are mostly
    two 2-kanji words (``保存場所`` = ``保存`` + ``場所``) that a page may use
    apart (``保存先``, ``の場所``) (ADR 0080). Hiragana runs inside a word are
    mostly particles and inflections (``には``), which would match nearly
    every Japanese chunk.
    """
    if len(word) == SHORT_LEN and all(is_cjk(c) for c in word):
        return [word]
    out: list[str] = []
    for r in runs:
        if len(r) == SHORT_LEN and char_type(r[0]) in (KANJI, KATA):
            out.append(r)
        elif len(r) == 2 * SHORT_LEN and char_type(r[0]) == KANJI:
            out += [r[:SHORT_LEN], r[SHORT_LEN:]]
    return out


def _compile(item: _Item, short_cjk: bool, kana_free: bool = False,
             highlight: list[HighlightTerm] | None = None, identifiers: bool = True) -> tuple[list[str], list[str]]:
    """(phrases, short terms) of one item. ``kana_free``: the whole query has
    no kana, so a long kanji run is a Chinese sentence (ADR 0160). Its
    content words are added to ``highlight`` when given (ADR 0255)."""
    hl: list[HighlightTerm] = [] if highlight is None else highlight
    if item.quoted:
        t = item.text
        hl += quoted_term(t)
        if len(t) >= MIN_PHRASE:
            return [t], []
        if short_cjk and len(t) == SHORT_LEN and all(is_cjk(c) for c in t):
            return [], [t]
        return [], []
    phrases: list[str] = []
    shorts: list[str] = []
    for word in _words(item.text):
        runs = _runs(word)
        hl += word_terms(runs, kana_free)
        special = [r for r in runs if char_type(r[0]) == HANGUL or is_han_sentence(r, kana_free)]
        if not special:
            phrases += _word_phrases(runs)
            if short_cjk:
                shorts += _short_terms_of_word(word, runs)
            continue
        # Korean words and Chinese sentences have their own rules; the other
        # runs of the word (Obsidian in Obsidian에서) are compiled as before.
        rest: list[str] = []
        for r in runs + [""]:
            if r and r not in special:
                rest.append(r)
                continue
            if rest:
                phrases += _word_phrases(rest)
                if short_cjk:
                    shorts += _short_terms_of_word("".join(rest), rest)
                rest = []
            if not r:
                continue
            if char_type(r[0]) == HANGUL:
                p, sh = hangul_terms(r)
                phrases += p
                if short_cjk:
                    shorts += sh
                else:  # an exclusion, or no bigram table: stems long enough for trigram
                    phrases += [t for t in sh if len(t) >= MIN_PHRASE]
            elif short_cjk:
                p, sh = han_terms(r)
                phrases += p
                shorts += sh
            else:
                phrases.append(r)  # without the bigram table: the old whole-run phrase
    ident = identifier(item.text) if identifiers else None
    if ident is not None:
        phrases.append(ident)
        hl.append(HighlightTerm(ident, "phrase"))
    return phrases, shorts


# Sentence punctuation and brackets around a token are not part of what it names.
_TOKEN_EDGES = "\"'`.,;:!?()<>\u3001\u3002\uff0c\uff1f\uff01"


def identifier(token: str) -> str | None:
    """A token whose words are joined by symbols (``#page=N``, ``{{title}}``,
    ``obsidian://open``, ``end-to-end``), as typed, for an exact phrase of its
    own beside its words: the words alone (``page``) are everywhere, while the
    identifier is what a page that documents it holds (issue 36). Apostrophes
    join no identifier (``what's``), nor do CJK punctuation marks (``・``
    separates two words); a token with one word is its word."""
    t = token.strip(_TOKEN_EDGES)
    if len(t) < MIN_PHRASE or "'" in t or len(_words(t)) < 2:
        return None
    if not all(ch.isascii() for ch in t if char_type(ch) == SEP):
        return None
    return t


def _dedup(xs: list[str]) -> list[str]:
    # Trigram folds case, so "Rust" and "rust" are one phrase to FTS5.
    seen: set[str] = set()
    out = []
    for x in xs:
        k = x.casefold()
        if k not in seen:
            seen.add(k)
            out.append(x)
    return out


def _render(q: str, items: list[_Item], *, unquote: bool = False) -> str:
    """The query with exclusion items cut out (quotes removed if asked)."""
    parts: list[str] = []
    pos = 0
    for it in items:
        gap = q[pos:it.start]
        pos = it.end
        if it.negated:
            continue
        parts.append(gap)
        at = it.start + 1 if it.required else it.start  # the '+' is syntax, not text
        parts.append(it.text if (unquote and it.quoted) else q[at:it.end])
    return "".join(parts).strip()


def _positive_segments(q: str, items: list[_Item]) -> list[str]:
    """The query's positive text as contiguous pieces (quotes removed): an
    exclusion between two positives splits them, so no fallback phrase ever
    joins text that was not adjacent in the query."""
    segments: list[list[_Item]] = [[]]
    for it in items:
        if it.negated:
            segments.append([])
        else:
            segments[-1].append(it)
    out = []
    for seg in segments:
        if seg:
            a = seg[0].start
            shifted = [_Item(i.text, i.quoted, i.negated, i.start - a, i.end - a, i.required) for i in seg]
            out.append(_render(q[a:seg[-1].end], shifted, unquote=True))
    return [s for s in out if s]


def parse_query(text: str, *, short_cjk: bool = True, max_phrases: int = 32,
                identifiers: bool = True) -> ParsedQuery:
    """Compile ``text`` (any Unicode string) for both retrieval legs.

    Raises ``BadQuery`` for an empty query and for one made only of exclusions.
    """
    q = sanitize(text)
    if not q.strip():
        raise BadQuery("empty query: type something to search for")
    items = _lex(q)
    if not items:
        raise BadQuery("nothing to search for: the query holds only quotes or spaces")
    pos_items = [i for i in items if not i.negated]
    neg_items = [i for i in items if i.negated]
    if not pos_items:
        shown = " ".join(q.split())
        raise BadQuery(
            f"the query {shown!r} only excludes (-term); add at least one word to search for"
        )

    warnings: list[str] = []
    positives: list[str] = []
    shorts: list[str] = []
    kana_free = not any(char_type(c) in (HIRA, KATA) for c in q)
    highlight: list[HighlightTerm] = []
    for it in pos_items:
        p, s = _compile(it, short_cjk, kana_free, highlight, identifiers)
        positives += p
        shorts += s
    negatives: list[str] = []
    neg_shorts: list[str] = []
    for it in neg_items:
        p, _ = _compile(it, False)
        # Too short for trigram: a 2-letter Chinese, Japanese or Korean word
        # (Korean particles cut) is one bigram-table token (ADR 0223).
        s = [] if p or not short_cjk else _compile(it, True, kana_free)[1]
        if not p and not s:
            warnings.append(
                f"exclusion {q[it.start:it.end]!r} ignored: full-text search needs at least "
                f"{MIN_PHRASE} characters ({SHORT_LEN} for a Chinese, Japanese or Korean word)"
            )
        negatives += p
        neg_shorts += s

    required: list[str] = []
    for it in pos_items:
        if not it.required:
            continue
        if len(it.text) >= MIN_PHRASE:
            required.append(it.text)
        else:
            warnings.append(f"required phrase {q[it.start:it.end]!r} ignored: a phrase must have at least "
                            f"{MIN_PHRASE} characters to be required")

    positives = _dedup(positives)
    negatives = _dedup(negatives)
    required = _dedup(required)
    neg_shorts = _dedup(neg_shorts)
    shorts = _dedup(shorts)

    embed_text = _render(q, items)
    # Korean words that left terms for the bigram table are searched by
    # those: a fallback phrase of the whole query would only add noise.
    cjk_rules = short_cjk and bool(shorts) and any(
        char_type(r[0]) == HANGUL for it in pos_items if not it.quoted for w in _words(it.text) for r in _runs(w))
    if not positives and not cjk_rules:
        # The old form: the whole trimmed (positive) query as one phrase, so
        # queries like "AI と ML" never get worse than before compilation.
        # Quote marks are syntax, not text: '"AI"' stays dropped.
        fallback = _render(q, items, unquote=True)
        if not shorts and all(char_type(c) == SEP for c in fallback):
            # Whatever its length: "???" searched as before found only the
            # embedder's guess at punctuation, unflagged, while "🎉🎉" was refused.
            raise BadQuery(_no_words(fallback))
        positives = [seg for seg in _positive_segments(q, items) if len(seg) >= MIN_PHRASE]

    for name, xs in (("search", positives), ("exclusion", negatives), ("short-word", shorts),
                     ("short exclusion", neg_shorts)):
        if len(xs) > max_phrases:
            msg = (f"query too long: searched the first {max_phrases} of {len(xs)} "
                   f"{name} phrases")
            log.warning(msg)
            warnings.append(msg)
            del xs[max_phrases:]

    pos_expr = or_expr(positives)
    neg_expr = or_expr(negatives)
    if pos_expr is not None and neg_expr is not None:
        match_expr: str | None = f"({pos_expr}) NOT ({neg_expr})"
    else:
        match_expr = pos_expr
    return ParsedQuery(
        positives=positives,
        negatives=negatives,
        match_expr=match_expr,
        negative_expr=neg_expr,
        embed_text=embed_text,
        terms=terms_of(embed_text),
        short_terms=shorts if short_cjk else [],
        warnings=warnings,
        negative_shorts=neg_shorts,
        required=required,
        highlight=dedup(highlight),
    )


def _no_words(text: str) -> str:
    """The message for a query of symbols alone: what to type instead."""
    msg = f"nothing to search for in {text!r}: it has no letters or digits; search with a word"
    if len(text.strip()) >= MIN_PHRASE:  # a quoted phrase is searched as written (3 characters at least)
        msg += f', or put the characters in double quotes to find them as written: "{text.strip()}"'
    return msg


def span_terms(parsed: ParsedQuery) -> list[HighlightTerm]:
    """What match_spans lights: the query's content words as the compiler
    read them (``highlight``, ADR 0255), plus the pieces the vault's words
    split a Korean stem into (``hangul_split``: 태그검색 is searched, and
    lit, as 태그 and 검색).

    match_spans must use this and never re-split the query, so highlighting
    agrees with what the lexical leg matched.
    """
    have = {t.text for t in parsed.highlight}
    split = [HighlightTerm(s, "cjk") for s in parsed.short_terms if s not in have and char_type(s[0]) == HANGUL]
    return list(parsed.highlight) + split
