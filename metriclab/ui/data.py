"""The Data page's view (`render`; pages/data.py only routes here): a data set's summary, class
counts, PCA scatter, example images and first rows; and CSV uploads: parse with
`metriclab.datasets.load_csv`, report problems with st.error, keep the data set in this session
only, and share it by link on request."""

from __future__ import annotations

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.datasets.sampling import subsample_indices
from metriclab.ui.shared import presentation, session_data
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import DATA_KEY, GENERATOR_PREFIX, DataRef
from metriclab.ui.shared.pickers import dataset_picker, explainer
from metriclab.ui.shared.session_data import dataset
from metriclab.ui.shared.state import publish
from metriclab.ui.shared.streamlit_private import REFUSED_UPLOAD_WATCH

# The browser refuses a file over server.maxUploadSize before it reaches the app, so no script run
# follows; a watch in the page shows why (ui.shared.streamlit_private, item 3).


def handle_upload(data: bytes, filename: str, label_column: str | None = None) -> str | None:
    """Register an uploaded CSV in this session and return its data set key; on a bad file show
    `st.error` with the loader's reason (which row or column is wrong) and return None."""
    try:
        key = session_data.register_upload(data, filename, label_column)
    except ValueError as exc:
        st.error(f"Could not read {filename}: {exc}", icon=":material/error:")
        return None
    except (UnicodeDecodeError, OSError, EOFError) as exc:
        st.error(f"Could not read {filename}: not a readable CSV file ({type(exc).__name__})")
        return None
    dropped = session_data.last_dropped()
    if dropped:
        st.info(
            f"A session keeps at most {session_data.MAX_UPLOADS} uploads "
            f"({session_data.MAX_UPLOAD_BYTES // session_data.MB} MB); dropped the oldest: {', '.join(dropped)}"
        )
    return key


def upload_box() -> str | None:
    """The Data page's upload box: the size limit in words, the file box, the label column and one
    message about the newest file (loaded, or why not). Returns the key of a newly loaded upload."""
    limit = st.get_option("server.maxUploadSize")
    st.caption(
        f"A CSV with a header row, numeric features and one label column; at most **{limit} MB** "
        "(the browser refuses larger files before they reach the app; a .csv.gz is accepted). "
        "An upload lives in this browser tab's session: a reload or a new tab starts without it "
        "(Share by link keeps it reachable for 24 h)."
    )
    upload = st.file_uploader(
        f"CSV file (up to {limit} MB)", type=["csv", "gz", "txt"], key="upload"
    )
    label_column = st.text_input("Label column (empty = last)", key="label_column") or None
    feedback = st.container(key="upload_feedback")
    note = (
        f"The browser refused the last file: it is larger than {limit} MB, so it never reached the "
        "app and the data set shown has not changed. Compress it (.csv.gz) or keep fewer rows."
    )  # drawn by the page itself (hidden until a refusal), not an element of the script run
    st.html(REFUSED_UPLOAD_WATCH.replace("{note}", note), unsafe_allow_javascript=True)
    if upload is None:
        return None
    done = (upload.file_id, label_column)
    if st.session_state.get("_upload_done") == done:
        return None
    with feedback:
        key = handle_upload(upload.getvalue(), upload.name, label_column)
        if key is None:
            return None
        st.session_state["_upload_done"] = done
        st.success(f"Loaded {upload.name}")
    return key


def share_controls(key: str) -> None:
    """For one of this session's uploads: a note that it is private, and a button that publishes
    it by link (anyone holding the link can then open it, for `session_data.SHARE_TTL_S` seconds)."""
    if not key.startswith(session_data.UPLOAD_PREFIX):
        return
    if session_data.is_shared(key):
        st.success(
            f"Shared by link: anyone with this page's link (`?ds={key}`) can open this data set "
            f"for {session_data.SHARE_TTL_S / 3600:.0f} h.",
            icon=":material/link:",
        )
        return
    st.caption(
        "This upload is private to your session: other people cannot see it, and it is dropped "
        "when you close the page."
    )
    if st.button(
        "Share by link",
        key="share_upload",
        help="Publish this data set to anyone "
        "who has the page's link (the key in the link cannot be guessed).",
    ):
        try:
            session_data.share_upload(key)
        except ValueError as exc:
            st.error(str(exc), icon=":material/error:")
            return
        st.rerun()


def _size_tiles(ds, box) -> None:
    """The data set's points, features, classes and image shape, as four tiles."""
    cols = box.columns(4)
    cols[0].metric("points", ds.n_samples)
    cols[1].metric("features", ds.n_features)
    cols[2].metric("classes", ds.n_classes)
    cols[3].metric("images", "×".join(map(str, ds.image_shape)) if ds.image_shape else "no")


def render() -> None:
    """The page below its title (pages/data.py calls it)."""
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
    above = st.container()  # the size tiles, above the charts
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
    # on a projector the picture comes first, the tiles under it (the scatter fits the screen)
    _size_tiles(ds, st.container() if presentation.active() else above)

    if ds.image_shape is not None:
        rng = np.random.default_rng(0)
        per_class = 6
        picks = [
            rng.choice(
                np.flatnonzero(ds.y == c), min(per_class, int(np.sum(ds.y == c))), replace=False
            )
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
