"""low_confidence: "this vault probably cannot answer the query".

The calibrated rule (ADR 0103), for an index that holds a calibration
(``index/calibration.py``, measured at index time):

    z     = (best_cosine - probes_median) / probes_spread
    score = z - UNKNOWN_WORDS_WEIGHT * (1 - known_share)
    low_confidence = no results  or  score < [search] low_confidence_threshold
                     or  the query names something the vault never contains

``best_cosine`` is the query's cosine to its nearest chunk (the vector leg's
first similarity, no extra embedding). ``z`` says how far that stands above
what everyday questions the vault is not about reach in *this* vault, in
robust standard deviations of theirs. ``known_share``
(``index/vocabulary.py``) is the IDF-weighted share of the query's words the
vault contains: each unknown word pulls the score down, up to
``UNKNOWN_WORDS_WEIGHT`` spreads when no word is known. The weight (3) and
the default threshold (0.75) sit inside a plateau measured on the
development sets (weights 2.5–4, thresholds 0.75–1.0 all flag 91–98 % of
unanswerable questions and 1–3 % of answerable ones; ADR 0103); both are in
units of the vault's own spread, not raw cosines.

The margin rule (ADR 0075) is the fallback for an index without a
calibration (built before it existed; a warning says so until the next
``groove index``) and what an explicit per-request ``min_confidence_ratio``
asks for:

    margin = (best_sim - median_sim) / (1 - median_sim)   over the vector leg's top N
    low_confidence = no results  or  margin < min_confidence_ratio

A query that is a note's name (its title or an alias, the named-note rule
of ADR 0083) is never low confidence when that note is among the hits: the
vault holds exactly what was asked for (ADR 0251).

A name the vault never contains (ADR 0220; ``vocabulary.unknown_names``:
any Latin word of a Chinese, Japanese or Korean query, a capitalised or
mixed-case word of an English one) flags the query whatever its score: the
best passage can be close to the rest of the question ("export to Word
docx" finds the export page), but no passage can be about a thing the vault
never names. A word a note carries as its title, an alias or a tag is
contained (ADR 0251), though aliases and tags are not in the text index:
the named-note rule finds notes by the same names. Lower-case English
words and words in CJK scripts count only through ``known_share``: they
are how a question is phrased as often as what it is about. A query of
quoted symbols alone ('"???"') has no word to read: when no hit holds the
phrase (none came from the full-text leg), the phrase is such a name.

A query in a script the vault hardly contains (Japanese asked of English
notes, ADR 0131) can only match across languages, where e5 reaches lower
cosines for everything: its ``z`` is read against its own language's probes
alone, and its words in that script are left out of ``known_share``.
Korean queries, and Chinese ones in a Chinese vault, are read against their
own language's probes too (ADR 0162): e5 puts Chinese text closer to
Chinese text than the English and Japanese probes show; the unknown-word
weight stays the same share of the pooled spread.

``min_confidence_ratio = 0`` (in groove.toml or per request) turns both rules
off: only an empty result is low confidence. A query without a vector leg
(full text only, or nothing to embed) is flagged only when empty.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..index.calibration import Calibration

UNKNOWN_WORDS_WEIGHT = 3.0

UNCALIBRATED_WARNING = (
    "low_confidence uses the uncalibrated margin rule: this index has no confidence calibration; "
    "run `groove index` to add it"
)


def unknown_names_warning(names: tuple[str, ...]) -> str:
    """What a search says when it names something the vault never contains
    (ADR 0220): every client shows warnings, explained or not, so a reader —
    or Claude — learns why "no strong match" and can check the spelling."""
    quoted = ", ".join(f'"{n}"' for n in names)
    return f"the vault never mentions {quoted}: no note can be about it (low confidence; check the spelling)"


@dataclass(frozen=True)
class Confidence:
    low: bool
    rule: str  # "calibrated" | "margin" | "off" | "empty" | "no-vector"
    score: float | None  # the calibrated score or the margin; None when no rule ran
    warning: str | None = None
    threshold: float | None = None  # low when score < threshold
    z: float | None = None  # calibrated rule: the best passage in the vault's spreads
    known: float | None = None  # calibrated rule: the known-word share
    across: bool = False  # calibrated rule: read as asked across languages (ADR 0131)
    unknown_names: tuple[str, ...] = ()  # calibrated rule: names the vault never contains (ADR 0220)
    named: bool = False  # a hit is the note the whole query names (ADR 0083, 0251): never low


    def explain(self) -> dict[str, Any]:
        """The verdict and what it was made of, for a search that asked for ``explain``."""
        out: dict[str, Any] = {"low_confidence": self.low, "rule": self.rule}
        if self.score is not None:
            out["score"] = round(self.score, 4)
            out["threshold"] = self.threshold
        if self.z is not None:
            out["best_passage_z"] = round(self.z, 4)
        if self.known is not None:
            out["known_share"] = round(self.known, 4)
        if self.across:
            out["across_languages"] = True
        if self.unknown_names:
            out["unknown_names"] = list(self.unknown_names)
        if self.named:
            out["named_note"] = True
        return out


def similarity_margin(sims: np.ndarray) -> float:
    if len(sims) < 2:
        return 1.0
    med = float(np.median(sims))
    return (float(np.max(sims)) - med) / max(1e-6, 1.0 - med)


def is_low_confidence(has_results: bool, sims: np.ndarray | None, ratio: float) -> bool:
    """The margin rule (ADR 0075)."""
    if not has_results:
        return True
    if ratio <= 0 or sims is None or len(sims) == 0:
        return False
    return similarity_margin(sims) < ratio


def unknown_words_weight(cal: Calibration, script: str | None = None) -> float:
    """``UNKNOWN_WORDS_WEIGHT`` pooled spreads, in the spreads of the yardstick
    the query is read against. Chinese probes sit closer together in a
    Chinese vault (0.008 against 0.012 pooled): counted in their own spreads,
    a missing word would weigh less than it does in English or Japanese
    (ADR 0162)."""
    if cal.reads_own(script):
        return UNKNOWN_WORDS_WEIGHT * cal.scale / cal.yardstick(script)[1]
    return UNKNOWN_WORDS_WEIGHT


def calibrated_score(best_cosine: float, known: float, cal: Calibration, script: str | None = None) -> float:
    return cal.z(best_cosine, script) - unknown_words_weight(cal, script) * (1.0 - known)


@dataclass(frozen=True)
class Rule:
    """The configured rule and its settings ([search] confidence_rule,
    min_confidence_ratio, low_confidence_threshold; a request may set the ratio)."""

    name: str  # "calibrated" (the default; the margin rule without a calibration) or "margin"
    ratio: float  # the margin rule's minimum; 0 turns both rules off
    threshold: float  # the calibrated rule's minimum score


@dataclass(frozen=True)
class Evidence:
    """What the verdict reads beside the cosines. ``known``, ``script`` (the
    query's, ``QueryTerms.script``) and ``names`` (what the query
    names and the vault never contains, ``vocabulary.unknown_names``) are
    read by the calibrated rule alone. ``named``: a hit is a note the whole query names by
    its title or an alias (``titles.named_notes``); the vault holds what was
    asked for, so neither rule calls it low (ADR 0251)."""

    known: float | None = None
    script: str | None = None
    names: tuple[str, ...] = ()
    named: bool = False


def judge(has_results: bool, sims: np.ndarray | None, cal: Calibration | None, rule: Rule,
          ev: Evidence = Evidence()) -> Confidence:
    """Apply the configured rule: the calibrated one needs ``cal`` and
    ``ev.known`` (else the margin rule runs, with a warning)."""
    if not has_results:
        return Confidence(True, "empty", None)
    if rule.ratio <= 0:
        return Confidence(False, "off", None)
    if sims is None or len(sims) == 0:
        return Confidence(False, "no-vector", None)
    if rule.name == "calibrated" and cal is not None and ev.known is not None:
        best = float(np.max(sims))
        score = calibrated_score(best, ev.known, cal, ev.script)
        across = ev.script is not None and cal.absent(ev.script)
        return Confidence((score < rule.threshold or bool(ev.names)) and not ev.named, "calibrated", score,
                          threshold=rule.threshold, z=cal.z(best, ev.script), known=ev.known, across=across,
                          unknown_names=tuple(ev.names), named=ev.named)
    margin = similarity_margin(sims)
    warning = UNCALIBRATED_WARNING if rule.name == "calibrated" else None
    return Confidence(margin < rule.ratio and not ev.named, "margin", margin, warning, threshold=rule.ratio,
                      named=ev.named)
