"""The typed terms of a query: the words every reader of a query needs,
found once by the compiler (issue 51) and carried on ``ParsedQuery.terms``.

The legs search the compiler's phrases and short terms; the title rule,
the confidence check (known-word share, unknown names, the query's script)
and the named-note rule read the words here. None of them splits the query
text again, so they all see the same words.

A word (``Term``) is a maximal run of one character class (``chars``) of
the query's positive text (exclusions removed): Latin/digit, kanji,
hiragana, katakana or Hangul. What each reader counts is a property of the
term, so each keeps its own rule (they differ; ADR 0273):

* the title rule (``title_forms``): Latin/digit words of 2+ letters that are
  not ``TITLE_STOP`` words, kanji and katakana runs of 2+, Korean stems;
  case-folded, read as typed.
* the known-word share and unknown names (``vocab_forms``): Latin/digit
  words of 3+, katakana runs of 2+ (a loanword's bigrams occur in unrelated
  words), Korean stems; read NFKC-folded (``folded``: ｓｙｎｃ is sync), with
  the kanji/kana bigrams of ``cjk_runs`` (``vocab_grams``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import cached_property
from typing import Literal

from groove.query.chars import (
    ASCII_LETTER,
    CJK_LETTER,
    HANGUL,
    HANGUL_LETTER,
    HIRA,
    KANA_LETTER,
    KANJI,
    KATA,
    SEP,
    WORD,
    char_type,
    is_cjk,
    is_han_sentence,
)
from groove.query.words import han_bigrams, han_segments, hangul_terms

Script = Literal["latin", "kanji", "hiragana", "katakana", "hangul"]
QueryScript = Literal["latin", "cjk", "han", "hangul"]
SCRIPTS: dict[int, Script] = {WORD: "latin", KANJI: "kanji", HIRA: "hiragana", KATA: "katakana", HANGUL: "hangul"}

# English function words the title rule skips: they name nothing, so they
# never count as covering a title (ADR 0072). Not the highlight list
# (``words.ENGLISH_FUNCTION_WORDS``): this one also holds want/need/get/make/use.
TITLE_STOP = frozenset(
    """a an and are as at be by can do does for from has have how i if in into is it its me my
    of on or so that the their them then there these this to too up us was we what when where
    which who why will with you your want need get make use using""".split()
)
# A `-` item left in the positive text (`--flag`, `-word` inside a quoted
# phrase): the title rule skips its words, as it did when it read the raw query.
_TITLE_SKIP = re.compile(r'(?:(?<=\s)|^)-(?:"[^"]*"?|\S+)')
# A kanji and a particle (当が, の握) is grammar, not a word: no vocabulary bigram.
_PARTICLES = frozenset("がのをにはでともへや")


@dataclass(frozen=True)
class Term:
    """One word of the query: a run of one character class, as the view it
    came from holds it (typed, or NFKC-folded)."""

    text: str
    script: Script
    start: int  # offset in the view's text
    skipped_by_titles: bool = False  # inside a `-` item (``_TITLE_SKIP``)

    @property
    def stems(self) -> list[str]:
        """A Korean word's stem, particles cut (ADR 0160); nothing for a
        function word, and nothing for any other script."""
        if self.script != "hangul":
            return []
        phrases, shorts = hangul_terms(self.text)
        return phrases + shorts

    @property
    def title_forms(self) -> list[str]:
        """What the title rule counts of this word, case-folded (ADR 0072)."""
        if self.skipped_by_titles:
            return []
        w = self.text.casefold()
        if self.script == "latin":
            return [w] if len(w) >= 2 and w not in TITLE_STOP else []
        if self.script in ("kanji", "katakana"):
            return [w] if len(w) >= 2 else []
        return self.stems  # Hangul; hiragana runs are particles and endings

    @property
    def vocab_forms(self) -> list[str]:
        """What the known-word share looks up as a whole word (ADR 0103)."""
        if self.script == "latin":
            return [self.text] if len(self.text) >= 3 else []
        if self.script == "katakana":
            return [self.text] if len(self.text) >= 2 else []
        return self.stems


def scan(text: str) -> list[Term]:
    """The maximal runs of one character class in ``text``; separators end a run."""
    out: list[Term] = []
    start, kind = 0, SEP
    for i, ch in enumerate(text + " "):
        t = char_type(ch) if i < len(text) else SEP
        if t == kind:
            continue
        if kind != SEP:
            out.append(Term(text[start:i], SCRIPTS[kind], start))
        start, kind = i, t
    return out


def script_of(text: str) -> QueryScript:
    """The script a query is written in: "cjk" when its kana and kanji
    outweigh its ASCII letters, counting a CJK character as two letters (a
    Japanese word is about half as many characters as an English one), else
    "latin". "寿司 recipe at home" is English with a Japanese word;
    "Obsidian Syncでノートを同期する方法" is Japanese. A CJK query without kana
    is "han" (Chinese, or Japanese kanji alone: ``Calibration.yardstick``
    reads it as Chinese only in a Chinese vault), and one mostly in Hangul
    "hangul" (a syllable counts as three letters: a Korean word is two to
    four syllables, "Obsidian Sync로 전환하기" is Korean)."""
    cjk = len(CJK_LETTER.findall(text))
    hangul = len(HANGUL_LETTER.findall(text))
    ascii_letters = len(ASCII_LETTER.findall(text))
    if hangul > cjk and 3 * hangul > ascii_letters:
        return "hangul"
    if 2 * cjk > ascii_letters:
        return "cjk" if KANA_LETTER.search(text) else "han"
    return "latin"


def name_key(text: str) -> str:
    """A name as compared for navigation: NFKC, case-folded, quotes dropped,
    runs of separators as one space. The named-note rule keys both the
    notes' titles and aliases and the whole query with it (ADR 0083)."""
    text = unicodedata.normalize("NFKC", text).replace('"', " ").casefold()
    return " ".join(text.split())


def _cjk_runs(text: str) -> list[str]:
    """The maximal runs of kanji and kana letters (what the bigram table pairs up)."""
    runs: list[str] = []
    cur = ""
    for ch in text:
        if char_type(ch) in (KANJI, HIRA, KATA) and is_cjk(ch):
            cur += ch
        elif cur:
            runs.append(cur)
            cur = ""
    return runs + [cur] if cur else runs


@dataclass(frozen=True)
class QueryTerms:
    """The words of a query's positive text (``ParsedQuery.embed_text``)."""

    words: tuple[Term, ...]  # as typed
    folded: tuple[Term, ...]  # NFKC-folded (the same as ``words`` for most queries)
    cjk_runs: tuple[str, ...]  # folded stretches of kanji and kana letters, across run boundaries
    kana_free: bool  # the folded text has no kana: a long kanji run is a Chinese sentence (ADR 0160)
    script: QueryScript  # what the confidence check reads the query against (ADR 0131, 0162)
    name_key: str  # the whole text as the named-note rule compares it (ADR 0083)
    opens_with_name: bool  # the first name candidate opens the text ("Export ...": a sentence's capital)

    @property
    def title_words(self) -> list[str]:
        """The title rule's content words, deduplicated in order."""
        return list(dict.fromkeys(f for t in self.words for f in t.title_forms))

    @cached_property
    def _vocab(self) -> tuple[list[str], list[str]]:
        words = [f for t in self.folded for f in t.vocab_forms]
        grams: list[str] = []
        for run in self.cjk_runs:
            # A Chinese sentence: the compiler's bigrams, cut at grammar
            # characters, not those that straddle two words (ADR 0162).
            grams += han_bigrams(run) if is_han_sentence(run, self.kana_free) else [
                run[i:i + 2] for i in range(len(run) - 1)]
        kanji = [g for g in grams if any(char_type(c) == KANJI for c in g) and not set(g) & _PARTICLES]
        grams = kanji if (kanji or words) else [g for g in grams if not any(char_type(c) == KATA for c in g)]
        return list(dict.fromkeys(words)), list(dict.fromkeys(grams))

    @property
    def vocab_words(self) -> list[str]:
        """Whole words the known-word share looks up (``Term.vocab_forms``)."""
        return list(self._vocab[0])

    @property
    def vocab_grams(self) -> list[str]:
        """Kanji bigrams the known-word share looks up: those of each
        kanji/kana run that hold a kanji and no particle; kana-only bigrams
        are mostly grammar (には, して) and count only when the query has
        nothing else (ほげふが)."""
        return list(self._vocab[1])

    @cached_property
    def straddles(self) -> list[tuple[str, str, str]]:
        """(before, bigram, after) for each bigram inside a Chinese sentence's
        segment with a neighbour on both sides (ADR 0162). Chinese has no spaces,
        so 切换界面 yields 换界, which straddles two words: a vault holding both
        neighbours (切换, 界面) but not it says nothing about the topic."""
        out: list[tuple[str, str, str]] = []
        for run in self.cjk_runs:
            if is_han_sentence(run, self.kana_free):
                for seg in han_segments(run):
                    out += [(seg[i - 1:i + 1], seg[i:i + 2], seg[i + 1:i + 3]) for i in range(1, len(seg) - 2)]
        return out

    def names(self, script: str) -> list[str]:
        """The words that name something (ADR 0220): in a query with any
        Chinese, Japanese or Korean letter, every Latin or digit word of 3+
        characters (Joplin, OCR, docx are names or formats there, never
        grammar); in a Latin query a word with a capital past its first
        letter (WebDAV, EPUB), one with letters and digits (Win11), or a
        capitalised word that does not open the query (Joplin, Kindle).
        Lower-case English words are left out: "throwaway" or "overwrote"
        are how a question is phrased, not what it is about."""
        words = [w for w in self.vocab_words if char_type(w[0]) == WORD]
        if script != "latin" or any(t.script != "latin" for t in self.words):
            return words
        out = []
        for i, w in enumerate(words):
            inner_caps = any(c.isupper() for c in w[1:])
            mixed = any(c.isdigit() for c in w) and any(c.isalpha() for c in w)
            first = i == 0 and self.opens_with_name  # "Export ..." is capitalised as a sentence is
            if inner_caps or mixed or (w[0].isupper() and not first):
                out.append(w)
        return out


def terms_of(text: str) -> QueryTerms:
    """The terms of ``text``, a query's positive text (exclusions already
    cut out: ``ParsedQuery.embed_text``). The compiler calls it once per query."""
    skipped = [m.span() for m in _TITLE_SKIP.finditer(text)]
    words = tuple(Term(t.text, t.script, t.start, True) if any(a <= t.start < b for a, b in skipped) else t
                  for t in scan(text))
    folded_text = unicodedata.normalize("NFKC", text)
    folded = tuple(scan(folded_text)) if folded_text != text else tuple(
        Term(t.text, t.script, t.start) for t in words)
    kana_free = not any(t.script in ("hiragana", "katakana") for t in folded)
    first = next((t.text for t in folded if t.script == "latin" and len(t.text) >= 3), None)
    return QueryTerms(
        words=words, folded=folded, cjk_runs=tuple(_cjk_runs(folded_text)), kana_free=kana_free,
        script=script_of(text), name_key=name_key(text),
        opens_with_name=first is not None and folded_text.lstrip().startswith(first),
    )
