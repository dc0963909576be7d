"""metriclab app: the router (page list and page config, nothing else). Run with `make run`."""

import streamlit as st

from metriclab.ui import ICON
from metriclab.ui.shared import presentation
from metriclab.ui.shared.state import notice_area

st.set_page_config(page_title="metriclab", page_icon=str(ICON), layout="wide")

PAGES = [
    st.Page("pages/home.py", title="Home", icon=":material/home:", default=True),
    st.Page("pages/data.py", title="Data", icon=":material/table_view:", url_path="data"),
    st.Page("pages/draw.py", title="Draw", icon=":material/draw:", url_path="draw"),
    st.Page(
        "pages/embed.py",
        title="Embed",
        icon=":material/scatter_plot:",
        url_path="embed",
    ),
    st.Page(
        "pages/dissimilarity.py",
        title="Dissimilarity",
        icon=":material/grid_on:",
        url_path="dissimilarity",
    ),
    st.Page("pages/compare.py", title="Compare", icon=":material/bar_chart:", url_path="compare"),
    st.Page("pages/tangent.py", title="Tangent", icon=":material/gesture:", url_path="tangent"),
    st.Page(
        "pages/reproduce.py", title="Reproduce", icon=":material/description:", url_path="reproduce"
    ),
]

notice_area()  # this run's place for notices (before the toggle, which may need one)
presentation.controls()  # sidebar toggle, URL ?present=1
st.navigation(PAGES).run()
