"""What match_spans lights: the query's content words, read by the query
compiler's own rules (ADR 0255), so a highlight agrees with what the lexical
leg searched and no other module splits a query again.

Each term has a kind, which says where it may match:

* ``prefix``: a Latin (or other spaced-script) word of 3+ letters. It starts
  at the start of a word and may be the start of a longer one: ``sync``
  lights "Syncing", ``phone`` does not light "iPhone".
* ``word``: a 2-letter word (``UI``, ``OS``): a whole word only.
* ``phrase``: a quoted phrase or an identifier (``obsidian://open``), as
  written and whole: from the start of a word to the end of one (where it
  begins or ends with a letter); quoting is how a function word
  (``"and"``) is lit on purpose.
* ``cjk``: a Chinese, Japanese or Korean content word wherever it occurs (no
  spaces mark words there): Japanese kanji and katakana runs of 2+
  characters, the halves of a 4-kanji compound and one kanji before a
  particle (猫の), Chinese bigrams, Korean stems. Hiragana runs (particles, endings: を, するには), Korean particles
  and endings and Chinese grammar characters are never terms.

English function words (``words.ENGLISH_FUNCTION_WORDS``) are never
terms unless quoted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from groove.query.chars import HAN_SENTENCE, HANGUL, HIRA, KANJI, KATA, WORD, char_type
from groove.query.words import ENGLISH_FUNCTION_WORDS, han_bigrams, hangul_terms

HighlightKind = Literal["word", "prefix", "phrase", "cjk"]
MAX_HIGHLIGHT_TERMS = 64  # a pasted paragraph as a query: span work stays bounded


# Japanese particles that follow a noun: the kanji before one is a word of its own.
PARTICLES = frozenset("の を が は に で と も へ や から まで より には では とは にも でも への".split())


@dataclass(frozen=True)
class HighlightTerm:
    text: str
    kind: HighlightKind

    @property
    def word_start(self) -> bool:
        """Must start where a word starts (a Latin letter or digit opens it)."""
        return self.kind != "cjk" and char_type(self.text[0]) == WORD

    @property
    def word_end(self) -> bool:
        """Must end where a word ends: a 2-letter word, and a quoted phrase
        (quoting asks for exactly that: "and" does not light "Android")."""
        return self.kind == "word" or (self.kind == "phrase" and char_type(self.text[-1]) == WORD)


def word_terms(runs: list[str], kana_free: bool) -> list[HighlightTerm]:
    """The content words of one unquoted word of the query, given its runs
    (``query._runs``); ``kana_free``: the query has no kana, so a long kanji
    run is a Chinese sentence."""
    out: list[HighlightTerm] = []
    whole = len(runs) == 1
    for i, r in enumerate(runs):
        t = char_type(r[0])
        if t == WORD:
            if len(r) >= 2 and r.casefold() not in ENGLISH_FUNCTION_WORDS:
                out.append(HighlightTerm(r, "word" if len(r) == 2 else "prefix"))
        elif t == HANGUL:
            out += [HighlightTerm(s, "cjk") for s in hangul_terms(r)[1]]
        elif t == KANJI and kana_free and len(r) >= HAN_SENTENCE:
            out += [HighlightTerm(b, "cjk") for b in han_bigrams(r)]
        elif t in (KANJI, KATA) and len(r) >= 2:
            out.append(HighlightTerm(r, "cjk"))
            if t == KANJI and len(r) == 4:  # 保存場所: a page may use 保存 and 場所 apart (ADR 0080)
                out += [HighlightTerm(r[:2], "cjk"), HighlightTerm(r[2:], "cjk")]
        elif t == KANJI and (whole or (i + 1 < len(runs) and runs[i + 1] in PARTICLES)):
            # One kanji is a noun before a particle (猫の世話, 色を) or alone, and
            # mostly a verb's stem otherwise (使って, 変える): only the noun is lit.
            out.append(HighlightTerm(r, "cjk"))
        elif t == HIRA and whole and len(r) >= 3:
            out.append(HighlightTerm(r, "cjk"))  # a hiragana word typed on its own (まとめ), not an ending
    return out


def quoted_term(text: str) -> list[HighlightTerm]:
    """A quoted phrase: lit as written, function words included."""
    return [HighlightTerm(text, "phrase")] if text.strip() else []


def dedup(terms: list[HighlightTerm]) -> list[HighlightTerm]:
    seen: set[tuple[str, str]] = set()
    out: list[HighlightTerm] = []
    for t in terms:
        k = (t.text.casefold(), t.kind)
        if k not in seen:
            seen.add(k)
            out.append(t)
    return out[:MAX_HIGHLIGHT_TERMS]
