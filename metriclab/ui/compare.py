"""The Compare page's view (`render`; pages/compare.py only routes here) and its work:
repeated-split comparisons through `metriclab.evaluation.compare`, their summary and figures."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from metriclab import plots
from metriclab.evaluation.summary import adjusted_p_values, collapsed_splits
from metriclab.methods import REGISTRY, input_space, projection
from metriclab.ui.embed.presets import page_default
from metriclab.ui.shared import downloads, presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.code_snippets import compare_snippet, session_sets, show_code
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import CLASSIFIER_KEY
from metriclab.ui.shared.pickers import dataset_choices, dataset_label, explainer
from metriclab.ui.shared.preprocessing import scaling_notes, scaling_picker_many
from metriclab.ui.shared.quality_panel import classifier_label, classifier_widget
from metriclab.ui.shared.runs import Progress, RunMemo
from metriclab.ui.shared.state import form_is_ready, mark_form_drawn, publish, seed_from_url
from metriclab.ui.shared.widgets import display_table

PROTOCOLS = {
    "auto": "each method's own",
    "transductive": "transductive (all points seen)",
    "inductive": "inductive (fit on labeled only)",
}


EUCLIDEAN_LABEL = "Euclidean, all features"
# the summary's two baselines: their names in its columns, and on the page's narrow headers
EUCLIDEAN, SAME_DIMENSION = "Euclidean (all features)", "PCA (same dimension)"
BASELINE_NAMES = {EUCLIDEAN: "Euclidean", SAME_DIMENSION: "PCA, same dim."}


@dataclass(frozen=True)
class ComparisonRequest:
    """One comparison of the Compare page: what is run, memoised, written into the link and turned
    into the code snippet. `scaling` is 'auto' (each data set's default) or one preprocess key."""

    sets: tuple[str, ...]
    methods: tuple[str, ...]
    n_splits: int = 10  # five or fewer cannot show a difference at 0.05 (p_note)
    fraction: float = 0.1
    protocol: str = "auto"
    scaling: str = "auto"
    seed: int = 0
    classifier: str = "1nn"  # the rule in each embedding (quality_panel.CLASSIFIERS)

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
            CLASSIFIER_KEY: self.classifier,
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


def snippet_labels() -> list[str]:
    """The lines of the page's code that give the baselines' rows the page's names (as
    `_comparison` does): the Euclidean input space, PCA to its output dimension."""
    euclidean, pca = input_space(), projection()
    lines = []
    if euclidean is not None:
        lines.append(
            f'results.loc[results["method"] == {euclidean.key!r}, "label"] = {EUCLIDEAN_LABEL!r}'
        )
    if pca is not None:
        default = pca.defaults()["n_components"]
        lines += [
            "# PCA to each learned map's output dimension: the page's same-dimension baseline",
            f'pca = results["method"] == {pca.key!r}',
            'results.loc[pca, "label"] = [',
            f"    f\"PCA to {{json.loads(p).get('n_components', {default})}}-D\"",
            '    for p in results.loc[pca, "params"]',
            "]",
        ]
    return lines


def _pca_dimension(params: str) -> int:
    import json

    return int(json.loads(params).get("n_components", projection().defaults()["n_components"]))


def _comparison(comparison: ComparisonRequest, progress: Progress | None = None) -> pd.DataFrame:
    """compare() over the named data sets and registry methods at their defaults."""
    from metriclab.evaluation import CompareRequest, compare
    from metriclab.methods import input_space
    from metriclab.ui.shared.session_data import UPLOAD_PREFIX, dataset

    data = [dataset(n) if n.startswith(UPLOAD_PREFIX) else n for n in comparison.sets]
    unknown = [m for m in comparison.methods if m not in REGISTRY]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}")
    request = CompareRequest(
        data,
        with_baselines(comparison.methods),
        n_splits=int(comparison.n_splits),
        fraction=float(comparison.fraction),
        protocol=comparison.protocol,
        classifier=comparison.classifier,
        seed=comparison.seed,
        preprocess=comparison.scaling,
    )
    results = compare(request, progress=progress)
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
        EUCLIDEAN: [EUCLIDEAN_LABEL] * len(out),
        SAME_DIMENSION: [None if d is None else pca_label(d) for d in dims],
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
        if name == SAME_DIMENSION:
            out["same-dimension baseline"] = baselines
        out[f"diff vs {name}"] = diffs
        out[f"W/T/L vs {name}"] = wtls
        out[f"p vs {name}"] = ps
    adjust_for_the_table(out)
    if "fit_time_s" in summary:
        out["fit_time_s"] = summary["fit_time_s"]
    out["collapsed"] = summary["collapsed"]
    # in view at a projector's width (1280 px): each difference beside the accuracy it is taken
    # from with its wins and its tests, the Euclidean one first (issue 36)
    first = ["dataset", "label", "accuracy_mean", "accuracy_std"]
    for name in comparisons:
        first += [f"diff vs {name}", f"W/T/L vs {name}", f"p vs {name}", f"q vs {name}"]
    first.append("same-dimension baseline")
    return out[first + [c for c in out.columns if c not in first]]


def adjust_for_the_table(out: pd.DataFrame) -> None:
    """The `q vs <baseline>` columns: every p of the table (both baselines) adjusted together
    (`adjusted_p_values`: Benjamini-Hochberg), so that among the differences with q below 0.05
    about 5 % are expected to be false discoveries whatever the number of tests; a cell without a
    test stays empty."""
    q = adjusted_p_values(out[[f"p vs {name}" for name in BASELINE_NAMES]].to_numpy(dtype=float))
    for k, name in enumerate(BASELINE_NAMES):
        out[f"q vs {name}"] = q[:, k]


def collapse_note(summary: pd.DataFrame) -> str | None:
    """The methods whose embedding collapsed on some splits (their scored points on fewer than a
    tenth as many distinct positions: the accuracy mostly the tie-breaking of equal distances),
    each with its data set and how many of its splits, or None."""
    hit = summary[summary["collapsed"] > 0]
    if hit.empty:
        return None
    parts = [
        f"**{row.label}** on {row.dataset} ({row.collapsed} of {row.n_splits} splits)"
        for row in hit.itertuples()
    ]
    return (
        "Collapsed embeddings: "
        + "; ".join(parts)
        + ". On those splits the scored points sit on fewer than a tenth as many distinct "
        "positions, so the accuracy is mostly the tie-breaking of equal distances, not what the "
        "method learned. The Embed page shows such a view with its cause and a remedy."
    )


def p_text(p: float) -> str:
    """A p-value as a reader quotes it: three significant digits (as the note's smallest p),
    '<0.001' below."""
    return "<0.001" if p < 0.001 else f"{p:.3g}"


# What the summary's columns are called on the page (its CSV keeps the names above): the
# accuracies at three decimals (0.1 point, finer than any split's test set resolves).
SUMMARY_FORMATS = {
    "accuracy_mean": "{:.3f}".format,
    "accuracy_std": "{:.3f}".format,
    "fit_time_s": "{:.2f}".format,
    **{f"diff vs {name}": "{:+.3f}".format for name in BASELINE_NAMES},
    **{f"p vs {name}": p_text for name in BASELINE_NAMES},
    **{f"q vs {name}": p_text for name in BASELINE_NAMES},
}


def summary_columns() -> dict:
    """st.dataframe's column_config of the summary: short headers (the full name on hover) and
    the data set and method pinned while the table scrolls sideways."""
    column = st.column_config.Column
    config = {
        "dataset": column("data set", pinned=True),
        "label": column("method", pinned=True),
        "accuracy_mean": column("accuracy", help="mean over the splits"),
        "accuracy_std": column("± std", help="standard deviation over the splits"),
        "same-dimension baseline": column("PCA baseline"),
        "collapsed": column(
            "collapsed",
            help="splits on which the embedding collapsed (its scored points on "
            "fewer than a tenth as many distinct positions)",
        ),
    }
    for name, short in BASELINE_NAMES.items():
        config[f"diff vs {name}"] = column(
            f"Δ vs {short}", help=f"mean paired difference vs {name}"
        )
        config[f"W/T/L vs {name}"] = column("W/T/L", help=f"splits won/tied/lost vs {name}")
        config[f"p vs {name}"] = column("p", help=f"two-sided Wilcoxon signed-rank p vs {name}")
        config[f"q vs {name}"] = column(
            "q", help=f"p vs {name} adjusted for all the table's tests (Benjamini-Hochberg)"
        )
    return config


def p_values_in(summary: pd.DataFrame) -> int:
    """How many tests the summary's p columns hold (a baseline's own row has none)."""
    return int(sum(summary[f"p vs {name}"].notna().sum() for name in BASELINE_NAMES))


def p_note(n_splits: int, n_tests: int = 1) -> str:
    """What the p column can say with `n_splits` splits: each split draws its labelled set anew,
    so the differences are independent given the data set and the test speaks of random splits of
    this data set, not of new data; with n splits the two-sided Wilcoxon test's smallest p is
    2 / 2^n, so 5 splits or fewer can never show a difference at 0.05; with `n_tests` p values
    in the table, about 0.05 × n_tests would fall below 0.05 by chance alone (no correction for
    multiple comparisons is applied: each p is one test)."""
    smallest = 2.0 / 2**n_splits
    note = (
        "p: two-sided Wilcoxon signed-rank test of the per-split differences; it speaks of random "
        "splits of these data sets, not of new data from their source."
    )
    if n_splits < 2:
        note += " With one split there is no test (p is empty)."
    elif smallest >= 0.05:
        note += (
            f" With {n_splits} splits its smallest possible p is {smallest:.3g}: no difference "
            "here can be shown at the 0.05 level, however large (6 splits or more can)."
        )
    elif n_tests > 1:
        note += (
            f" Each p is one test, uncorrected: of the table's {n_tests}, about "
            f"{0.05 * n_tests:.1f} would fall below 0.05 by chance if no method differed from "
            "its baseline. q adjusts them for the table's tests together (Benjamini-Hochberg): "
            "among the differences with q below 0.05, about 5 % are expected to be false."
        )
    return note


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
    # the splits whose embedding collapsed: their bar hatched
    agg["collapsed"] = [collapsed_splits(g) for _, g in ok.groupby(["dataset", label], sort=False)]
    boxes_input = ok.rename(columns={label: "label"}) if label != "label" else ok
    return plots.comparison_chart(agg), plots.comparison_boxes(boxes_input)


def figure_html(fig: go.Figure) -> bytes:
    """A self-contained HTML file of the figure (plotly.js inlined, so it opens offline).

    The same figure gives the same bytes (a fixed element id instead of plotly's random one), so
    the download button keeps one media file across reruns instead of replacing it while a click
    is being served."""
    html = fig.to_html(include_plotlyjs=True, full_html=True, div_id="metriclab-figure")
    return html.encode()


DOWNLOADS = {  # file suffix -> (widget key, MIME type): the keys the page's tests know
    ".csv": ("dl_csv", "text/csv"),
    "-summary.csv": ("dl_summary", "text/csv"),
    ".html": ("dl_html", "text/html"),
}
STEM_KEY = "_compare_stem"  # the file names' stem of the comparison shown


def files_stem(comparison: ComparisonRequest) -> str:
    """The stem of the comparison's file names: its data sets, methods and number of splits
    (``metriclab-comparison-wine-glass-nca-lmnn-10-splits``)."""
    from metriclab.ui.shared.fit_request import DataRef

    sets = [downloads.data_stem(DataRef(name)) for name in comparison.sets]
    return downloads.file_name(
        "comparison", *sets, *comparison.methods, f"{int(comparison.n_splits)}-splits"
    )


def _download(column, what: str, data, suffix: str) -> None:
    """A download button in `column` for `data` (bytes), saved as the comparison's stem and
    `suffix`."""
    key, mime = DOWNLOADS[suffix]
    stem = st.session_state.get(STEM_KEY, "metriclab-comparison")
    column.download_button(
        f"Download {what}",
        data,
        file_name=f"{stem}{suffix}",
        mime=mime,
        key=key,
        on_click="ignore",
    )


def _more_downloads(bars: go.Figure, boxes: go.Figure, code: str) -> None:
    """The figures as SVG for slides and the notebook that reruns the comparison."""
    stem = st.session_state.get(STEM_KEY, "metriclab-comparison")
    with downloads.download_area("Download: SVG figures, notebook"):
        c1, c2, c3 = st.columns(3)
        downloads.svg_button(c1, bars, stem=f"{stem}-bars", key="dl_svg_bars", what="Bar chart")
        downloads.svg_button(c2, boxes, stem=f"{stem}-boxes", key="dl_svg_boxes", what="Box plot")
        if code:
            downloads.notebook_button(
                c3,
                code,
                title="The Compare page's comparison",
                stem=stem,
                key="dl_notebook",
                figure_code=COMPARISON_FIGURE,
            )


COMPARISON_FIGURE = "\n".join(
    [
        "from metriclab.plotting import comparison",
        "",
        "# one box per method and data set: the accuracies over the splits",
        "fig = comparison(results)",
        "fig",
    ]
)


def render() -> None:
    """The page below its title (pages/compare.py calls it)."""
    explainer(
        "Each method is fitted on the same seeded random splits of each data set (a share of each "
        "class labeled, the rest held out) and scored by the chosen classifier in its embedding (1-NN, "
        "5-NN or the nearest class mean; a classifier method's own predictions). Bars are the mean accuracy over the splits with ±1 standard "
        "deviation. Two baselines run on the same splits with the same feature scaling: the Euclidean "
        "input space with all its features, and PCA to the output dimension of the learned maps (an "
        "unsupervised map of the same size). The table gives each method's paired difference to both, "
        "with wins/ties/losses. Nothing runs until you press **Run**.",
        [
            r"\text{acc} = \frac{1}{|U|}\sum_{i\in U} [\hat y_{1\text{-NN}}(z_i) = y_i],\quad z_i = f(x_i)"
        ],
    )

    available = dataset_choices(include_uploads=True)
    default_sets = [n for n in ("iris", "wine") if n in available] or available[:1]
    vector_methods = [k for k, s in REGISTRY.items() if not s.has("input_space")]
    default_methods = page_default("compare", 3, accept=lambda s: not s.has("input_space"))

    # Run is enabled only once this form has been drawn with its values in the session: on a session's
    # first run (or on coming back from another page, which drops the form's values) the button is
    # drawn disabled and the page reruns at once, so no click can submit a form the server has not
    # filled yet (a click during the first run once submitted empty data sets and methods).
    form_ready = form_is_ready("compare", ("cds", "cm"))

    with st.form("compare_form"):
        # Each widget is also given its session value as its default: a browser that draws the form
        # afresh (under load, after a rerun) falls back to the widget's default, and with none it
        # submitted empty data sets and methods, 1 split and 5 % (seen in the two-session test).
        seed_from_url("cds", default_sets, options=available, label="Data sets")
        seed_from_url("cm", default_methods, options=vector_methods, label="Methods")
        seed_from_url("splits", ComparisonRequest.n_splits, bounds=(1, 30), label="Splits")
        seed_from_url("cfrac", 0.1, options=[0.05, 0.1, 0.2, 0.3, 0.5], label="Labeled fraction")
        seed_from_url("protocol", "auto", options=list(PROTOCOLS), label="Protocol")
        # the widgets take their values from the session state (seeded above), no default beside it
        sets = st.multiselect("Data sets", available, key="cds", format_func=dataset_label)
        methods = st.multiselect(
            "Methods (the Euclidean baseline is always added)",
            vector_methods,
            key="cm",
            format_func=lambda k: REGISTRY[k].label,
        )
        c1, c2, c3, c4 = st.columns(4)
        n_splits = c1.slider("Splits", 1, 30, key="splits")
        fraction = c2.select_slider(
            "Labeled fraction",
            [0.05, 0.1, 0.2, 0.3, 0.5],
            key="cfrac",
            format_func="{:.0%}".format,
        )
        protocol = c3.selectbox(
            "Protocol",
            list(PROTOCOLS),
            key="protocol",
            format_func=PROTOCOLS.get,
        )
        classifier = classifier_widget(c4)
        scaling = scaling_picker_many(st)
        submitted = st.form_submit_button("Run", type="primary", disabled=not form_ready)
    mark_form_drawn("compare", rerun=not form_ready)

    comparison = ComparisonRequest(
        sets, methods, n_splits, fraction, protocol, scaling, classifier=classifier
    )
    publish(comparison.link())

    if submitted:
        if not sets or not methods:
            st.error("choose at least one data set and one method")
        else:
            bar = st.progress(0.0, text="starting")

            def progress(done, total, message):
                bar.progress(min(1.0, done / max(total, 1)), text=f"{done}/{total} · {message}")

            results = guarded(run_comparison, comparison, progress=progress, context="comparison")
            bar.empty()
            if results is not None:
                st.session_state["_compare_results"] = results
                st.session_state["_compare_scaling"] = scaling_notes(sets, scaling)
                code = compare_snippet(
                    comparison,
                    session_sets(sets),
                    with_baselines(comparison.methods),
                    snippet_labels(),
                )
                st.session_state["_compare_code"] = code
                st.session_state[STEM_KEY] = files_stem(comparison)
                st.session_state["_compare_classifier"] = classifier

    results = st.session_state.get("_compare_results")
    if results is None:
        st.info("Choose data sets and methods, then press Run.")
        st.stop()

    st.markdown(st.session_state.get("_compare_scaling", ""))
    scored_by = st.session_state.get("_compare_classifier", "1nn")
    st.caption(f"Each embedding scored by the **{classifier_label(scored_by)}** rule.")
    failed = results[results["status"] != "ok"]
    if len(failed):
        st.warning(failure_summary(failed, len(results)))
    summary = guarded(summary_table, results, context="summary")
    said = None if summary is None else collapse_note(summary)
    if said:
        st.warning(said, icon=":material/warning:")
    bars, boxes = comparison_figures(results)
    tab_bars, tab_boxes = st.tabs(["Mean ± std", "Per split"])
    draw_chart(tab_bars, presentation.fit_screen(bars), key="compare_bars")
    draw_chart(tab_boxes, boxes, key="compare_boxes")
    if summary is not None:
        st.dataframe(
            display_table(summary, SUMMARY_FORMATS),
            hide_index=True,
            column_config=summary_columns(),
        )
        st.caption(
            "**Δ vs Euclidean**: against the same classifier in the input space with every "
            "feature. **Δ vs PCA**: against PCA to the method's own output dimension (the *PCA "
            "baseline* column), fitted on the same splits with the same scaling, so a 2-D map is "
            "judged against another 2-D map. W/T/L: splits won/tied/lost. "
            + p_note(int(summary["n_splits"].min()), p_values_in(summary))
        )
    c1, c2, c3 = st.columns(3)
    # Downloads carry their bytes (not a callable generated on click, whose deferred file a rerun
    # removes while the click is served) and do not rerun the page.
    _download(c1, "results (CSV)", results.to_csv(index=False).encode(), ".csv")
    if summary is not None:
        _download(c2, "summary (CSV)", summary.to_csv(index=False).encode(), "-summary.csv")
    html = st.session_state.get("_compare_html")
    if html is None or html[0] is not results:
        html = (results, figure_html(bars))
        st.session_state["_compare_html"] = html
    _download(c3, "figure (HTML)", html[1], ".html")
    code = st.session_state.get("_compare_code", "")
    show_code(code)
    _more_downloads(bars, boxes, code)
    st.caption(
        "The HTML figure is self-contained (plotly.js inlined) and opens offline; the camera icon on "
        "the chart's toolbar saves it as PNG."
    )
