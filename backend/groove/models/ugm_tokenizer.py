"""SentencePiece-unigram tokenization, id for id what llama.cpp's UGM tokenizer gives.

Why it exists (ADR 0125): llama.cpp keeps a 250,000-token vocabulary in a
pointer-per-byte trie, 126 MB of a daemon's memory for e5. Here the same
vocabulary is a marisa trie of a few MB, and the model is loaded without it.

It ports llama.cpp's ``llm_tokenizer_ugm_session`` for the configuration it
supports (no precompiled normaliser, no user-defined tokens, spaces escaped
as U+2581, extra whitespace removed, a space prefix); ``unsupported_reason()``
says when a vocabulary is outside it. What must match exactly:

- only U+0020 is a space: each run of other characters becomes ``▁`` + run;
- Viterbi over code points, scores summed in double precision from the
  float32 piece scores;
- ties keep the first candidate: positions left to right, and at one
  position shorter pieces before longer ones (strict ``>``);
- a code point no piece covers alone may be the unknown token, scored
  ``min(normal scores) - 10``; consecutive unknowns merge into one.

A test checks it against llama.cpp on the notes and queries of the bundled
and eval vaults, the bench query sets, and random strings.
"""

from __future__ import annotations

import array
import json
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

# llama.cpp token types (gguf TokenType)
NORMAL, UNKNOWN, CONTROL, USER_DEFINED, UNUSED, BYTE = 1, 2, 3, 4, 5, 6
UNKNOWN_PENALTY = np.float32(10.0)
SPACE = "\u2581"
RECENT = 256  # texts whose ids are remembered
WORDS = 1 << 16  # words whose ids are remembered (cleared when full)


@dataclass(frozen=True)
class UgmVocab:
    """What a GGUF says about its unigram tokenizer."""

    pieces: list[bytes]
    scores: np.ndarray  # float32
    types: np.ndarray  # int32
    unk_id: int
    add_space_prefix: bool = True
    remove_extra_whitespaces: bool = True
    escape_whitespaces: bool = True
    treat_whitespace_as_suffix: bool = False
    has_charsmap: bool = False


def unsupported_reason(v: UgmVocab) -> str | None:
    """Why this port would not tokenize ``v`` exactly as llama.cpp does (None: it would)."""
    if v.has_charsmap:
        return "the vocabulary has a precompiled normaliser"
    if (v.types == USER_DEFINED).any():
        return "the vocabulary has user-defined tokens"
    if not (v.add_space_prefix and v.remove_extra_whitespaces and v.escape_whitespaces):
        return "the vocabulary's whitespace settings differ from SentencePiece's defaults"
    if v.treat_whitespace_as_suffix:
        return "the vocabulary treats whitespace as a suffix"
    if not 0 <= v.unk_id < len(v.pieces):
        return "the vocabulary has no unknown token"
    try:
        for p in v.pieces:
            p.decode("utf-8")
    except UnicodeDecodeError:
        return "a piece is not valid UTF-8"
    return None


def write_tables(v: UgmVocab, folder: Path) -> None:
    """Save the trie and the per-key arrays ``UgmTokenizer.load`` reads."""
    import marisa_trie

    matchable = (v.types == NORMAL) | (v.types == USER_DEFINED) | (v.types == UNUSED)
    ids = np.flatnonzero(matchable)
    keys = {v.pieces[i].decode("utf-8"): int(i) for i in ids}  # a repeated piece: the last id wins, as in llama.cpp
    trie = marisa_trie.Trie(list(keys))
    key_to_token = np.zeros(len(trie), dtype=np.int32)
    for piece, tid in keys.items():
        key_to_token[trie[piece]] = tid
    scores = v.scores.astype(np.float32)
    unk_score = float(np.float32(scores[v.types == NORMAL].min()) - UNKNOWN_PENALTY)
    trie.save(str(folder / "vocab.marisa"))
    key_scores = scores[key_to_token].astype(np.float64)  # widened once: llama.cpp sums in double
    np.savez(folder / "vocab.npz", key_to_token=key_to_token, key_scores=key_scores,
             meta=np.array([v.unk_id, unk_score, max(len(k) for k in keys)], dtype=np.float64))


def word_mark_starts_pieces_only(trie) -> bool:  # noqa: ANN001 - a marisa_trie.Trie
    """No piece holds the word mark past its first character, so a text's
    segmentation is its words' segmentations (checked once: ~0.1 s)."""
    return not any(SPACE in k[1:] for k in trie.keys())


def _word_local(folder: Path, trie) -> bool:  # noqa: ANN001 - a marisa_trie.Trie
    """``word_mark_starts_pieces_only``, remembered beside the tables (the
    check walks 250k keys: 0.1 s a load otherwise)."""
    marker = folder / "word_local.json"
    try:
        return bool(json.loads(marker.read_text(encoding="utf-8"))["word_local"])
    except (OSError, ValueError, KeyError, TypeError):
        pass
    found = word_mark_starts_pieces_only(trie)
    try:
        marker.write_text(json.dumps({"word_local": found}), encoding="utf-8")
    except OSError:
        pass  # a read-only folder: checked again next load
    return found


class UgmTokenizer:
    """Text -> token ids (no BOS/EOS), exactly as llama.cpp's UGM tokenizer."""

    def __init__(self, trie: Any, key_to_token: array.array, key_scores: array.array,
                 unk_id: int, unk_score: float, max_piece: int) -> None:
        self._trie = trie
        self._token = key_to_token
        self._score = key_scores
        self.unk_id = unk_id
        self._unk_score = unk_score
        self._max_piece = max_piece
        self._recent: OrderedDict[str, array.array] = OrderedDict()
        self._recent_lock = threading.Lock()
        self._words: dict[str, tuple[int, ...]] = {}
        self._word_local = False  # set by load() once the vocabulary is checked

    @classmethod
    def load(cls, folder: str | os.PathLike[str]) -> UgmTokenizer:
        import marisa_trie

        folder = Path(folder)
        trie = marisa_trie.Trie()
        trie.mmap(str(folder / "vocab.marisa"))  # pages shared with the OS cache, loaded as touched
        with np.load(folder / "vocab.npz") as z:
            # array.array: indexing gives plain ints/floats, fast in the Viterbi loop
            token = array.array("i", z["key_to_token"].astype(np.int32).tobytes())
            score = array.array("d", z["key_scores"].astype(np.float64).tobytes())
            unk_id, unk_score, max_piece = z["meta"].tolist()
        tok = cls(trie, token, score, int(unk_id), float(unk_score), int(max_piece))
        tok._word_local = _word_local(folder, trie)
        return tok

    def tokenize(self, text: str) -> list[int]:
        # The indexer counts a chunk's tokens as a section, as a chunk, then
        # embeds it: the same text three times. Remembering recent texts keeps
        # that to one run of the loop below (Python: ~1 us per character).
        with self._recent_lock:
            hit = self._recent.get(text)
            if hit is not None:
                self._recent.move_to_end(text)
                return list(hit)
        ids = self._by_words(text)
        with self._recent_lock:
            self._recent[text] = array.array("i", ids)
            if len(self._recent) > RECENT:
                self._recent.popitem(last=False)
        return ids

    def _by_words(self, text: str) -> list[int]:
        """The ids of ``text``, one space-separated word at a time, each word's
        remembered: no vocabulary piece holds the word mark (U+2581) past its
        first character (``word_mark_starts_pieces_only`` checks it at load),
        so a best segmentation breaks before every word and the words'
        segmentations are the text's. Words repeat (Zipf): most are looked up,
        not segmented (indexing spent ~3 % of its time here)."""
        if not self._word_local:
            return self._viterbi(text)
        out: list[int] = []
        words = self._words
        for run in text.split(" "):
            if not run:
                continue
            ids = words.get(run)
            if ids is None:
                if len(words) >= WORDS:
                    words.clear()  # a dict swap is atomic enough: a racing reader re-segments
                ids = tuple(self._viterbi(run))
                words[run] = ids
            out.extend(ids)
        return out

    def _viterbi(self, text: str) -> list[int]:
        s = "".join(SPACE + run for run in text.split(" ") if run)
        n = len(s)
        if not n:
            return []
        best = [-1.7976931348623157e308] * (n + 1)
        tok = [self.unk_id] * (n + 1)
        back = [0] * (n + 1)
        best[0] = 0.0
        prefixes, token, score, unk, unk_score = (
            self._trie.iter_prefixes_with_ids, self._token, self._score, self.unk_id, self._unk_score)
        width = self._max_piece
        for i in range(n):
            here = best[i]
            whole_char = False
            for piece, key in prefixes(s[i : i + width]):
                end = i + len(piece)
                if end == i + 1:
                    whole_char = True
                cand = here + score[key]
                if cand > best[end]:
                    best[end], tok[end], back[end] = cand, token[key], i
            if not whole_char:
                cand = here + unk_score
                if cand > best[i + 1]:
                    best[i + 1], tok[i + 1], back[i + 1] = cand, unk, i
        out: list[int] = []
        pos, prev_unknown = n, False
        while True:
            t = tok[pos]
            is_unknown = t == unk
            if not (prev_unknown and is_unknown):
                out.append(t)
            if back[pos] == 0:
                break
            prev_unknown = is_unknown
            pos = back[pos]
        out.reverse()
        return out
