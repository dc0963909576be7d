"""The Compare page's work: repeated-split comparisons through `metriclab.evaluation.compare`,
their summary and figures."""

from __future__ import annotations

import math

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


EUCLIDEAN_LABEL = "Euclidean, all features"


def output_dimension(method: str) -> int | None:
    """The number of dimensions a learned embedding maps to at its defaults (None: the input
    space itself, PCA, or a classifier)."""
    spec = REGISTRY[method]
    if spec.output != "embedding" or method in ("euclidean", "pca"):
        return None
    dim = spec.defaults().get("n_components")
    return None if dim is None else int(dim)


def pca_label(dim: int) -> str:
    return f"PCA to {dim}-D"


def with_baselines(methods: tuple[str, ...]) -> list[tuple[str, dict]]:
    """The chosen methods at their defaults, and PCA to each of their output dimensions: the
    unsupervised map of the same size, fitted on the same splits with the same scaler (the
    Euclidean input space is added by compare itself). A chosen PCA of that size is not repeated."""
    pca_default = REGISTRY["pca"].defaults().get("n_components")
    dims = sorted({d for d in map(output_dimension, methods) if d is not None})
    baselines = [
        ("pca", {"n_components": d}) for d in dims if not ("pca" in methods and d == pca_default)
    ]
    return baselines + [(m, {}) for m in methods]


def _pca_dimension(params: str) -> int:
    import json

    return int(json.loads(params).get("n_components", REGISTRY["pca"].defaults()["n_components"]))


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
    results = compare(
        data if len(data) > 1 else data[0],
        with_baselines(methods),
        n_splits=int(n_splits),
        fraction=float(fraction),
        protocol=protocol,
        seed=seed,
        progress=progress,
        preprocess=preprocess,
    )
    results.loc[results["method"] == "euclidean", "label"] = EUCLIDEAN_LABEL
    pca = results["method"] == "pca"
    results.loc[pca, "label"] = [pca_label(_pca_dimension(p)) for p in results.loc[pca, "params"]]
    return results


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


def paired_differences(results: pd.DataFrame, baseline: str) -> pd.DataFrame:
    """Each (data set, label)'s mean paired difference to the rows labelled `baseline` on the same
    splits, its wins/ties/losses and Wilcoxon p (metriclab.evaluation.summarize)."""
    from metriclab.evaluation import summarize

    marked = results.copy()
    marked.loc[marked["label"] == baseline, "method"] = "_baseline"
    summary = summarize(marked, baseline="_baseline")
    return pd.DataFrame(
        {
            "diff": summary["diff_vs_baseline"].to_numpy(),
            "wtl": [
                f"{w}/{t}/{lo}"
                for w, t, lo in zip(
                    summary["wins"], summary["ties"], summary["losses"], strict=True
                )
            ],
            "p": summary["p_value"].to_numpy(),
        },
        index=pd.MultiIndex.from_frame(summary[["dataset", "label"]]),
    )


def summary_table(results: pd.DataFrame) -> pd.DataFrame:
    """Per data set and method: mean ± std accuracy, and the paired differences on the same splits
    against the Euclidean input space (all features) and against PCA to the method's own output
    dimension; each column names its baseline, a baseline's own row leaves its column empty."""
    from metriclab.evaluation import summarize

    summary = summarize(results).reset_index(drop=True)
    keep = ["dataset", "label", "method", "protocol", "preprocess", "n_splits"]
    out = summary[[c for c in keep if c in summary] + ["accuracy_mean", "accuracy_std"]].copy()
    keys = list(zip(out["dataset"], out["label"], strict=True))
    dims = [output_dimension(m) if m in REGISTRY else None for m in out["method"]]
    comparisons = {
        "Euclidean (all features)": [EUCLIDEAN_LABEL] * len(out),
        "PCA (same dimension)": [None if d is None else pca_label(d) for d in dims],
    }
    for name, baselines in comparisons.items():
        diffs, wtls, ps = [], [], []
        tables = {b: paired_differences(results, b) for b in set(baselines) - {None}}
        for key, baseline in zip(keys, baselines, strict=True):
            row = None
            if baseline is not None and key[1] != baseline and key in tables[baseline].index:
                row = tables[baseline].loc[key]
            diffs.append(math.nan if row is None else float(row["diff"]))
            wtls.append(None if row is None else row["wtl"])
            ps.append(math.nan if row is None else float(row["p"]))
        if name.startswith("PCA"):
            out["same-dimension baseline"] = baselines
        out[f"diff vs {name}"] = diffs
        out[f"W/T/L vs {name}"] = wtls
        out[f"p vs {name}"] = ps
    if "fit_time_s" in summary:
        out["fit_time_s"] = summary["fit_time_s"]
    first = ["dataset", "label", "accuracy_mean", "accuracy_std", "same-dimension baseline"]
    first += [f"{what} vs {name}" for name in reversed(comparisons) for what in ("diff", "W/T/L")]
    return out[first + [c for c in out.columns if c not in first]]  # the differences in view


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
