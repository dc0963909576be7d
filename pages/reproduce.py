"""Reproduce page: every claim of the four papers with its verdict (computed by one rule from the
committed runs), and the papers' tables with their numbers beside ours, rerunnable live."""

import streamlit as st

from metriclab.ui.reproduce import render
from metriclab.ui.shared.pickers import explainer
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("Reproduce")
explainer(
    "Each claim of the four papers is measured by a committed full run (the paper's protocol: "
    "split sizes, preprocessing, classifier) and gets its verdict from one written rule, the "
    "same computation as docs/reproduction/README.md and the documentation. **Tables** shows each "
    "run, the paper's number beside ours (mean ± std over the splits), and reruns a smaller "
    "version live. Hyper-parameters come from the paper or from cross-validation on the training "
    "part, never from the test split."
)
render()
