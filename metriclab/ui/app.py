"""metriclab app: the router (page config, the page list of metriclab.ui.navigation, the notice
area and the presentation toggle). `metriclab app` serves this file; a checkout's app.py runs it."""

from __future__ import annotations

import streamlit as st

from metriclab.ui import ICON
from metriclab.ui.navigation import navigation_pages
from metriclab.ui.shared import presentation
from metriclab.ui.shared.state import notice_area
from metriclab.ui.shared.streamlit_private import one_entry_per_page


def run() -> None:
    st.set_page_config(page_title="metriclab", page_icon=str(ICON), layout="wide")
    one_entry_per_page()  # before this run's first URL update
    notice_area()  # this run's place for notices (before the toggle, which may need one)
    presentation.controls()  # sidebar toggle, URL ?present=1
    st.navigation(navigation_pages()).run()


if __name__ == "__main__":
    run()
