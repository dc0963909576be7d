"""Dissimilarity page: kernel, dissimilarity and graph-affinity matrices sorted by class, Gower and
Fisher checks, the MDS spectrum, the majorization stress curve and kernel alignment weights."""

import streamlit as st

from metriclab.ui.dissimilarity import render
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("Dissimilarity")
render()
