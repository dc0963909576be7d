"""The signed-rank test's p-value equals scipy.stats.wilcoxon's, its permutation branch (ties or
zeros among at most 13 pairs) computed from one product instead of 2^n rankings."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import wilcoxon

from metriclab.evaluation.signed_rank import PERMUTATION_MAX_PAIRS, signed_rank_p


def _scipy_p(d) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about its normal approximation's accuracy
        return float(wilcoxon(d).pvalue)


@pytest.mark.parametrize("seed", range(2))
def test_the_p_value_is_scipys_with_ties_zeros_and_without(seed):
    # scipy's own permutation branch costs 2^n rankings: mostly small n, a few at the bound and
    # past it (scipy's normal approximation there)
    rng = np.random.default_rng(seed)
    bound = PERMUTATION_MAX_PAIRS
    sizes = [*rng.integers(2, 10, size=60), bound - 1, bound, bound, bound + 1, bound + 3, 20]
    checked = 0
    for n in sizes:
        d = rng.integers(-4, 5, size=n) * rng.choice([1.0, 0.01, 0.1])  # many ties and zeros
        if seed % 2:
            d = d + rng.normal(scale=1e-3, size=n) * (rng.random(n) < 0.5)  # some without
        if np.all(d == 0):
            continue
        assert signed_rank_p(d) == pytest.approx(_scipy_p(d), rel=1e-12, abs=1e-15), d
        checked += 1
    assert checked > 50


def test_known_answers():
    # six wins, two of them tied: every flip counted, 2 of 64 as extreme
    assert signed_rank_p([0.02, 0.03, 0.01, 0.04, 0.05, 0.02]) == 2 / 64
    # a zero is dropped: five wins of five ranks, 2 of 32
    assert signed_rank_p([0.0, 0.1, 0.2, 0.2, 0.3, 0.4]) == 2 / 32
    # balanced: the observed R+ is the null's median
    assert signed_rank_p([1.0, -1.0, 2.0, -2.0]) == 1.0


def test_the_verdicts_and_the_compare_page_use_it():
    from metriclab.evaluation import paired_test
    from metriclab.reproduce.verdicts import paired_p

    d = np.array([0.02, 0.03, 0.01, 0.04, 0.05, 0.02])
    assert paired_test(d) == paired_p(d, np.zeros_like(d)) == signed_rank_p(d)
