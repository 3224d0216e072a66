"""Related notes on a vault of short notes (ADR 0276, issue 49): linked,
on-topic notes lead; a note near everything and notes with no words of
their own (a bare URL, a heading alone) do not fill the list. Real index,
real default model."""

from __future__ import annotations

import numpy as np
import pytest

from groove.index.related_rank import RelatedLevers, rank_related
from groove.operations.notes import name_index
from groove.operations.related import related_notes
from groove.vault.links import resolve_target

NOTES = {
    "Biology/Sleep.md": "Sleep is a recurring state of rest for body and mind. A night passes through "
                        "cycles of [[NREM]] sleep and [[REM]] sleep, about ninety minutes each.\n",
    "Biology/NREM.md": "Non-rapid eye movement sleep: the stages of deep, dreamless rest with slow delta "
                       "waves, when the body repairs tissue. See [[Sleep]].\n",
    "Biology/REM.md": "Rapid eye movement sleep, when most vivid dreams happen; the muscles are paralysed "
                      "and the brain is nearly as active as awake. Part of [[Sleep]].\n",
    "Biology/Circadian rhythm.md": "The body's internal clock of about 24 hours, set by daylight, "
                                   "that makes us drowsy at night and alert in the morning.\n",
    # Near everything here: it speaks of cycles, waves, patterns, the body and music at once.
    "Music/Rhythm.md": "Rhythm is a pattern of repeating cycles in time: the beat of music, waves, "
                       "breathing, the heart, day and night, sleep and waking, rest and activity, "
                       "patterns of the body and of sound.\n",
    "Music/Melody.md": "A melody is a sequence of musical notes heard as one line, with pitch and rhythm.\n",
    "Music/Chords.md": "Chords are three or more notes played together; major and minor triads.\n",
    "Hardware/Waveform.md": "A waveform is the shape of a signal over time: sine, square, sawtooth.\n",
    "Hardware/Oscillator.md": "An electronic oscillator produces a repeating signal, a sine or square wave.\n",
    "Cooking/Bread.md": "Bread is flour, water, salt and yeast, kneaded, proofed and baked.\n",
    "Linux/Cron.md": "Cron runs commands on a schedule: every hour, every day at midnight.\n",
    "Travel/Tokyo.md": "Tokyo is the capital of Japan; trains, temples and food markets.\n",
    # Words of their own: none (a bare link, a heading alone).
    "Biology/Sleep lecture.md": "https://www.youtube.com/watch?v=sleep-cycles-nrem-rem\n",
    "Biology/Sleep stages.md": "# Sleep stages\n",
}
LINKED_ON_TOPIC = {"Biology/NREM.md", "Biology/REM.md"}
EMPTY = {"Biology/Sleep lecture.md", "Biology/Sleep stages.md"}


@pytest.fixture(scope="module")
def rt(tmp_path_factory, default_embedder):
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path_factory.mktemp("rel"), NOTES, default_embedder)
    yield rt
    rt.close()


def test_linked_on_topic_notes_lead_and_empty_notes_do_not_fill_the_list(rt):
    similar = related_notes(rt, "Biology/Sleep.md", limit=10)["similar"]
    order = [s["path"] for s in similar]
    assert set(order[:2]) == LINKED_ON_TOPIC, order
    assert order.index("Music/Rhythm.md") > 1, order  # the hub, unlinked, comes after them
    content = [p for p in order if p not in EMPTY]
    for e in EMPTY & set(order):  # none is listed; were one, below every content note
        assert order.index(e) >= len(content), order
    for s in similar:
        assert s["linked"] == (s["path"] in LINKED_ON_TOPIC)
        assert "relevance" in s and isinstance(s["relevance"], float)
    rel = [s["relevance"] for s in similar]
    assert rel == sorted(rel, reverse=True)  # the order the numbers say
    # Spread: the first is standard deviations ahead of the tenth, where
    # the cosines of e5 sit in a band a few hundredths wide.
    assert rel[0] - rel[-1] > 1.0


def _resolver(rt):
    names = name_index(rt.index)

    def resolve(target: str, src: str) -> int | None:
        hit = resolve_target(names, target, src)
        return hit.id if hit is not None else None
    return resolve


def test_each_lever_is_what_moves_the_notes(rt):
    """Without the corrections, the empty notes (whose vectors are their
    titles') and the hub rank as plain cosine puts them; each correction
    is what moves them."""
    names = name_index(rt.index)
    sleep = names.lookup("Biology/Sleep.md")
    by_id = names.by_id()
    resolve = _resolver(rt)

    def order(lv: RelatedLevers) -> list[str]:
        got = rank_related(rt.index, sleep.id, None, resolve, lv) or []
        return [by_id[r.doc_id].path for r in got]

    off = RelatedLevers(weigh=False, csls=False, shrink=False, links=False, two_hop=False)
    plain = order(off)
    assert min(plain.index(e) for e in EMPTY) < 5, plain  # the title alone is close to "Sleep"
    shrunk = order(RelatedLevers(weigh=True, csls=False, shrink=True, links=False, two_hop=False))
    assert not EMPTY & set(shrunk), shrunk


def test_the_score_is_still_the_cosine_of_the_two_notes(rt):
    names = name_index(rt.index)
    sleep = names.lookup("Biology/Sleep.md")
    got = rank_related(rt.index, sleep.id, None, _resolver(rt)) or []
    conn = rt.index.conn
    chunks = {cid: d for cid, d in conn.execute("SELECT id, doc_id FROM chunks")}

    def note_vec(doc: int) -> np.ndarray:
        vecs = [np.frombuffer(e, dtype=np.float32) for rid, e in conn.execute(
            "SELECT rowid, embedding FROM vec_chunks") if chunks.get(rid) == doc]
        v = np.mean(vecs, axis=0)
        return v / np.linalg.norm(v)
    nrem = next(r for r in got if by_path(names, r.doc_id) == "Biology/NREM.md")
    # NREM and Sleep are one chunk each, so weighting changes nothing: the plain cosine.
    assert abs(nrem.cosine - float(note_vec(sleep.id) @ note_vec(nrem.doc_id))) < 1e-4


def by_path(names, doc_id: int) -> str:
    return names.by_id()[doc_id].path
