"""Tangent page: one digit's tangent vectors, its transformed versions, its nearest neighbours under
the Euclidean and the tangent distance, and the error rates of both 1-NN rules."""

import streamlit as st

from metriclab.ui.shared.router import ensure_router
from metriclab.ui.tangent import render

ensure_router()
st.title("Tangent distance")
render()
