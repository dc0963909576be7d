"""Data page: choose a data set or upload a CSV; description, class counts, 2-D PCA scatter, images."""

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.datasets.sampling import subsample_indices
from metriclab.ui.data import share_controls, upload_box
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import DATA_KEY, GENERATOR_PREFIX, DataRef
from metriclab.ui.shared.pickers import dataset_picker, explainer
from metriclab.ui.shared.router import ensure_router
from metriclab.ui.shared.session_data import dataset
from metriclab.ui.shared.state import publish

ensure_router()
st.title("Data")
explainer(
    "Every data set is a matrix **X** of n points × d features and integer labels y ∈ {0..c−1}. "
    "The scatter shows the first two principal components, the directions of largest variance: "
    "the view a Euclidean metric has of the data before any learning.",
    [
        r"\mathrm{PCA}:\ \max_{\|w\|=1} w^\top \Sigma w,\quad \Sigma = \tfrac{1}{n}\sum_i (x_i-\bar x)(x_i-\bar x)^\top"
    ],
)

picker_box = st.sidebar.container()  # drawn above the upload box, filled after it
with st.sidebar:
    st.subheader("Upload a CSV")
    loaded = upload_box()
    if loaded is not None:
        st.session_state[DATA_KEY] = loaded

name, params = dataset_picker(picker_box)
publish(DataRef(name, params).link(), prune=(GENERATOR_PREFIX,))

ds = guarded(dataset, name, tuple(sorted(params.items())), context=name)
if ds is None:
    st.stop()

st.subheader(ds.name)
share_controls(name)
if ds.description:
    st.markdown(ds.description)
if ds.source:
    st.caption(f"Source: {ds.source}")
cols = st.columns(4)
cols[0].metric("points", ds.n_samples)
cols[1].metric("features", ds.n_features)
cols[2].metric("classes", ds.n_classes)
cols[3].metric("images", "×".join(map(str, ds.image_shape)) if ds.image_shape else "no")

left, right = st.columns([2, 1])
with right:
    draw_chart(st, plots.class_counts_bar(ds.class_counts()), key="counts")
with left:
    show = subsample_indices(ds.y, 3000, seed=0)
    Z = plots.pca_2d(ds.X[show])
    fig = plots.embedding_scatter(
        Z,
        ds.y[show],
        target_names=ds.target_names,
        title=f"{ds.name}: first two principal components"
        + (f" ({show.size} of {ds.n_samples} points)" if show.size < ds.n_samples else ""),
        axis_titles=("PC 1", "PC 2") if ds.n_features > 1 else ("x", ""),
        index=show,
        marker_size=6,
    )
    draw_chart(st, fig, key="pca_scatter")

if ds.image_shape is not None:
    rng = np.random.default_rng(0)
    per_class = 6
    picks = [
        rng.choice(np.flatnonzero(ds.y == c), min(per_class, int(np.sum(ds.y == c))), replace=False)
        for c in range(ds.n_classes)
    ]
    order = np.concatenate(picks)
    draw_chart(
        st,
        plots.image_grid(
            ds.X[order],
            ds.image_shape,
            titles=[ds.target_names[ds.y[i]] for i in order],
            n_cols=per_class * 2,
            title="Example images (by class)",
        ),
        key="images",
    )

with st.expander("First rows"):
    import pandas as pd

    frame = pd.DataFrame(ds.X[:20], columns=ds.feature_names[: ds.n_features] or None)
    frame.insert(0, "label", [ds.target_names[c] for c in ds.y[:20]])
    st.dataframe(frame, hide_index=False)
