from __future__ import annotations

import pytest

from groove.eval.stats import compare, paired_bootstrap, sign_test


def test_sign_test_exact_two_sided_values():
    s = sign_test([1, 1, 1, 1, 1, 1, 0, 0])  # 6 wins, 0 losses, 2 ties: p = 2 * 1/64
    assert (s.wins, s.losses, s.ties) == (6, 0, 2)
    assert s.p_value == pytest.approx(2 / 64)
    assert sign_test([1, -1, 1, -1]).p_value == 1.0
    assert sign_test([0.0, 1e-15]).p_value == 1.0  # float noise is a tie


def test_bootstrap_all_zero_deltas_is_no_difference():
    b = paired_bootstrap([0.0] * 40)
    assert (b.mean, b.ci_low, b.ci_high, b.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_bootstrap_is_deterministic_and_brackets_the_mean():
    d = [0.1, -0.05, 0.2, 0.0, 0.3, -0.1, 0.15, 0.05] * 5
    a, b = paired_bootstrap(d), paired_bootstrap(d)
    assert a == b
    assert a.ci_low < a.mean < a.ci_high


def test_consistent_improvement_is_significant_and_noise_is_not():
    assert compare([0.2] * 30 + [0.0] * 10).significant
    assert not compare([0.2, -0.2] * 20).significant
    # one big win among ties: bootstrap may exclude 0 but the sign test cannot
    assert not compare([1.0] + [0.0] * 39).significant
