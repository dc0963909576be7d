"""Lessons page: guided lectures through the app's instruments, one per paper, step by step
(the lessons are data: metriclab/ui/lessons/*.toml)."""

import streamlit as st

from metriclab.ui.lessons.view import render
from metriclab.ui.shared.router import ensure_router

ensure_router()
st.title("Lessons")
render()
