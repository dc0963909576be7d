"""`python -m metriclab ...` run in-process through main([...])."""

from __future__ import annotations

import io

import pandas as pd
import pytest

import metriclab.reproduce as reproduce_module
from metriclab.__main__ import ProgressBar, main
from metriclab.reproduce import RESULT_COLUMNS, Experiment, markdown_report, run_experiment


def _table(fast, n_splits, seed, progress):
    n = n_splits or (2 if fast else 5)
    for i in range(n):
        if progress is not None:
            progress(i + 1, n, f"split {i + 1}")
    return pd.DataFrame(
        [
            ["wine", "TDL", "1-NN error %", 4.5, 5.25, 1.5, n, "10% labeled", "ours uses k=5"],
            ["iris | UCI", "LE", "1-NN error %", float("nan"), 7.0, float("nan"), n, "all", ""],
        ],
        columns=list(RESULT_COLUMNS),
    )


def _broken(fast, n_splits, seed, progress):
    raise ValueError("data set 'nope' is not shipped")


FAKE = {
    "fake-table": Experiment("fake-table", "A fake table", "fakepaper", _table, "Two rows."),
    "fake-broken": Experiment("fake-broken", "A broken table", "fakepaper", _broken),
}


@pytest.fixture
def fake_experiments(monkeypatch):
    monkeypatch.setattr(reproduce_module, "experiments", lambda: dict(FAKE))


def test_reproduce_list(fake_experiments, capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    assert "fake-table" in out and "A broken table" in out


def test_reproduce_writes_markdown_and_csv(fake_experiments, tmp_path, capsys):
    code = main(["reproduce", "fake-table", "--fast", "--out", str(tmp_path), "--splits", "3"])
    assert code == 0
    md = (tmp_path / "fake-table.md").read_text()
    assert "| wine | TDL | 1-NN error % | 4.50 | 5.25 ± 1.50 | +0.75 | 3 | 10% labeled |" in md
    assert r"| iris \| UCI | LE | 1-NN error % | — | 7.00 | — | 3 | all |" in md
    assert "## Notes" in md and "- ours uses k=5" in md
    assert "fast (smoke-test sizes, NOT the full protocol)" in md
    csv = pd.read_csv(tmp_path / "fake-table.csv")
    assert list(csv.columns) == list(RESULT_COLUMNS)
    assert csv["ours_mean"].tolist() == [5.25, 7.0]
    captured = capsys.readouterr()
    assert "fake-table: 2 rows" in captured.out
    assert "[" in captured.err and "3/3" in captured.err  # progress bar on stderr


def test_reproduce_all_goes_on_after_a_failure(fake_experiments, tmp_path, capsys):
    assert main(["reproduce", "all", "--fast", "--out", str(tmp_path), "--quiet"]) == 1
    assert (tmp_path / "fake-table.csv").exists()
    broken = (tmp_path / "fake-broken.md").read_text()
    assert "The run failed" in broken and "not shipped" in broken
    assert not (tmp_path / "fake-broken.csv").exists()
    assert "fake-broken: FAILED" in capsys.readouterr().err
    assert main(["reproduce", "nope", "--out", str(tmp_path)]) == 2
    assert main(["reproduce", "--out", str(tmp_path)]) == 2


def test_markdown_of_a_full_run_is_not_labelled_fast():
    outcome = run_experiment(FAKE["fake-table"], fast=False, n_splits=None, seed=0)
    assert outcome.error is None and len(outcome.results) == 2
    text = markdown_report(outcome)
    assert "mode: full" in text and "| 5 |" in text


def test_compare_prints_the_summary(capsys):
    code = main(
        [
            "compare",
            "--dataset",
            "two_moons",
            "--method",
            "pca:n_components=1",
            "--method",
            "pca:n_components=0",
            "--splits",
            "3",
            "--fraction",
            "0.2",
            "--no-cache",
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert "Euclidean (input space)" in lines[1] and "+0.00" in lines[1] and "0/3/0" in lines[1]
    assert "PCA (n_components=1)" in lines[2]
    assert "n_components must be >= 1, got 0" in lines[3]
    assert "6/9" in captured.err  # progress bar
    assert main(["compare", "--dataset", "no_such_set", "--no-cache"]) == 2
    assert "unknown data set" in capsys.readouterr().err


def test_compare_uses_the_cache(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("METRICLAB_CACHE", str(tmp_path))
    args = ["compare", "--dataset", "two_moons", "--splits", "2", "--n-train", "20", "--quiet"]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.out == first  # same numbers, fit times included (they are cached too)
    assert "2 of 2 split results came from the cache" in captured.err
    assert main(["cache", "info"]) == 0
    assert "2 cached results" in capsys.readouterr().out
    assert main(["cache", "clear"]) == 0
    assert "removed 2" in capsys.readouterr().out


def test_bench_runs_scripts(monkeypatch, tmp_path, capfd):
    import metriclab.__main__ as cli

    (tmp_path / "fine.py").write_text("print('ratio 2.0')\n")
    (tmp_path / "broken.py").write_text("raise SystemExit(3)\n")
    monkeypatch.setattr(cli, "BENCH_DIR", tmp_path)
    assert main(["bench", "--list"]) == 0
    assert main(["bench", "fine"]) == 0
    assert "ratio 2.0" in capfd.readouterr().out
    assert main(["bench", "all"]) == 1
    assert main(["bench", "missing"]) == 2


def test_data_list(capsys):
    assert main(["data", "list"]) == 0
    assert "two_moons" in capsys.readouterr().out


def test_progress_bar_text():
    stream = io.StringIO()
    bar = ProgressBar(stream=stream, width=10)
    for i in range(1, 21):
        bar(i, 20, f"step {i}")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11  # not a terminal: a line at each tenth (0/10 .. 10/10)
    assert lines[-1].startswith("[##########] 20/20") and lines[-1].endswith("step 20")
    assert bar.line(5, 10, "").startswith("[#####-----] 5/10")
