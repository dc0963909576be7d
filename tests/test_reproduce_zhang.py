"""Fast smoke runs of the Zhang (2003) reproductions, and the helpers they rely on."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import pdist, squareform

from metriclab.methods.zhang import is_fisher_separable
from metriclab.reproduce import RESULT_COLUMNS, experiments
from metriclab.reproduce.zhang import (
    EXPERIMENTS,
    FIGURES,
    TABLE1,
    figure_data,
    iterations_to_settle,
    pair_order_score,
    uci_data,
    uci_split,
)


def run(name, **kwargs):
    calls = []
    frame = experiments()[name].run(
        fast=True, n_splits=None, seed=0, progress=lambda *a: calls.append(a), **kwargs
    )
    assert list(frame.columns[: len(RESULT_COLUMNS)]) == list(RESULT_COLUMNS)
    assert calls and calls[-1][0] == calls[-1][1]  # progress reaches done == total
    return frame


def value(frame, setting, method, metric_part=""):
    rows = frame[
        (frame.setting == setting)
        & (frame.method == method)
        & frame.metric.str.contains(metric_part, regex=False)
    ]
    assert len(rows) == 1, (setting, method, metric_part)
    return rows.iloc[0]


def test_experiments_are_registered():
    assert {e.name for e in EXPERIMENTS} == {"zhang-rings", "zhang-iris", "zhang-uci"}
    assert {"zhang-rings", "zhang-iris", "zhang-uci"} <= set(experiments())


def test_table1_is_transcribed_exactly():
    assert TABLE1["pima"] == (638, 463, 432, 477, 428)
    assert TABLE1["soybean"] == (37, 36, 35, 37, 37)
    assert TABLE1["wine"] == (118, 86, 77, 113, 115)
    assert TABLE1["breast"] == (469, 430, 420, 448, 451)
    assert TABLE1["ionosphere"] == (251, 159, 212, 201, 224)


def test_uci_fast_run_has_every_cell_of_table1():
    frame = run("zhang-uci")
    table1 = ["pima", "soybean", "wine", "breast", "ionosphere"]
    raw = frame[frame.setting.isin(table1)]
    assert len(raw) == 20 and raw.ours_mean.notna().all()
    # the two other breast cancer files, and per set the preprocessing nearest the paper's cells
    assert {"breast (699 rows)", "breast (WDBC, 569 rows)"} <= set(frame.setting)
    fits = frame[frame.setting.str.endswith("which preprocessing fits the paper")]
    assert [s.split(":")[0] for s in fits.setting] == table1
    wine_in = value(frame, "wine", "input space NN")
    wine_feat = value(frame, "wine", "feature space NM")
    assert wine_in.paper == 77 and wine_feat.paper == 113
    # the learned metric repairs raw wine, as in the paper (77 -> 113 of 118)
    assert wine_feat.ours_mean >= wine_in.ours_mean + 15
    assert wine_feat.ours_mean >= 105
    assert (raw.note.str.len() > 0).all()


def test_rings_fast_run_separates_the_rings():
    frame = run("zhang-rings")
    for which in ("delta2", "delta4"):
        assert value(frame, "two rings", f"feature space ({which}) NN").ours_mean >= 95
        assert value(frame, "two rings", f"feature space ({which}) NM").ours_mean >= 95
    assert value(frame, "two rings", "input space NM").ours_mean < 70  # rings defeat class means
    order_in = value(frame, "two rings", "input space", "pair order").ours_mean
    order_d2 = value(frame, "two rings", "feature space (delta2)", "pair order").ours_mean
    assert order_d2 > order_in + 0.2


def test_iris_fast_run_matches_the_papers_claims():
    frame = run("zhang-iris")
    for which in ("delta2", "delta4"):
        mds = value(frame, f"iris, {which}", "classical MDS")
        expansion = value(frame, f"iris, {which}", "expansion (24 centres)")
        assert mds.paper == 1.0 and mds.ours_mean == 1.0  # Figure 6: idealized
        assert expansion.paper == 0.0 and expansion.ours_mean == 0.0  # Figure 7: not reached


@pytest.mark.parametrize("name", FIGURES)
def test_figure_data_for_the_app(name):
    data = figure_data(name, max_iter=30)
    points, stress, spectra = data["points"], data["stress"], data["eigenvalues"]
    assert {"panel", "x", "y", "label", "role"} <= set(points.columns)
    assert np.isfinite(points[["x", "y"]].to_numpy()).all()
    for _, curve in stress.groupby("panel"):  # Figure 4: e^2 never increases
        s = curve.sort_values("iteration").stress.to_numpy()
        assert np.all(np.diff(s) <= 1e-9 * s[0])
    assert (spectra.groupby("panel").eigenvalue.first() > 0).all()
    with pytest.raises(ValueError, match="figure"):
        figure_data("figure 9")


def test_pair_order_score_is_one_exactly_for_fisher_separable_matrices():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    far = rng.standard_normal((30, 2)) * 0.1 + y[:, None] * 10.0
    near = rng.standard_normal((30, 2)) + y[:, None] * 0.5
    D_far, D_near = squareform(pdist(far)), squareform(pdist(near))
    assert is_fisher_separable(D_far, y).separable and pair_order_score(D_far, y) == 1.0
    assert not is_fisher_separable(D_near, y).separable and 0.4 < pair_order_score(D_near, y) < 1.0


def test_uci_split_sizes_and_soybean_stand_in():
    X, y = uci_data("soybean")
    assert X.shape == (80, 35) and np.bincount(y).tolist() == [20, 20, 20, 20]
    lab, test = uci_split(y, 37, seed=0, n_labelled=10)
    assert len(lab) == 10 and len(test) == 37 and not set(lab) & set(test)
    X, y = uci_data("wine")
    lab, test = uci_split(y, 118, seed=1)
    assert len(lab) == 60 and len(test) == 118


def test_iterations_to_settle():
    assert iterations_to_settle(np.array([10.0, 5.0, 2.0, 1.01, 1.0])) == 3
    assert iterations_to_settle(np.array([3.0, 3.0])) == 0
