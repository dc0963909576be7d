"""Home page: what metriclab is and where each page leads (the app's root, so that every working
page has its own address and a shared link to it reopens the same view)."""

import streamlit as st

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
PAGES = [
    ("pages/embed.py", "Embed", ":material/scatter_plot:", "move λ, k, widths and the labeled "
     "share and watch the embedding, its 1-NN accuracy beside the baseline's and the spectrum; "
     "scrub λ in the browser; map where a method beats its baseline."),
    ("pages/data.py", "Data", ":material/table_view:", "browse the shipped and synthetic data "
     "sets or upload a CSV."),
    ("pages/draw.py", "Draw", ":material/draw:", "click points of a few classes on a canvas and "
     "use the drawing as a data set on every page."),
    ("pages/dissimilarity.py", "Dissimilarity", ":material/grid_on:", "kernel, dissimilarity and "
     "graph matrices sorted by class, Euclidean and Fisher checks, MDS spectrum and stress."),
    ("pages/compare.py", "Compare", ":material/bar_chart:", "several methods on several data "
     "sets over repeated splits, with downloads."),
    ("pages/tangent.py", "Tangent", ":material/gesture:", "tangent vectors of a digit and its "
     "nearest neighbours under the Euclidean and the tangent distance."),
    ("pages/reproduce.py", "Reproduce", ":material/description:", "the papers' tables, their "
     "numbers beside ours."),
]  # fmt: skip
for path, label, icon, text in PAGES:
    st.page_link(path, label=label, icon=icon)
    st.caption(text)
