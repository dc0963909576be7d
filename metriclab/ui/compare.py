"""The Compare page's work: repeated-split comparisons through `metriclab.evaluation.compare`,
their summary and figures."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go

from metriclab import plots
from metriclab.methods import REGISTRY, projection
from metriclab.ui.shared.runs import Progress, RunMemo

PROTOCOLS = {
    "auto": "each method's own",
    "transductive": "transductive (all points seen)",
    "inductive": "inductive (fit on labeled only)",
}


EUCLIDEAN_LABEL = "Euclidean, all features"


@dataclass(frozen=True)
class ComparisonRequest:
    """One comparison of the Compare page: what is run, memoised, written into the link and turned
    into the code snippet. `scaling` is 'auto' (each data set's default) or one preprocess key."""

    sets: tuple[str, ...]
    methods: tuple[str, ...]
    n_splits: int = 5
    fraction: float = 0.1
    protocol: str = "auto"
    scaling: str = "auto"
    seed: int = 0

    def __post_init__(self):
        object.__setattr__(self, "sets", tuple(self.sets))
        object.__setattr__(self, "methods", tuple(self.methods))

    def link(self) -> dict:
        """The Compare page's URL values of this comparison."""
        return {
            "cds": list(self.sets),
            "cm": list(self.methods),
            "splits": self.n_splits,
            "cfrac": self.fraction,
            "protocol": self.protocol,
            "cpp": self.scaling,
        }


def output_dimension(method: str) -> int | None:
    """The number of dimensions a learned embedding maps to at its defaults (None: the input
    space itself, PCA, or a classifier)."""
    spec = REGISTRY[method]
    if spec.output != "embedding" or spec.has("input_space") or spec.has("projection"):
        return None
    dim = spec.defaults().get("n_components")
    return None if dim is None else int(dim)


def pca_label(dim: int) -> str:
    return f"PCA to {dim}-D"


def with_baselines(methods: tuple[str, ...]) -> list[tuple[str, dict]]:
    """The chosen methods at their defaults, and PCA to each of their output dimensions: the
    unsupervised map of the same size, fitted on the same splits with the same scaler (the
    Euclidean input space is added by compare itself). A chosen PCA of that size is not repeated."""
    pca = projection()
    if pca is None:
        return [(m, {}) for m in methods]
    pca_default = pca.defaults().get("n_components")
    dims = sorted({d for d in map(output_dimension, methods) if d is not None})
    baselines = [
        (pca.key, {"n_components": d})
        for d in dims
        if not (pca.key in methods and d == pca_default)
    ]
    return baselines + [(m, {}) for m in methods]


def _pca_dimension(params: str) -> int:
    import json

    return int(json.loads(params).get("n_components", projection().defaults()["n_components"]))


def _comparison(comparison: ComparisonRequest, progress: Progress | None = None) -> pd.DataFrame:
    """compare() over the named data sets and registry methods at their defaults."""
    from metriclab.evaluation import compare
    from metriclab.methods import input_space
    from metriclab.ui.shared.session_data import UPLOAD_PREFIX, dataset

    data = [dataset(n) if n.startswith(UPLOAD_PREFIX) else n for n in comparison.sets]
    unknown = [m for m in comparison.methods if m not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}")
    results = compare(
        data if len(data) > 1 else data[0],
        with_baselines(comparison.methods),
        n_splits=int(comparison.n_splits),
        fraction=float(comparison.fraction),
        protocol=comparison.protocol,
        seed=comparison.seed,
        progress=progress,
        preprocess=comparison.scaling,
    )
    euclidean, pca = input_space(), projection()
    if euclidean is not None:
        results.loc[results["method"] == euclidean.key, "label"] = EUCLIDEAN_LABEL
    if pca is not None:
        rows = results["method"] == pca.key
        results.loc[rows, "label"] = [
            pca_label(_pca_dimension(p)) for p in results.loc[rows, "params"]
        ]
    return results


_comparisons = RunMemo(_comparison, max_entries=16)


def run_comparison(comparison: ComparisonRequest, progress: Progress | None = None) -> pd.DataFrame:
    """The comparison's per-split results, memoised process-wide by the request (a repeat Run, in
    this session or another, returns at once); `progress` is called only while computing."""
    from metriclab.ui.shared.session_data import require_visible

    for name in comparison.sets:  # before the memo: another session's upload stays out of reach
        require_visible(name)
    return _comparisons(comparison, progress=progress)


def failure_summary(failed: pd.DataFrame, total: int) -> str:
    """Which fits failed and why: each method (as the table names it) on each data set with its
    reason, once per distinct reason."""
    label = "label" if "label" in failed.columns else "method"
    reasons = {}
    for (dataset, name, status), rows in failed.groupby(["dataset", label, "status"], sort=False):
        reasons[f"**{name}** on {dataset} ({len(rows)} split(s)): {status}"] = None
    shown = list(reasons)[:6]
    more = f"; and {len(reasons) - 6} more" if len(reasons) > 6 else ""
    return f"{len(failed)} of {total} fits failed — " + "; ".join(shown) + more


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
