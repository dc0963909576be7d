"""Home page: what metriclab is and where each page leads (the app's root, so that every working
page has its own address and a shared link to it reopens the same view)."""

import streamlit as st

from metriclab.ui.navigation import available, link
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("metriclab")
st.markdown(
    "An interactive laboratory for **learning distances and embeddings from labels**, built on a "
    "scikit-learn-style library that implements four papers: transductive metric learning (TDL, "
    "Li, Yang & Wang 2007), discriminant kernels and MDS (Zhang 2003), the KPCA trick for "
    "kernelising Mahalanobis learners (Chatpatanasiri et al. 2009) and tangent distance with "
    "learned metrics (Mody 2009). Every view keeps its settings in the address bar: copy it to "
    "share the view."
)
for page in available()[1:]:
    link(page.key)
    st.caption(page.blurb)
