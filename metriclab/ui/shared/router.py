"""Every page's first call: make deep links work on a fresh server, then open the page's notice
area. The deep-link switch uses a Streamlit internal, kept with the reason in
`ui.shared.streamlit_private` (item 1 there); a no-op once the process routes through
`st.navigation`.
"""

from __future__ import annotations


def ensure_router() -> None:
    """Switch to st.navigation routing when needed, then open the page's notice area (the place
    at the top where every change made to the view's values is announced)."""
    from metriclab.ui.shared.state import notice_area
    from metriclab.ui.shared.streamlit_private import leave_pages_directory_mode

    leave_pages_directory_mode()
    notice_area()
