"""The Compare page's work: repeated-split comparisons through `metriclab.evaluation.compare`,
their summary and figures."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go

from metriclab import plots
from metriclab.methods import REGISTRY
from metriclab.ui.runs import Progress, RunMemo

PROTOCOLS = {
    "auto": "each method's own",
    "transductive": "transductive (all points seen)",
    "inductive": "inductive (fit on labeled only)",
}


def _comparison(
    sets: tuple[str, ...],
    methods: tuple[str, ...],
    n_splits: int,
    fraction: float,
    protocol: str,
    seed: int = 0,
    preprocess: str = "auto",
    progress: Progress | None = None,
) -> pd.DataFrame:
    """compare() over the named data sets and registry methods at their defaults."""
    from metriclab.evaluation import compare
    from metriclab.ui import cache

    data = [cache.dataset(name) if name.startswith(cache.UPLOAD_PREFIX) else name for name in sets]
    unknown = [m for m in methods if m not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}")
    return compare(
        data if len(data) > 1 else data[0],
        {m: {} for m in methods},
        n_splits=int(n_splits),
        fraction=float(fraction),
        protocol=protocol,
        seed=seed,
        progress=progress,
        preprocess=preprocess,
    )


_comparisons = RunMemo(_comparison, max_entries=16)


def run_comparison(
    sets: tuple[str, ...],
    methods: tuple[str, ...],
    n_splits: int,
    fraction: float,
    protocol: str,
    progress: Progress | None = None,
    seed: int = 0,
    preprocess: str = "auto",
) -> pd.DataFrame:
    """The comparison's per-split results, memoised process-wide by the small arguments (a repeat
    Run, in this session or another, returns at once); `progress` is called only while computing."""
    from metriclab.ui import cache

    for name in sets:  # before the memo: another session's upload stays out of reach
        cache.require_visible(name)
    key = (
        tuple(sets),
        tuple(methods),
        int(n_splits),
        float(fraction),
        protocol,
        int(seed),
        str(preprocess),
    )
    return _comparisons(*key, progress=progress)


def summary_table(results: pd.DataFrame) -> pd.DataFrame:
    from metriclab.evaluation import summarize

    summary = summarize(results)
    keep = [
        c
        for c in (
            "dataset",
            "label",
            "method",
            "protocol",
            "preprocess",
            "n_splits",
            "accuracy_mean",
            "accuracy_std",
            "diff_vs_baseline",
            "wins",
            "ties",
            "losses",
            "p_value",
            "fit_time_s",
        )
        if c in summary.columns
    ]
    return summary[keep]


def comparison_figures(results: pd.DataFrame) -> tuple[go.Figure, go.Figure]:
    """Bars of mean ± std per data set and method, and boxes of the per-split accuracies."""
    ok = results[results["status"] == "ok"].copy()
    label = "label" if "label" in ok.columns else "method"
    agg = (
        ok.groupby(["dataset", label], sort=False)["accuracy"]
        .agg(["mean", "std"])
        .reset_index()
        .rename(columns={label: "method"})
    )
    boxes_input = ok.rename(columns={label: "label"}) if label != "label" else ok
    return plots.comparison_chart(agg), plots.comparison_boxes(boxes_input)


def figure_html(fig: go.Figure) -> bytes:
    """A self-contained HTML file of the figure (plotly.js inlined, so it opens offline).

    The same figure gives the same bytes (a fixed element id instead of plotly's random one), so
    the download button keeps one media file across reruns instead of replacing it while a click
    is being served."""
    html = fig.to_html(include_plotlyjs=True, full_html=True, div_id="metriclab-figure")
    return html.encode()
