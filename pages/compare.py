"""Compare page: several methods on several data sets over repeated random splits, behind a Run button."""

import streamlit as st

from metriclab.ui.compare import render
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("Compare")
render()
