import pytest

from metriclab.datasets import default_preprocess
from metriclab.preprocess import resolve_preprocess
from metriclab.reproduce import RESULT_COLUMNS, SPLITS_COLUMN, experiments, tdl
from metriclab.reproduce.tdl import EXPERIMENTS, READINGS, TABLE1, TABLE2
from metriclab.reproduce.tdl_mnist import EXPERIMENTS as MNIST_EXPERIMENTS


def test_experiments_are_registered():
    names = {e.name for e in (*EXPERIMENTS, *MNIST_EXPERIMENTS)}
    assert names == {"tdl-moons", "tdl-uci", "tdl-mnist", "tdl-mnist-lambda"}
    assert names <= set(experiments())


def test_paper_numbers_are_transcribed():
    assert TABLE1["TDL"] == ((94.74, 1.73), (89.37, 5.32), (63.65, 5.68), (93.09, 4.00))
    assert TABLE1["Laplacian Eigenmaps"][1] == (85.01, 4.02)
    assert TABLE1["1-NN"][3] == (91.71, 3.00)
    assert TABLE2["TDL"] == ((96.13, 0.07), (97.49, 0.04))


def test_uci_scaling_is_the_shared_option_and_the_apps_default():
    """Table 1's [0, 1] renormalisation goes through metriclab.preprocess, and the app starts
    these four data sets at the same scaling."""
    assert resolve_preprocess(tdl.UCI_PREPROCESS) == "minmax"
    for name in tdl.TABLE1_DATA.values():
        assert default_preprocess(name) == tdl.UCI_PREPROCESS


def _by(frame, setting, method):
    row = frame[(frame.setting == setting) & (frame.method == method)]
    assert len(row) == 1
    return row.iloc[0]


def _has_split_values(df):
    """The table's columns, and one value per split for the paired tests of the claims."""
    assert list(df.columns) == [*RESULT_COLUMNS, SPLITS_COLUMN]
    for row in df.itertuples():
        assert len(getattr(row, SPLITS_COLUMN)) == row.n_splits
        if row.n_splits:
            assert abs(sum(getattr(row, SPLITS_COLUMN)) / row.n_splits - row.ours_mean) < 1e-6


def test_moons_fast_run_shows_tdl_beating_le_in_the_window_only():
    calls = []
    df = EXPERIMENTS[0].run(fast=True, n_splits=None, seed=0, progress=lambda *a: calls.append(a))
    _has_split_values(df)
    assert calls and calls[-1][0] == calls[-1][1]
    paper = "two moons, knn graph, t=0.25, λ=16"
    # Figure 1 at the paper's λ: the symmetric reading separates the moons, the default one
    # (D - W, whose weights are near 1 on the moons) has its window lower, at λ = 1
    tdl, le = _by(df, paper, "TDL [symmetric]"), _by(df, paper, "Laplacian Eigenmaps [symmetric]")
    assert tdl.ours_mean > le.ours_mean + 7
    low = "two moons, knn graph, t=0.25, λ=1"
    assert _by(df, low, "TDL").ours_mean > _by(df, low, "Laplacian Eigenmaps").ours_mean + 7
    # λ → ∞ is Laplacian Eigenmaps again, in every reading
    big = "two moons, knn graph, t=0.25, λ=1024"
    for reading in ("", " [symmetric]", " [random_walk]"):
        tdl, le = _by(df, big, f"TDL{reading}"), _by(df, big, f"Laplacian Eigenmaps{reading}")
        assert abs(tdl.ours_mean - le.ours_mean) < 3
    # every reading is in the table at the paper's setting
    assert {f"TDL [{r}]" for r in READINGS if r != "unnormalized"} <= set(
        df[df.setting == paper].method
    )


@pytest.mark.parametrize("index", [1, 2])
def test_uci_and_mnist_fast_runs_report_paper_and_ours(index):
    exp = EXPERIMENTS[index] if index == 1 else MNIST_EXPERIMENTS[0]
    df = exp.run(fast=True, n_splits=None, seed=0, progress=None)
    _has_split_values(df)
    ran = df[df.n_splits > 0]
    assert len(ran) >= 3
    assert ran.ours_mean.between(40, 100).all()
    assert df.paper.notna().sum() >= 4
    if index == 1:  # TDL and LE within reach of the paper's Table 1 on breast cancer
        row = _by(df, "breast cancer", "TDL")
        assert abs(row.ours_mean - row.paper) < 5


@pytest.mark.slow
def test_uci_full_run_is_close_to_table1():
    """Slow: 20 splits. Breast cancer and sonar within 5 points of the paper; on ionosphere the
    default reading puts TDL above LE, as the paper's Table 1 does (measured over 100 splits:
    89.8 vs 87.8; paper 89.37 vs 85.01), while the symmetric reading makes TDL equal to LE."""
    df = EXPERIMENTS[1].run(fast=False, n_splits=20, seed=0, progress=None)
    for setting in ("breast cancer", "sonar"):
        row = _by(df, setting, "Laplacian Eigenmaps")
        assert abs(row.ours_mean - row.paper) < 5
    assert (
        _by(df, "ionosphere", "TDL").ours_mean
        > _by(df, "ionosphere", "Laplacian Eigenmaps").ours_mean + 1
    )
    sym = _by(df, "ionosphere", "TDL [symmetric]").ours_mean
    assert abs(sym - _by(df, "ionosphere", "Laplacian Eigenmaps [symmetric]").ours_mean) < 0.5


def test_mnist_fast_run_has_exact_graph_rows():
    df = MNIST_EXPERIMENTS[0].run(fast=True, n_splits=None, seed=0, progress=None)
    exact = df[df.method.str.contains("exact 20-NN graph")]
    assert set(exact.method) == {
        "TDL (exact 20-NN graph)",
        "Laplacian Eigenmaps (exact 20-NN graph)",
    }
    assert exact.ours_mean.between(40, 100).all()
    assert "finds 100.0% of its edges" in exact.note.iloc[0]  # 1,500 digits: the search is exact


def test_label_term_smoke_run_measures_angles_and_chooses_lambda_on_labels_only():
    """The smoke version of tdl-mnist-lambda: the label term moves TDL's eigenspace away from
    LE's more as λ shrinks, and λ is chosen from the grid by cross-validation."""
    from metriclab.reproduce.tdl_mnist import LAMBDA_GRID

    df = MNIST_EXPERIMENTS[1].run(fast=True, n_splits=None, seed=0, progress=None)
    angles = df[df.metric.str.startswith("largest principal angle")]
    values = angles.set_index("method").ours_mean
    grid = LAMBDA_GRID[1::2]
    assert list(values.index) == [f"TDL, λ = {lam:g}" for lam in grid]
    assert values.iloc[0] > values.iloc[-1]  # small λ: the labels move the eigenspace most
    chosen = df[df.setting == "MNIST, λ by cross-validation"].set_index("method")
    assert chosen.loc["TDL", "note"].split(": ")[-1] in {f"{lam:g}" for lam in grid}
