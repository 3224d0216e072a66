"""Which low_confidence rule a search uses and what it says (ADR 0103, 0075),
through ``run_search`` on a real index of vault-small (tiny llama.cpp BERT)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from groove import operations
from groove.config import Config, SearchConfig
from groove.index import calibration
from groove.pipeline import SearchParams, run_search
from groove.pipeline.confidence import (
    UNCALIBRATED_WARNING,
    UNKNOWN_WORDS_WEIGHT,
    Evidence,
    Rule,
    calibrated_score,
    is_low_confidence,
    judge,
    unknown_names_warning,
)
from groove.pipeline.filters import build_restriction
from groove.pipeline.fusion import hybrid_candidates
from groove.pipeline.params import resolve_params
from groove.query import parse_query
from groove.query.terms import script_of
from stagekit import VAULT_SMALL, indexed_runtime, with_search


@pytest.fixture
def rt(tmp_path, tiny_embedder):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT_SMALL, vault)
    r = indexed_runtime(vault, tiny_embedder, tmp_path / "index.sqlite")
    yield r
    r.close()


def vec_sims(rt, q: str) -> np.ndarray:
    r = resolve_params(SearchParams(q), rt.config.search)
    parsed = parse_query(q)
    st = hybrid_candidates(rt.index, parsed, rt.embedder.embed_query(parsed.embed_text), r,
                           build_restriction(rt.index, r))
    return np.asarray(st.vec_sims)


def test_a_calibrated_index_answers_with_the_calibrated_rule_and_no_warning(rt):
    q = "coffee grind"
    resp = run_search(rt, SearchParams(q))
    assert UNCALIBRATED_WARNING not in resp.warnings
    cal = calibration.load(rt.index)
    from groove.index.vocabulary import known_share

    score = calibrated_score(float(vec_sims(rt, q).max()), known_share(rt.index.conn, parse_query(q).terms), cal)
    assert resp.low_confidence == (score < SearchConfig().low_confidence_threshold)


def test_the_threshold_moves_the_verdict(rt):
    q = "coffee grind"
    assert not run_search(with_search(rt, low_confidence_threshold=-10.0), SearchParams(q)).low_confidence
    assert run_search(with_search(rt, low_confidence_threshold=10.0), SearchParams(q)).low_confidence


def test_an_index_without_calibration_falls_back_to_the_margin_rule_and_says_so(rt):
    with rt.index.atomic() as c:
        c.execute("DELETE FROM meta WHERE key = ?", (calibration.META_KEY,))
    for q in ("coffee grind", "bread dough", "東京 ラーメン"):
        resp = run_search(rt, SearchParams(q))
        assert UNCALIBRATED_WARNING in resp.warnings
        assert resp.low_confidence == is_low_confidence(True, vec_sims(rt, q), SearchConfig().min_confidence_ratio)
    st = operations.index_status(rt)["low_confidence"]
    assert st["calibrated"] is False and st["rule"] == "margin" and "groove index" in st["reason"]


def test_the_next_index_run_restores_the_calibration(rt):
    with rt.index.atomic() as c:
        c.execute("DELETE FROM meta WHERE key = ?", (calibration.META_KEY,))
    operations.reindex(rt)
    assert operations.index_status(rt)["low_confidence"]["calibrated"] is True
    assert UNCALIBRATED_WARNING not in run_search(rt, SearchParams("coffee grind")).warnings


def test_an_explicit_min_confidence_ratio_asks_for_the_margin_rule(rt):
    for ratio in (0.05, 0.5):
        resp = run_search(rt, SearchParams("bread dough", min_confidence_ratio=ratio))
        assert resp.low_confidence == is_low_confidence(True, vec_sims(rt, "bread dough"), ratio)
        assert UNCALIBRATED_WARNING not in resp.warnings


def test_min_confidence_ratio_zero_turns_the_flag_off_except_for_an_empty_result(rt):
    off = with_search(rt, min_confidence_ratio=0.0, low_confidence_threshold=10.0)
    assert not run_search(off, SearchParams("zxqv wobble florp")).low_confidence
    empty = run_search(off, SearchParams("coffee", path_globs=("no-such-folder/**",)))
    assert empty.results == [] and empty.low_confidence
    assert not run_search(rt, SearchParams("coffee grind", min_confidence_ratio=0)).low_confidence


def test_a_full_text_only_search_is_flagged_only_when_empty(rt):
    resp = run_search(with_search(rt, low_confidence_threshold=10.0), SearchParams("coffee", legs="fts"))
    assert resp.results and not resp.low_confidence


def test_the_rule_counts_each_unknown_share_against_the_vector_evidence():
    cal = calibration.Calibration(median=0.8, scale=0.02, probes=96, chunks=10, model_id="m", recipe=3,
                                  chunk_tokens="150", probes_sha=calibration.PROBES_SHA, seconds=0.0)
    sims = np.array([0.84, 0.80, 0.79])  # z = 2
    known = judge(True, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(1.0))
    unknown = judge(True, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(0.0))
    assert known.score == pytest.approx(2.0) and not known.low
    assert unknown.score == pytest.approx(2.0 - UNKNOWN_WORDS_WEIGHT) and unknown.low
    assert judge(False, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(1.0)).rule == "empty"
    fallback = judge(True, sims, None, Rule("calibrated", 0.12, 0.75), Evidence(None))
    assert fallback.rule == "margin" and fallback.warning == UNCALIBRATED_WARNING


def test_a_query_in_a_script_the_vault_lacks_is_read_against_its_own_languages_probes():
    # ADR 0131: English notes (no CJK letters), Japanese probes reach .76 on them, English ones .80
    cal = calibration.Calibration(median=0.79, scale=0.02, probes=96, chunks=10, model_id="m", recipe=4,
                                  chunk_tokens="150", probes_sha=calibration.PROBES_SHA, seconds=0.0,
                                  by_language={"en": [0.80, 0.02], "ja": [0.76, 0.02]},
                                  letters={"latin": 1.0, "cjk": 0.0})
    sims = np.array([0.80, 0.78])
    ja = judge(True, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(1.0, script="cjk"))
    en = judge(True, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(1.0, script="latin"))
    assert ja.score == pytest.approx(2.0) and not ja.low
    assert en.score == pytest.approx(0.5) and en.low  # the vault's own script: the pooled probes
    assert cal.absent_scripts() == frozenset({"cjk"})
    bilingual = calibration.Calibration(**{**cal.__dict__, "letters": {"latin": 0.8, "cjk": 0.2}})
    assert bilingual.z(0.80, "cjk") == pytest.approx(0.5)  # both scripts present: as before


def _cal(letters: dict[str, float]) -> calibration.Calibration:
    return calibration.Calibration(
        median=0.80, scale=0.02, probes=192, chunks=10, model_id="m", recipe=4, chunk_tokens="150",
        probes_sha=calibration.PROBES_SHA, seconds=0.0, letters=letters,
        by_language={"en": [0.80, 0.02], "ja": [0.76, 0.02], "zh": [0.86, 0.01], "ko": [0.84, 0.01]})


def test_chinese_and_korean_queries_are_read_against_their_own_languages_probes():
    """ADR 0162: e5 puts everything Chinese closer together than the English and
    Japanese probes say, so a Chinese vault reads Chinese against Chinese probes."""
    chinese = _cal({"latin": 0.4, "cjk": 0.6, "kana": 0.0, "hangul": 0.0})
    assert chinese.chinese() and chinese.z(0.87, "han") == pytest.approx(1.0)
    assert chinese.z(0.82, "latin") == pytest.approx(1.0)  # other scripts: the pooled probes, as before
    japanese = _cal({"latin": 0.2, "cjk": 0.8, "kana": 0.4, "hangul": 0.0})
    assert not japanese.chinese() and japanese.z(0.82, "han") == japanese.z(0.82, "cjk") == pytest.approx(1.0)
    korean = _cal({"latin": 0.3, "cjk": 0.0, "kana": 0.0, "hangul": 0.7})
    assert korean.z(0.85, "hangul") == pytest.approx(1.0) and not korean.absent("hangul")
    english = _cal({"latin": 1.0, "cjk": 0.0, "kana": 0.0, "hangul": 0.0})
    assert english.absent("hangul") and english.z(0.85, "hangul") == pytest.approx(1.0)  # across: its own probes
    assert english.z(0.78, "han") == english.z(0.78, "cjk") == pytest.approx(1.0)  # kanji asked of English: ADR 0131
    before = _cal({"latin": 0.3, "cjk": 0.7})  # measured before Hangul was counted: nothing new is absent
    assert not before.absent("hangul") and not before.chinese()


@pytest.mark.parametrize("text,script", [
    ("how do I sync my notes", "latin"), ("ノートを同期する方法", "cjk"),
    ("Obsidian Syncでノートを同期する方法", "cjk"),  # Japanese with a product name
    ("寿司 recipe at home", "latin"),  # English with a Japanese word
    ("", "latin"),
    ("如何在手机和电脑之间同步笔记", "han"), ("羊羹", "han"),  # CJK without kana (ADR 0162)
    ("Obsidian 怎么同步设置", "han"), ("노트를 동기화하는 방법", "hangul"), ("Obsidian Sync로 전환하기", "hangul"),
])
def test_a_query_is_read_in_the_script_most_of_its_words_are_in(text, script):
    assert script_of(text) == script
    if text:  # what a search reads: the compiler's terms
        assert parse_query(text).terms.script == script


def test_the_config_knob_loads_and_is_range_checked():
    from groove.config import ConfigError, parse_config

    cfg = parse_config("[search]\nlow_confidence_threshold = 1.5\nmin_confidence_ratio = 0.1\n")
    assert cfg.search.low_confidence_threshold == 1.5 and cfg.search.min_confidence_ratio == 0.1
    with pytest.raises(ConfigError, match="low_confidence_threshold"):
        parse_config("[search]\nlow_confidence_threshold = 99\n")
    assert Config().search.low_confidence_threshold == 0.75


def test_a_search_looks_each_trigram_up_once_for_the_full_text_leg_and_the_known_word_share(rt):
    # Each lookup walks the trigram's doclist (~7 ms a search at 100k chunks
    # when the confidence step repeated the full-text leg's).
    terms: list[str] = []

    def trace(cursor, sql, bindings):
        if "groove_fts_vocab WHERE term" in sql:
            terms.append(bindings[0])
        return True

    rt.index.conn.exec_trace = trace
    try:
        resp = run_search(rt, SearchParams("coffee grinder settings"))
    finally:
        rt.index.conn.exec_trace = None
    assert resp.results and terms
    assert len(terms) == len(set(terms)), sorted(terms)


def test_a_name_the_vault_never_contains_flags_the_query_whatever_its_score():
    # ADR 0220: "export to Word docx" finds the export page; no page is about docx.
    cal = _cal({"latin": 1.0, "cjk": 0.0, "kana": 0.0, "hangul": 0.0})
    sims = np.array([0.90, 0.80])  # z = 5: far above any threshold
    plain = judge(True, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(1.0, script="latin"))
    named = judge(True, sims, cal, Rule("calibrated", 0.12, 0.75), Evidence(1.0, script="latin", names=("docx",)))
    assert not plain.low and "unknown_names" not in plain.explain()
    assert named.low and named.score == plain.score
    assert named.explain()["unknown_names"] == ["docx"]
    # the margin rule (an explicit min_confidence_ratio) knows nothing of names
    assert not judge(True, sims, cal, Rule("margin", 0.01, 0.75), Evidence(1.0, names=("docx",))).low


def test_a_search_naming_what_the_vault_never_mentions_is_low_confidence(rt):
    lenient = with_search(rt, low_confidence_threshold=-100.0)  # the score alone never flags here
    named = run_search(lenient, SearchParams("sync my coffee notes with Joplin", explain=True))
    assert named.results and named.low_confidence
    assert named.confidence["unknown_names"] == ["Joplin"]
    # said without explain too: every client shows warnings
    plain = run_search(lenient, SearchParams("sync my coffee notes with Joplin"))
    assert plain.low_confidence and plain.warnings == [unknown_names_warning(("Joplin",))]
    assert plain.warnings[0].startswith('the vault never mentions "Joplin"')
    known = run_search(lenient, SearchParams("Sync my Coffee notes", explain=True))
    assert not known.low_confidence and "unknown_names" not in known.confidence and not known.warnings


def test_a_vault_without_latin_text_is_not_judged_by_latin_names(tmp_path, tiny_embedder):
    vault = tmp_path / "vault"
    vault.mkdir()
    sync = "# 同期\n\nノートを端末の間で同期する方法。設定から同期を有効にする。\n"
    (vault / "同期.md").write_text(sync, encoding="utf-8")
    (vault / "猫.md").write_text("# 猫\n\n猫は一日のほとんどを寝て過ごす。\n", encoding="utf-8")
    r = with_search(indexed_runtime(vault, tiny_embedder, tmp_path / "index.sqlite"), low_confidence_threshold=-100.0)
    try:
        assert calibration.load(r.index).absent("latin")
        resp = run_search(r, SearchParams("Joplinでノートを同期する", explain=True))
        assert resp.results and not resp.low_confidence and "unknown_names" not in resp.confidence
    finally:
        r.close()


def test_a_quoted_phrase_of_symbols_no_hit_holds_is_low_confidence(rt):
    """'"???"' (symbols must be quoted to be searched) has no word for the
    known-word share or the names to read, and e5 finds something close to
    any punctuation: the hits were never flagged. No hit holds the phrase:
    it is a name the vault never mentions."""
    lenient = with_search(rt, low_confidence_threshold=-100.0)  # the score alone never flags here
    missing = run_search(lenient, SearchParams('"???"', explain=True))
    assert missing.results and all("???" not in h.content for h in missing.results)
    assert missing.low_confidence and missing.confidence["unknown_names"] == ["???"]
    assert missing.warnings == [unknown_names_warning(("???",))]
    (rt.vault / "Puzzles.md").write_text("# Puzzles\n\nWhat does ??? mean in a recipe.\n", encoding="utf-8")
    operations.reindex(rt)
    found = run_search(lenient, SearchParams('"???"', explain=True))
    assert "???" in found.results[0].content
    assert not found.low_confidence and "unknown_names" not in found.confidence and not found.warnings
