"""answer_spans: the sentence of each returned hit that best answers the
query by meaning (ADR 0256), even when it shares no word with it.

After match_spans, on the final content: the content is cut into sentences
(``sentences``), each embedded as a passage with the default embedder, and
the one nearest the query vector the pipeline already computed is marked,
with an adjacent one when it scores nearly as well (one span with it).
Ranking is never touched: this reads the hits, it does not reorder them.

A panel shows a note's hits as one row (ADR 0261): the later hits of the
first hits' notes are marked too, and a note's first hit names the hit
holding the note's best sentence (``note_answer_rank``, ADR 0269), or where
it is when it lies in a section not returned (``note_answer``: the note's
nearest such section by its stored vector, ``note_sections``). Only a hit
whose best sentence comes near the search's best is marked (``ANSWER_BAR``):
a row far from the question has no answer to underline.

Bounded so a panel search stays quick (figures: bench/answer_spans.py):
the first ``ANSWER_HITS`` hits and their notes' later hits (and one section
a note beyond them) only, at most ``MAX_SENTENCES`` sentences a hit, each
cut to ``MAX_SENTENCE_CHARS`` for the model; sentence vectors are kept
(``_VectorCache``), so the searches of someone typing, whose hits repeat,
embed only the sentences they have not seen; and a daemon stores the
vault's sentence vectors in the index while idle (``answer_vectors``, ADR
0281), so a search reads them instead of embedding them.
"""

from __future__ import annotations

import logging
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import GrooveError
from ..models.base import Embedder
from ..storage.db import Index
from ..storage.sentences import SentenceVectors, as_stored, sentence_key
from ..wire.search import MatchSpan, SearchHit
from .note_sections import Section, unreturned_sections
from .spans import utf8_offsets

log = logging.getLogger(__name__)

ANSWER_HITS = 5  # the first hits of a search, what a panel shows first (a sentence costs ~a query embedding)
MAX_SENTENCES = 24  # per hit: a chunk is ~400 tokens, 10-25 sentences
MAX_SENTENCE_CHARS = 300  # what the model reads of one sentence (the span covers all of it)
MIN_LETTERS = 4  # a "sentence" with fewer letters or digits ("OK.", "1.") is no answer
SECOND_MARGIN = 0.02  # an adjacent sentence this close to the best one is marked too
ANSWER_BAR = 0.03  # past the first hits, a hit is marked when its best sentence is within this of the search's best
ALWAYS_MARKED = 3  # the first hits, read first, always show their best sentence (their gap reaches ~0.09)
SECTION_PRIOR = 0.5  # weight of a sentence's section's cosine when a note's sentences compete
CACHE_SIZE = 8192  # sentence vectors kept (384 floats each: ~12 MB)

_FENCE = re.compile(r"^\s*(?:>\s*)*(`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}(?:\s|$)")
_RULE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
# What opens a line without being its text: quote marks, a list or task
# marker, a callout's [!type], a table row's first bar.
_MARKER = re.compile(r"^\s*(?:>\s*)*(?:(?:[-*+]|\d{1,9}[.)])\s+(?:\[.\]\s+)?)?(?:\[![^\]]*\][-+]?\s*)?\|?\s*")
_ONLY_EMBED = re.compile(r"^(?:!\[\[[^\]]*\]\]|!\[[^\]]*\]\([^)]*\)|\s)*$")
# A sentence ends after . ! ? (and closing quotes or brackets) before a
# space, or after a CJK full stop, question or exclamation mark.
_END = re.compile(r"[.!?][\"'”’)\]]*(?=\s)|[。！？][」』）]*")
_CLOSERS = "\"'”’)]」』）"
_ABBREV = frozenset("e.g i.e etc vs cf mr mrs ms dr st fig".split())
# For the model only: link and emphasis syntax read as the words it shows.
_CLEAN = [(re.compile(r"!?\[\[(?:[^\]|]*\|)?([^\]]*)\]\]"), r"\1"), (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),
          (re.compile(r"\*\*|__|`|==|~~|\s\^[\w-]+$"), ""), (re.compile(r"\s*\|\s*"), " ; ")]


@dataclass(frozen=True)
class Sentence:
    start: int  # character offsets into the content, [start, end)
    end: int
    text: str  # as the model reads it


def sentences(content: str) -> list[Sentence]:
    """The sentences of ``content`` worth marking, in order: a paragraph
    (its hard-wrapped lines joined) split at sentence ends, a list item or a
    table row each at least one; never a heading, a code block, a rule, a
    table's |---| line or a bare embed."""
    units: list[list[int]] = []  # [start, end) character offsets of paragraphs, items, rows
    fence: str | None = None
    joinable = False  # the line before was prose a plain next line continues
    pos = 0
    for line in content.splitlines(keepends=True):
        at, pos = pos, pos + len(line)
        body = line.rstrip("\r\n")
        m = _FENCE.match(body)
        if fence is not None or m:
            if fence is None:
                assert m is not None  # outside a fence only a fence line gets here
                fence = m.group(1)
            elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            joinable = False
            continue
        if not body.strip() or _HEADING.match(body) or _RULE.match(body) or _TABLE_SEP.match(body):
            joinable = False
            continue
        marker = _MARKER.match(body)
        lead = marker.end() if marker else 0
        row = body.lstrip().startswith("|")
        text = body[lead:].rstrip().rstrip("|").rstrip() if row else body[lead:].rstrip()
        if not text or _ONLY_EMBED.match(text):
            joinable = False
            continue
        if joinable and not row and not body[:lead].strip():
            units[-1][1] = at + lead + len(text)  # a wrapped line of the same paragraph or item
        else:
            units.append([at + lead, at + lead + len(text)])
        joinable = not row
    return [s for a, b in units for s in _split(content[a:b], a)]


def _split(text: str, base: int) -> list[Sentence]:
    out: list[Sentence | None] = []
    start = 0
    for m in _END.finditer(text):
        if text[m.start()] == "." and _abbreviation(text, m.start()):
            continue
        out.append(_sentence(text, start, m.end(), base))
        start = m.end()
    out.append(_sentence(text, start, len(text), base))
    return [s for s in out if s is not None]


def _abbreviation(text: str, dot: int) -> bool:
    """The dot of e.g., i.e., a decimal (1.5) or a file name, not a sentence end."""
    word = text[:dot].rsplit(None, 1)[-1].lstrip("(").casefold() if text[:dot].strip() else ""
    return word in _ABBREV or len(word) == 1


def _sentence(text: str, a: int, b: int, base: int) -> Sentence | None:
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    piece = text[a:b]
    if sum(ch.isalnum() for ch in piece) < MIN_LETTERS:
        return None
    clean = piece
    for pat, rep in _CLEAN:
        clean = pat.sub(rep, clean)
    clean = " ".join(clean.split()) or " ".join(piece.split())
    return Sentence(base + a, base + b, clean[:MAX_SENTENCE_CHARS])


class _VectorCache:
    """Sentence vectors by (model, text), least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._d: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def vectors(self, embedder: Embedder, texts: Sequence[str], stored: SentenceVectors | None = None) -> np.ndarray:
        """Each text's vector: kept here, else stored in the index (``stored``,
        ADR 0281), else embedded now, rounded as the index stores them."""
        # By the model file, not the object: a reloaded model keeps its vectors,
        # another model never reads them.
        key = getattr(embedder, "model_path", None) or f"{type(embedder).__name__}@{id(embedder)}"
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if (key, t) not in self._d))
        found: dict[str, np.ndarray] = {}
        if stored is not None and missing:
            keys = {t: sentence_key(t) for t in missing}
            rows = stored.get(list(keys.values()))
            found = {t: rows[k] for t, k in keys.items() if k in rows}
            missing = [t for t in missing if t not in found]
        if missing:
            found.update(zip(missing, as_stored(embedder.embed_passages(missing))))
        with self._lock:
            got = {t: self._d[(key, t)] for t in texts if (key, t) in self._d}
            for t, v in found.items():
                got[t] = self._d[(key, t)] = v
            for t in texts:
                if (key, t) in self._d:
                    self._d.move_to_end((key, t))
            while len(self._d) > self.size:
                self._d.popitem(last=False)
        return np.stack([got[t] for t in texts])

    def clear(self) -> None:
        with self._lock:
            self._d.clear()


CACHE = _VectorCache(CACHE_SIZE)


def mark_answers(hits: list[SearchHit], qvec: np.ndarray, embedder: Embedder, index: Index | None = None,
                 stored: SentenceVectors | None = None) -> str | None:
    """``answer_spans`` on the hits, or a warning when the model could not
    read their sentences: the hits stand without answer marks, the search
    still answers (a failure stays local to the feature)."""
    try:
        answer_spans(hits, qvec, embedder, index, stored)
    except (GrooveError, ValueError, RuntimeError, UnicodeError) as e:
        log.warning("answer_spans left out: %s", e)
        for h in hits:
            h.answer_spans = []
            h.note_answer_rank = None
            h.note_answer = None
        return f"answer spans left out: {e}"
    return None


def answer_spans(hits: list[SearchHit], qvec: np.ndarray, embedder: Embedder,
                 index: Index | None = None, stored: SentenceVectors | None = None) -> None:
    """Set ``answer_spans`` on the first ``ANSWER_HITS`` hits and on the later
    hits of the same notes: each one's best sentence by cosine to the query
    vector (unit vectors: a dot product), with the next one when it asks or
    ends in a colon, else an adjacent one within ``SECOND_MARGIN``, on the
    first ``ALWAYS_MARKED`` hits and on the others whose best clears
    ``ANSWER_BAR``; the other hits get none. Then, per note, its answer:
    ``note_answer_rank`` on its first
    hit when another of its hits holds the note's best sentence, or
    ``note_answer`` when, with ``index``, a section not returned does
    (``note_sections``). All the sentences go to the model in one batch,
    but those whose vectors ``stored`` holds (ADR 0281)."""
    # The first hits, and the later hits of their notes: a panel shows a note's
    # hits as one row, whose answer may be in a section ranked lower.
    notes = {h.path for h in hits[:ANSWER_HITS]}
    marked = [h for i, h in enumerate(hits) if i < ANSWER_HITS or h.path in notes]
    for h in hits:
        h.answer_spans = []
        h.note_answer_rank = None
        h.note_answer = None
    chunk_sims: dict[int, float] = {}
    extra = unreturned_sections(index, hits, qvec, notes, chunk_sims) if index is not None else []
    per_hit = [sentences(h.content)[:MAX_SENTENCES] for h in marked]
    per_extra = [sentences(x.content)[:MAX_SENTENCES] for x in extra]
    # Every sentence is scored, a lone one too: the bar needs its score.
    texts = [s.text for ss in per_hit + per_extra for s in ss]
    sims = CACHE.vectors(embedder, texts, stored) @ np.asarray(qvec, dtype=np.float32) if texts else np.zeros(0)
    scores: list[np.ndarray] = []
    i = 0
    for ss in per_hit + per_extra:
        scores.append(sims[i:i + len(ss)])
        i += len(ss)
    best = [float(x.max()) if len(x) else None for x in scores]
    top = max((b for b in best[:len(marked)] if b is not None), default=None)
    if top is None:
        return
    bar = top - ANSWER_BAR
    best_of: list[float | None] = []
    for h, ss, sc, b in zip(marked, per_hit, scores, best):
        if b is None or (b < bar and h.rank > ALWAYS_MARKED):
            best_of.append(None)
            continue
        best_of.append(b)
        k = int(np.argmax(sc))
        picked = [ss[k]]
        near = [j for j in (k - 1, k + 1) if 0 <= j < len(ss) and sc[j] >= sc[k] - SECOND_MARGIN]
        if k + 1 < len(ss) and _leads_in(h.content, ss[k]):
            picked.append(ss[k + 1])  # a question or "...:" announces its answer: the next sentence
        elif near:
            picked.append(ss[max(near, key=lambda j: sc[j])])
        h.answer_spans = _to_bytes(h.content, sorted(picked, key=lambda s: s.start))
    # Within a note, a sentence's section counts too: its stored vector read the whole section.
    best_of = [b if b is None else b + SECTION_PRIOR * chunk_sims.get(h.chunk_id, 0.0) for h, b in zip(marked, best_of)]
    beyond = {x.path: (b + SECTION_PRIOR * chunk_sims.get(x.chunk_id, 0.0), x, ss[int(np.argmax(sc))]) for x, ss, sc, b
              in zip(extra, per_extra, scores[len(marked):], best[len(marked):]) if b is not None and b >= bar}
    _point_to_note_answers(marked, best_of, beyond)


def _point_to_note_answers(hits: list[SearchHit], best_of: list[float | None],
                           beyond: dict[str, tuple[float, Section, Sentence]]) -> None:
    """A panel shows a note's hits as one row (ADR 0261) and jumps to the
    row's answer: the best sentence among all of the note's marked hits and
    its best sections not returned (``beyond``), which may be in a section
    ranked below the note's first one, or not returned at all."""
    first: dict[str, int] = {}
    winner: dict[str, tuple[float, int]] = {}
    for i, (h, score) in enumerate(zip(hits, best_of)):
        first.setdefault(h.path, i)
        if score is not None and (h.path not in winner or score > winner[h.path][0]):
            winner[h.path] = (score, i)
    for path, (score, section, s) in beyond.items():
        if path in first and (path not in winner or score > winner[path][0]):
            hits[first[path]].note_answer = section.answer(s.start, s.end)
            winner.pop(path, None)
    for path, (_, w) in winner.items():
        if w != first[path] and hits[w].answer_spans:
            hits[first[path]].note_answer_rank = hits[w].rank


def _leads_in(content: str, s: Sentence) -> bool:
    """A sentence that asks or ends in a colon: the nearest to a question is
    often its restatement (an FAQ's question, "the limits are:"), and the
    answer is what follows."""
    return content[s.start:s.end].rstrip(_CLOSERS)[-1:] in ("?", "？", ":", "：")


def _to_bytes(content: str, picked: list[Sentence]) -> list[MatchSpan]:
    """Two adjacent sentences marked together are one span, one passage to
    read and to jump to (the answer often follows the sentence that restates
    the question), unless a heading, code or other text lies between them."""
    offs = utf8_offsets(content)
    if len(picked) == 2 and _only_markers(content[picked[0].end:picked[1].start]):
        picked = [Sentence(picked[0].start, picked[1].end, "")]
    return [MatchSpan(int(offs[s.start]), int(offs[s.end])) for s in picked]


def _only_markers(gap: str) -> bool:
    """Nothing between two sentences but spaces, line breaks and the marks
    that open a line (list, quote, table bars)."""
    return all(not _MARKER.sub("", line).strip(" \t|") for line in gap.split("\n"))
