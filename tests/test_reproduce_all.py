"""`python -m metriclab reproduce all --fast` in the default suite: every experiment of every paper
module runs in its fast mode and writes a markdown table and a CSV with the paper's numbers beside
ours. (The full runs are `-m slow`; their committed outputs live in docs/reproduction/.)"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from metriclab.__main__ import main
from metriclab.reproduce import RESULT_COLUMNS, experiments

EXPERIMENTS = experiments()


@pytest.fixture(scope="module")
def fast_outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduction")
    code = main(["reproduce", "all", "--fast", "--out", str(out), "--quiet", "--no-cache"])
    return out, code


def test_every_paper_has_its_experiments():
    papers = {name.split("-")[0] for name in EXPERIMENTS}
    assert papers == {"tdl", "zhang", "tangent", "kpca"}


def test_reproduce_all_fast_runs_every_experiment(fast_outputs):
    out, code = fast_outputs
    failed = [name for name in EXPERIMENTS if "The run failed" in (out / f"{name}.md").read_text()]
    assert not failed, f"experiments failed: {failed}; see their markdown for the traceback"
    assert code == 0


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_each_output_has_paper_and_ours_filled(fast_outputs, name):
    out, _ = fast_outputs
    md = (out / f"{name}.md").read_text()
    assert "The run failed" not in md, md[-2000:]
    table = pd.read_csv(out / f"{name}.csv")
    assert list(table.columns[: len(RESULT_COLUMNS)]) == list(RESULT_COLUMNS)
    assert len(table) > 0
    ours = pd.to_numeric(table["ours_mean"], errors="coerce")
    paper = pd.to_numeric(table["paper"], errors="coerce")
    notes = table["note"].fillna("").astype(str).str.strip()
    assert ours.notna().any(), "no row carries our number"
    # A paper's table may list methods we do not implement (no number of ours), and a figure has
    # no number to copy: such rows must say why in their note, unless the experiment is a figure.
    is_figure = "figure" in EXPERIMENTS[name].title.lower()
    no_paper = paper.isna() & (notes == "") & (not is_figure)
    no_ours = ours.isna() & (notes == "")
    unexplained = table[no_paper | no_ours]
    assert unexplained.empty, (
        f"rows missing the paper's or our number without a note:\n{unexplained}"
    )
    assert (table["method"].astype(str).str.len() > 0).all()
    assert (table["protocol"].astype(str).str.len() > 0).all()
    assert "| setting | method | metric | paper | ours (mean ± std) |" in md


COMMITTED = Path(__file__).resolve().parents[1] / "docs" / "reproduction"


# Committed tables known to be stale, each with the reason; strict, so that a regenerated table
# makes its entry fail until it is removed from here.
NOT_REGENERATED: dict[str, str] = {}


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=NOT_REGENERATED[n]))
        if n in NOT_REGENERATED
        else n
        for n in sorted(EXPERIMENTS)
    ],
)
def test_committed_table_has_the_columns_and_rows_the_current_code_writes(fast_outputs, name):
    """A stale table fails here: every experiment has a committed full-mode table in
    docs/reproduction/ (regenerate with `python -m metriclab reproduce all --out
    docs/reproduction`), with the columns the current code writes and every (setting, method) row
    of the current code's fast run (whose settings are a subset of the full run's)."""
    out, _ = fast_outputs
    assert (COMMITTED / f"{name}.csv").exists(), f"no committed table for {name}"
    committed = pd.read_csv(COMMITTED / f"{name}.csv")
    current = pd.read_csv(out / f"{name}.csv")
    assert list(committed.columns) == list(current.columns)
    rows = set(zip(committed["setting"], committed["method"], strict=True))
    missing = set(zip(current["setting"], current["method"], strict=True)) - rows
    assert not missing, f"{name}.csv lacks rows the current code writes: {sorted(missing)[:5]}"
    header = (COMMITTED / f"{name}.md").read_text(encoding="utf-8").splitlines()[:6]
    assert any(line.startswith("- mode: full") for line in header), header


def test_every_committed_table_belongs_to_an_experiment():
    stems = {p.stem for p in COMMITTED.glob("*.csv")} | {
        p.stem for p in COMMITTED.glob("*.md") if p.stem != "README"
    }
    assert stems == set(EXPERIMENTS)
