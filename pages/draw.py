"""Draw page: click to place points of a class on a 2-D canvas, then use the drawing as a data set
on every page (Embed, Dissimilarity, Compare)."""

import streamlit as st

from metriclab.ui import draw as drawing
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import DATA_KEY
from metriclab.ui.shared.pickers import explainer
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("Draw your own data")
explainer(
    "Click on the canvas to add a point of the chosen class; drag a box or a lasso (toolbar at the "
    "top right of the canvas) to fill a region with points of that class; click a point to remove "
    "it. Then **Use as data set**: the drawing becomes a data set of this session, in the data set "
    "list of every page, for questions such as *what would TDL do here?* It stays private to your "
    "session, like an upload."
)

canvas_column, tools = st.columns([3, 1])
with tools:
    names = drawing.CLASSES
    class_index = st.radio(
        "Class of the next points",
        list(range(len(names))),
        format_func=lambda c: f"class {names[c]}",
        key="draw_class",
    )
    drawing.take_stroke(class_index)  # the canvas's last click, before the count and the canvas
    undo_col, clear_col = st.columns(2)
    undo_col.button("Undo", key="draw_undo", on_click=drawing.undo, icon=":material/undo:")
    clear_col.button("Clear", key="draw_clear", on_click=drawing.clear, icon=":material/delete:")
    xy, labels = drawing.drawn_points()
    st.caption(
        f"{xy.shape[0]} points drawn. The drawing lives in this browser tab's session: a reload "
        "or a new tab starts an empty canvas."
    )
    empty = xy.shape[0] == 0  # nothing to use: the button waits for points
    if st.button(
        "Use as data set",
        key="draw_use",
        type="primary",
        disabled=empty,
        help="Draw points of at least two classes first." if empty else None,
    ):
        key = guarded(drawing.use_drawing, context="Use as data set")
        if key is not None:
            st.session_state[DATA_KEY] = key  # the data set the Embed and Dissimilarity pages open
            st.success(f"{drawing.drawing_dataset().name} is now a data set of this session.")
    if st.session_state.get(DATA_KEY, "") == drawing.current_key():
        drawing.page_links()
with canvas_column:
    drawing.canvas()
