"""Reproduce page: each paper table, the paper's numbers beside ours, from the committed full runs,
with a button to rerun the fast version live."""

import pandas as pd
import streamlit as st

from metriclab import plots
from metriclab.ui.shared import cache
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.pickers import explainer
from metriclab.ui.shared.router import ensure_router
from metriclab.ui.shared.runs import fast_reproduction
from metriclab.ui.shared.state import publish, seed_from_url
from metriclab.ui.shared.widgets import display_table

ensure_router()
st.title("Reproduce")
explainer(
    "Each experiment re-runs one table or figure of a paper with the paper's protocol (split sizes, "
    "preprocessing, classifier) and puts the paper's number beside ours (mean ± std over the "
    "splits). The stored results are the full runs committed in `docs/reproduction/`; **Run fast "
    "version** recomputes a smaller version live (fewer splits or a subsample) to show it working. "
    "Hyper-parameters come from the paper or from cross-validation on the training part, never "
    "from the test split."
)


def show_table(table: pd.DataFrame, key: str) -> None:
    numeric = table.copy()
    for col in ("paper", "ours_mean", "ours_std"):
        if col in numeric:
            numeric[col] = pd.to_numeric(numeric[col], errors="coerce")
    if {"setting", "method", "paper", "ours_mean", "ours_std"} <= set(numeric.columns):
        shown = numeric
        if "metric" in numeric.columns and numeric["metric"].nunique() > 1:
            metric = st.selectbox(
                "Metric in the chart", list(numeric["metric"].unique()), key=f"metric_{key}"
            )
            shown = numeric[numeric["metric"] == metric]
        if shown["ours_mean"].notna().any():  # rows the paper quotes but we do not run: table only
            shown = shown[shown["ours_mean"].notna()]
        draw_chart(st, plots.paper_vs_ours(shown), key=f"chart_{key}")
    st.dataframe(display_table(numeric), hide_index=True)


found = guarded(cache.experiments, context="experiments")
if not found:
    st.stop()

names = list(found)
first = next((n for n in names if cache.stored_reproduction(n)[0] is not None), names[0])
seed_from_url("exp", first, options=names, label="Experiment")
if st.session_state["exp"] not in names:
    st.session_state["exp"] = first
name = st.selectbox("Experiment", names, key="exp", format_func=lambda n: f"{n} — {found[n].title}")
publish({"exp": name})
exp = found[name]
st.caption(f"Paper: {exp.paper}")
if exp.description:
    st.markdown(exp.description)

tab_stored, tab_live = st.tabs(["Full run (stored)", "Fast run (live)"])
with tab_stored:
    table, notes = cache.stored_reproduction(name)
    if table is None:
        st.info(
            f"No stored full run yet (docs/reproduction/{name}.csv); "
            f"run `python -m metriclab reproduce {name}` or use the fast run."
        )
    else:
        show_table(table, "stored")
    if notes:
        with st.expander("Notes on this run", expanded=False):
            st.markdown(notes)
with tab_live:
    if st.button("Run fast version", type="primary", key="run_fast"):
        bar = st.progress(0.0, text="starting")

        def progress(done, total, message):
            bar.progress(min(1.0, done / max(total, 1)), text=f"{done}/{total} · {message}")

        live = guarded(fast_reproduction, name, 0, progress=progress, context=name)
        bar.empty()
        if live is not None:
            st.session_state["_fast"] = (name, live)
    stored = st.session_state.get("_fast")
    if stored and stored[0] == name:
        show_table(stored[1], "live")
