"""Make deep links work on a fresh server.

Streamlit runs the scripts of a `pages/` folder next to the main script directly (multipage "v1")
until the main script has called `st.navigation` once in the process; a shared link to /embed on a
fresh server would then bypass app.py (no page config, a different menu). Each page calls
`ensure_router()` first: in that case it switches the process to `st.navigation` routing and
reruns, which executes app.py, which routes back to the same page. A no-op otherwise.
"""

from __future__ import annotations

import streamlit as st


def ensure_router() -> None:
    """Switch to st.navigation routing when needed, then open the page's notice area (the place
    at the top where every change made to the view's values is announced)."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a future Streamlit without the v1 fallback
        PagesManager = None
    if PagesManager is not None and getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()
    from metriclab.ui.shared.state import notice_area

    notice_area()
