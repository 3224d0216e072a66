"""The low_confidence calibration (ADR 0103): measured at index time on a
real index (apsw + sqlite-vec, the tiny llama.cpp BERT), kept by incremental
runs, measured again when it no longer describes the index."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from groove.config import Config
from groove.index import calibration
from groove.indexer import index_vault
from groove.runtime import open_runtime

VAULT_SMALL = Path(__file__).resolve().parents[1] / "fixtures" / "vault-small"


@pytest.fixture
def rt(tmp_path, tiny_embedder):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT_SMALL, vault)
    r = open_runtime(vault, index_path=tmp_path / "index.sqlite", config=Config())
    r._embedder = tiny_embedder
    yield r
    r.close()


def reindex(rt):
    return index_vault(rt.vault, rt.index, rt.embedder, rt.config.index)


def test_indexing_stores_the_probes_best_cosines_as_a_median_and_spread(rt):
    reindex(rt)
    cal = calibration.load(rt.index)
    assert cal is not None and cal.probes == len(calibration.PROBES)
    assert cal.chunks == rt.index.counts()[1] and cal.model_id == rt.embedder.model_id
    best = calibration.best_cosines(rt.index, rt.embedder.embed_queries(list(calibration.PROBES)))
    best = best[:calibration.POOLED]  # the pooled yardstick: English and Japanese (ADR 0162)
    assert cal.median == pytest.approx(float(np.median(best)))
    assert cal.scale == pytest.approx(max(1.4826 * float(np.median(np.abs(best - cal.median))), calibration.MIN_SCALE))
    assert cal.z(cal.median) == 0.0 and cal.z(cal.median + cal.scale) == pytest.approx(1.0)


def test_an_incremental_reindex_after_an_edit_keeps_the_stored_calibration(rt):
    reindex(rt)
    before = rt.index.get_meta(calibration.META_KEY)
    note = rt.vault / "Garden.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nWatered the beans today.\n", encoding="utf-8")
    summary = reindex(rt)
    assert summary.indexed == ["Garden.md"]
    assert rt.index.get_meta(calibration.META_KEY) == before


def test_a_vault_that_grew_by_more_than_a_tenth_is_calibrated_again(rt):
    reindex(rt)
    before = calibration.load(rt.index)
    for i in range(12):
        (rt.vault / f"extra{i}.md").write_text(f"# Extra {i}\n\nA note about topic number {i}.\n", encoding="utf-8")
    reindex(rt)
    after = calibration.load(rt.index)
    assert after.chunks == rt.index.counts()[1] > before.chunks * (1 + calibration.RECALIBRATE_SHARE)


@pytest.mark.parametrize("field,value", [("model_id", "another-model"), ("recipe", 1), ("chunk_tokens", "400"),
                                         ("probes_sha", "0" * 16)])
def test_a_calibration_made_under_another_model_recipe_budget_or_probe_set_is_measured_again(rt, field, value):
    reindex(rt)
    stale = {**json.loads(rt.index.get_meta(calibration.META_KEY)), field: value, "seconds": -1.0}
    rt.index.set_meta(calibration.META_KEY, json.dumps(stale))
    assert not calibration.is_current(calibration.load(rt.index), rt.index)
    assert calibration.status(rt.index).get("stale") is True
    reindex(rt)
    assert calibration.load(rt.index).seconds >= 0 and calibration.is_current(calibration.load(rt.index), rt.index)


def test_an_empty_vault_gets_no_calibration(tmp_path, tiny_embedder):
    (tmp_path / "vault").mkdir()
    r = open_runtime(tmp_path / "vault", index_path=tmp_path / "index.sqlite", config=Config())
    r._embedder = tiny_embedder
    reindex(r)
    assert calibration.load(r.index) is None
    assert calibration.status(r.index)["calibrated"] is False
    r.close()


def test_a_calibration_of_an_unknown_format_is_ignored(rt):
    reindex(rt)
    rt.index.set_meta(calibration.META_KEY, json.dumps({"version": 999}))
    assert calibration.load(rt.index) is None
    rt.index.set_meta(calibration.META_KEY, "not json")
    assert calibration.load(rt.index) is None


class _ProbesFail:
    """The real embedder, except that embedding the probes fails (note
    summaries are embedded as queries too, ADR 0142: those go through)."""

    def __init__(self, inner):
        self._inner = inner

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def embed_queries(self, texts):
        if set(texts) <= set(calibration.PROBES):
            raise RuntimeError("out of memory")
        return self._inner.embed_queries(texts)


def test_a_failed_calibration_does_not_fail_the_index_run_and_is_reported(rt):
    rt._embedder = _ProbesFail(rt._embedder)
    summary = reindex(rt)
    assert summary.indexed and calibration.load(rt.index) is None
    assert any("confidence calibration failed (out of memory)" in w for _, w in summary.warnings)


class _CheckOnly:
    """The real embedder, allowed to embed only the few probes that check the
    shipped vectors agree with this machine's model (ADR 0155), never all."""

    def __init__(self, real) -> None:
        self.real = real

    def embed_queries(self, texts):
        if len(texts) > len(calibration.SHIPPED_CHECKED):
            raise AssertionError("the probes were embedded although shipped vectors match")
        return self.real.embed_queries(texts)


def test_shipped_probe_vectors_stand_in_for_embedding_only_for_their_own_model_file(rt, tmp_path, monkeypatch):
    reindex(rt)
    embedded = calibration.load(rt.index)
    sha = rt.index.embedder_info()["file_hash"]
    path = tmp_path / "probe_vectors.npz"
    calibration.write_probe_vectors(rt.embedder, sha, path)
    monkeypatch.setattr(calibration, "SHIPPED_PROBE_VECTORS", path)

    shipped = calibration.calibrate(rt.index, _CheckOnly(rt.embedder))  # same model file: two probes embedded
    assert (shipped.median, shipped.scale) == (embedded.median, embedded.scale)

    # Another model file (or other probes) never reads them.
    assert calibration.shipped_probe_vectors("0" * 64, path) is None
    monkeypatch.setattr(calibration, "PROBES_SHA", "another-probe-list")
    assert calibration.shipped_probe_vectors(sha, path) is None
    assert calibration.calibrate(rt.index, rt.embedder).median == embedded.median
    # A missing or damaged file is the same as none.
    path.write_bytes(b"not an npz")
    assert calibration.shipped_probe_vectors(sha, path) is None
    assert calibration.shipped_probe_vectors(sha, tmp_path / "missing.npz") is None


def probe_vectors_serve(idx, shipped: np.ndarray, own: np.ndarray) -> bool:
    """Whether ``shipped`` can stand in for this machine's probe vectors
    (``own``), judged as the calibration uses them (ADR 0155): each probe's
    cosine to its own embedding at least SHIPPED_MIN_COSINE, and the
    yardstick they give on a real index within a tenth of its spread of the
    one this machine's vectors give, its spread within 15 %. Never by an
    absolute bound on components: llama.cpp's kernels differ by CPU."""
    if not calibration.shipped_agree(shipped, own):
        return False
    med, scale = calibration._yardstick(calibration.best_cosines(idx, own))
    med2, scale2 = calibration._yardstick(calibration.best_cosines(idx, shipped))
    return abs(med2 - med) <= 0.1 * scale and 0.85 <= scale2 / scale <= 1.15


def other_cpu(v: np.ndarray, seed: int = 0, sd: float = 7e-4) -> np.ndarray:
    """``v`` as another CPU's kernels might give it: rounding-sized noise on
    every component, renormalised (sd 7e-4 puts the largest difference near
    0.003, above the 0.0022 seen between AVX2 and AVX-512/AMX machines)."""
    noisy = v + np.random.default_rng(seed).normal(0.0, sd, v.shape).astype(np.float32)
    return noisy / np.linalg.norm(noisy, axis=1, keepdims=True)


@pytest.mark.needs_default_model
def test_the_shipped_probe_vectors_are_the_default_models_own(default_embedder, tmp_path):
    from groove.models.llama_embedder import file_sha256

    shipped = calibration.shipped_probe_vectors(file_sha256(default_embedder.model_path))
    assert shipped is not None, "stale probe_vectors.npz: run `make probe-vectors`"
    fresh = default_embedder.embed_queries(list(calibration.PROBES))
    vault = tmp_path / "vault"
    shutil.copytree(VAULT_SMALL, vault)
    r = open_runtime(vault, index_path=tmp_path / "index.sqlite", config=Config())
    r._embedder = default_embedder
    reindex(r)
    assert probe_vectors_serve(r.index, shipped, fresh)
    # and so would vectors another CPU made
    assert probe_vectors_serve(r.index, other_cpu(shipped), fresh)
    r.close()


def test_probe_vectors_another_cpu_made_serve_and_other_models_do_not(rt):
    reindex(rt)
    own = rt.embedder.embed_queries(list(calibration.PROBES))
    for seed in range(3):
        perturbed = other_cpu(own, seed)
        assert np.abs(perturbed - own).max() > 1e-3  # what the old absolute bound (1e-4) refused
        assert probe_vectors_serve(rt.index, perturbed, own)
    shuffled = own[np.random.default_rng(0).permutation(len(own))]
    assert not probe_vectors_serve(rt.index, shuffled, own)  # another model's vectors: refused
    assert not probe_vectors_serve(rt.index, other_cpu(own, sd=0.01), own)  # far past rounding: refused


def test_shipped_vectors_this_machines_model_disagrees_with_are_not_used(rt, tmp_path, monkeypatch):
    reindex(rt)
    own = np.asarray(rt.embedder.embed_queries(list(calibration.PROBES)))
    sha = (rt.index.embedder_info() or {})["file_hash"]
    for name, vectors, used in (("close", other_cpu(own), True), ("far", other_cpu(own, sd=0.05), False)):
        path = tmp_path / f"{name}.npz"
        with open(path, "wb") as f:
            np.savez(f, model_sha256=np.str_(sha), probes_sha=np.str_(calibration.PROBES_SHA), vectors=vectors)
        monkeypatch.setattr(calibration, "SHIPPED_PROBE_VECTORS", path)
        got = calibration.probe_vectors(rt.index, rt.embedder)
        assert np.array_equal(got, vectors.astype(np.float32)) is used, name
        if not used:
            np.testing.assert_allclose(got, own, atol=1e-5)  # embedded here, on this machine


def test_each_languages_probes_and_the_vaults_letters_are_kept_beside_the_pooled_yardstick(rt):
    reindex(rt)
    cal = calibration.load(rt.index)
    best = calibration.best_cosines(rt.index, rt.embedder.embed_queries(list(calibration.PROBES)))
    half, pooled = len(calibration.PROBES_EN), calibration.POOLED
    assert cal.by_language["en"][0] == pytest.approx(float(np.median(best[:half])))
    assert cal.by_language["ja"][0] == pytest.approx(float(np.median(best[half:pooled])))
    # ADR 0162: the Chinese and Korean probes feed their own languages only
    zh = pooled + len(calibration.PROBES_ZH)
    assert cal.by_language["zh"][0] == pytest.approx(float(np.median(best[pooled:zh])))
    assert cal.by_language["ko"][0] == pytest.approx(float(np.median(best[zh:])))
    assert cal.median == pytest.approx(float(np.median(best[:pooled])))
    # vault-small is English with two Japanese notes: both scripts are present
    assert 0 < cal.letters["cjk"] < 0.5 < cal.letters["latin"] <= 1 and cal.absent_scripts() == frozenset()
    assert "cross_language_scripts" not in calibration.status(rt.index)


def test_a_vault_without_japanese_reads_japanese_queries_as_cross_language(rt):
    for note in rt.vault.rglob("*.md"):
        if calibration.CJK_LETTER.search(note.read_text(encoding="utf-8")):
            note.unlink()
    reindex(rt)
    cal = calibration.load(rt.index)
    assert cal.letters["cjk"] == 0.0 and cal.absent_scripts() == frozenset({"cjk"})
    assert calibration.status(rt.index)["cross_language_scripts"] == ["cjk"]
    median, scale = cal.by_language["ja"]
    assert cal.z(median + scale, "cjk") == pytest.approx(1.0)
    assert cal.z(cal.median, "latin") == 0.0


def test_a_calibration_from_before_the_language_yardsticks_is_used_as_before_then_measured_again(rt):
    reindex(rt)
    old = json.loads(rt.index.get_meta(calibration.META_KEY))
    del old["by_language"], old["letters"]
    rt.index.set_meta(calibration.META_KEY, json.dumps(old))
    cal = calibration.load(rt.index)
    assert cal is not None and cal.absent_scripts() == frozenset() and cal.z(0.9, "cjk") == cal.z(0.9)
    assert not calibration.is_current(cal, rt.index)
    reindex(rt)
    assert calibration.load(rt.index).by_language is not None


def test_the_hangul_and_kana_regexes_are_the_query_compilers_classes():
    from groove.query import HANGUL, HIRA, KATA, char_type

    for o in [*range(0x1100, 0x1200), *range(0x3000, 0x3200), *range(0xA960, 0xA980), *range(0xAC00, 0xD800, 13)]:
        ch = chr(o)
        assert bool(calibration.HANGUL_LETTER.match(ch)) == (char_type(ch) == HANGUL), hex(o)
        assert bool(calibration.KANA_LETTER.match(ch)) == (char_type(ch) in (HIRA, KATA)), hex(o)


def test_the_cjk_letter_regex_is_the_query_compilers_kanji_and_kana():
    from groove.query import HIRA, KANJI, KATA, char_type

    points = [*range(0x3000, 0x3200), *range(0x3400, 0xA000, 7), *range(0xF900, 0xFB00), *range(0xFF00, 0xFFA0),
              0x20000, 0x2A6D6, 0x3FFFF]
    for o in points:
        ch = chr(o)
        assert bool(calibration.CJK_LETTER.match(ch)) == (char_type(ch) in (KANJI, HIRA, KATA)), hex(o)
