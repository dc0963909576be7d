"""Compare page: several methods on several data sets over repeated random splits, behind a Run button."""

import streamlit as st

from metriclab.methods import REGISTRY
from metriclab.ui.compare import (
    PROTOCOLS,
    ComparisonRequest,
    comparison_figures,
    failure_summary,
    figure_html,
    run_comparison,
    summary_table,
)
from metriclab.ui.embed.presets import page_default
from metriclab.ui.shared import presentation
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.code_snippets import compare_snippet, session_sets, show_code
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.pickers import dataset_choices, dataset_label, explainer
from metriclab.ui.shared.preprocessing import scaling_notes, scaling_picker_many
from metriclab.ui.shared.router import ensure_router
from metriclab.ui.shared.state import form_is_ready, mark_form_drawn, publish, seed_from_url
from metriclab.ui.shared.widgets import display_table

ensure_router()
st.title("Compare")
explainer(
    "Each method is fitted on the same seeded random splits of each data set (a share of each "
    "class labeled, the rest held out) and scored by the 1-NN rule in its embedding (or its own "
    "predictions for classifiers). Bars are the mean accuracy over the splits with ±1 standard "
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
    seed_from_url("splits", 5, bounds=(1, 30), label="Splits")
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
    c1, c2, c3 = st.columns(3)
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
    scaling = scaling_picker_many(st)
    submitted = st.form_submit_button("Run", type="primary", disabled=not form_ready)
mark_form_drawn("compare", rerun=not form_ready)

comparison = ComparisonRequest(sets, methods, n_splits, fraction, protocol, scaling)
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
            code = compare_snippet(comparison, session_sets(sets))
            st.session_state["_compare_code"] = code

results = st.session_state.get("_compare_results")
if results is None:
    st.info("Choose data sets and methods, then press Run.")
    st.stop()

st.markdown(st.session_state.get("_compare_scaling", ""))
failed = results[results["status"] != "ok"]
if len(failed):
    st.warning(failure_summary(failed, len(results)))
summary = guarded(summary_table, results, context="summary")
bars, boxes = comparison_figures(results)
tab_bars, tab_boxes = st.tabs(["Mean ± std", "Per split"])
draw_chart(tab_bars, presentation.fit_screen(bars), key="compare_bars")
draw_chart(tab_boxes, boxes, key="compare_boxes")
if summary is not None:
    st.dataframe(display_table(summary), hide_index=True)
    st.caption(
        "**diff vs Euclidean (all features)**: against 1-NN in the input space with every feature. "
        "**diff vs PCA (same dimension)**: against PCA to the method's own output dimension (the "
        "*same-dimension baseline* column), fitted on the same splits with the same scaling, so a "
        "2-D map is judged against another 2-D map. W/T/L: splits won/tied/lost; p: Wilcoxon."
    )
c1, c2, c3 = st.columns(3)
# Downloads carry their bytes (not a callable generated on click, whose deferred file a rerun
# removes while the click is served) and do not rerun the page.
c1.download_button(
    "Download results (CSV)",
    results.to_csv(index=False).encode(),
    file_name="metriclab-comparison.csv",
    mime="text/csv",
    key="dl_csv",
    on_click="ignore",
)
if summary is not None:
    c2.download_button(
        "Download summary (CSV)",
        summary.to_csv(index=False).encode(),
        file_name="metriclab-summary.csv",
        mime="text/csv",
        key="dl_summary",
        on_click="ignore",
    )
html = st.session_state.get("_compare_html")
if html is None or html[0] is not results:
    html = (results, figure_html(bars))
    st.session_state["_compare_html"] = html
c3.download_button(
    "Download figure (HTML)",
    html[1],
    file_name="metriclab-comparison.html",
    mime="text/html",
    key="dl_html",
    on_click="ignore",
)
show_code(st.session_state.get("_compare_code", ""))
st.caption(
    "The HTML figure is self-contained (plotly.js inlined) and opens offline; the camera icon on "
    "the chart's toolbar saves it as PNG."
)
