"""One browser-history entry per page visit. Streamlit pushes a history entry for every URL update
a run sends, so after the app writes a page's view into its link, the browser's Back button first
walked back through the page's own half-written links (and the page wrote them again) instead of
returning to the previous page. The script makes an update that keeps the page (same path, other
query) replace the current entry; a move to another page still pushes one."""

from __future__ import annotations

import streamlit as st

KEY = "history_one_entry_per_page"

SCRIPT = f"""
<style>.st-key-{KEY} {{ display: none; }}</style>
<script>
(() => {{
  if (window.metriclabHistory) return;
  window.metriclabHistory = true;
  const push = window.history.pushState.bind(window.history);
  window.history.pushState = (state, title, url) => {{
    const next = url === undefined || url === null ? null : new URL(url, window.location.href);
    if (next && next.origin === window.location.origin && next.pathname === window.location.pathname) {{
      return window.history.replaceState(state, title, url);
    }}
    return push(state, title, url);
  }};
}})();
</script>
"""


def one_entry_per_page() -> None:
    """Install the script (once per browser tab; drawn hidden in the sidebar on every run)."""
    with st.sidebar.container(key=KEY):
        st.html(SCRIPT, unsafe_allow_javascript=True)
