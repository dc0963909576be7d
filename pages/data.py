"""Data page: choose a data set or upload a CSV; description, class counts, 2-D PCA scatter, images."""

import streamlit as st

from metriclab.ui.data import render
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("Data")
render()
