"""What a query means: the compiler and everything that reads a query's words.

Every module outside this package takes a compiled ``ParsedQuery`` and reads
its fields; none splits the query text again (docs/design.md §1.2).

* ``compiler``: ``parse_query``, the query as FTS5 phrases, exclusions,
  short CJK terms and highlight words.
* ``lex``: the query's items (quoted phrases, exclusions, plain text).
* ``chars``: the character classes, where words and runs begin and end.
* ``words``: the word rules of Chinese and Korean, and English function words.
* ``highlight``: what match_spans lights.
* ``terms``: the typed words of the query (``ParsedQuery.terms``) that the
  title rule, the confidence check and the named-note rule read.
"""

from groove.query.compiler import (
    COMPILER_VERSION,
    HAN_SENTENCE,
    HAN_STOP_BIGRAMS,
    HANGUL,
    HANGUL_STOP_STEMS,
    HANGUL_TAILS,
    HIRA,
    KANJI,
    KATA,
    SEP,
    WORD,
    ParsedQuery,
    char_type,
    fts_phrase,
    han_bigrams,
    han_segments,
    han_terms,
    hangul_stem,
    hangul_terms,
    is_cjk,
    or_expr,
    parse_query,
    sanitize,
    span_terms,
)
from groove.query.highlight import HighlightTerm
from groove.query.terms import QueryTerms, Term

__all__ = [
    "COMPILER_VERSION", "HAN_SENTENCE", "HAN_STOP_BIGRAMS", "HANGUL", "HANGUL_STOP_STEMS", "HANGUL_TAILS", "HIRA",
    "KANJI", "KATA", "SEP", "WORD", "HighlightTerm", "ParsedQuery", "QueryTerms", "Term", "char_type",
    "fts_phrase", "han_bigrams", "han_segments", "han_terms", "hangul_stem", "hangul_terms", "is_cjk", "or_expr",
    "parse_query", "sanitize", "span_terms",
]
