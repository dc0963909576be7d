"""Everything the app takes from Streamlit beyond its public API, in this one module (issue 40).

The rest of metriclab/ and pages/ uses Streamlit's documented API only (tests/test_architecture.py
checks that no other module imports a private Streamlit module or names one of the hooks below).
Each item says why there is no public equivalent; all are tested on the Streamlit versions in
TESTED_STREAMLIT, the range pyproject.toml pins and CI runs at both ends (.ci/run: the newest in
the project's venv, the oldest in a second venv on the AppTest and browser subset).

1. Deep links on a fresh server (`leave_pages_directory_mode`). With a `pages/` folder beside the
   main script (the layout this repository keeps: app.py, pages/), Streamlit runs the folder's
   scripts itself (multipage "v1") until the main script has called `st.navigation` once in the
   process, and it never runs the main script while in that mode: a shared link to /embed on a
   fresh server would bypass app.py (no page config, another menu). There is no option to turn
   the v1 mode off; the class flag `PagesManager.uses_pages_directory` is what `st.navigation`
   itself clears. `metriclab app` serves metriclab/ui/app.py, whose folder has no `pages/`, so
   an installed copy never needs it.
2. One browser-history entry per page visit (`one_entry_per_page`). Streamlit pushes an entry for
   every URL update a run sends, so the app writing a page's view into its link left a trail of
   half-written links of the same page and Back walked into them. `st.query_params` has no
   "replace" mode; a script in the page makes an update that keeps the page (same path) replace
   the current entry, while a move to another page still pushes one.
3. A refused upload (`REFUSED_UPLOAD_WATCH`). The browser refuses a file over
   server.maxUploadSize before any script run, so the server cannot take back the message about
   the previous file; the page watches the upload box's file chip (Streamlit's `stFileChip` test
   id, marked aria-invalid when refused) and shows why instead.
4. `PageNotFound`: the exception `st.page_link` raises for a page outside the router's menu (a
   page run alone, as the AppTests do); Streamlit documents the behaviour, not the class's place.
5. No request to another host when the server starts (`serve`). A headless Streamlit server
   bound to all addresses looks up the machine's external IP address for the "External URL" line
   it prints, by a request to checkip.amazonaws.com (offline it waits for it and warns "Did not
   auto detect external IP"). No option turns the lookup off short of hiding the whole welcome
   message or naming one address; the lookup keeps its answer in `net_util._external_ip`, and an
   empty answer there means "no external address". `metriclab app` and `make run` start
   Streamlit's command line through `python -m metriclab.ui.shared.serve`, which sets it first.
"""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitPageNotFoundError as PageNotFound

# The Streamlit releases this module is tested on: the oldest and the newest that CI runs.
TESTED_STREAMLIT = ("1.52.0", "1.67.0")  # 1.52: st.html(unsafe_allow_javascript=)

__all__ = [
    "PageNotFound",
    "REFUSED_UPLOAD_WATCH",
    "TESTED_STREAMLIT",
    "leave_pages_directory_mode",
    "one_entry_per_page",
    "serve",
]


def serve(argv: list[str]) -> int:
    """Streamlit's command line (`streamlit run SCRIPT [options]` as `argv`), with the external IP
    lookup answered "none" beforehand: the server sends no request to another host."""
    import sys

    from streamlit import net_util
    from streamlit.web import cli

    if hasattr(net_util, "_external_ip"):
        net_util._external_ip = ""  # "" is an answer (no external address); None would ask
    sys.argv = ["streamlit", *argv]
    # click's standalone mode ends the process with the command's status; as `python -m streamlit`
    return cli.main(prog_name="streamlit")


def leave_pages_directory_mode() -> None:
    """Switch the process from the `pages/`-folder mode to `st.navigation` routing and rerun (which
    executes the main script, which routes back to the same page); a no-op once switched."""
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # a Streamlit without the v1 fallback
        return
    if getattr(PagesManager, "uses_pages_directory", False):
        PagesManager.uses_pages_directory = False
        st.rerun()


HISTORY_KEY = "history_one_entry_per_page"
HISTORY_SCRIPT = f"""
<style>.st-key-{HISTORY_KEY} {{ display: none; }}</style>
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
    """Install the history script (once per browser tab; drawn hidden in the sidebar each run)."""
    with st.sidebar.container(key=HISTORY_KEY):
        st.html(HISTORY_SCRIPT, unsafe_allow_javascript=True)


# While the newest file in the upload box is a refused one (its chip is marked aria-invalid), the
# previous file's message is hidden and `{note}` is shown instead.
REFUSED_UPLOAD_WATCH = """
<style>
  .metriclab-refused { display: none; }
  body.metriclab-upload-refused .metriclab-refused {
    display: block; padding: 0.75rem 1rem; border-radius: 0.5rem;
    background: rgba(255, 189, 69, 0.15); color: rgb(146, 108, 5);
  }
  body.metriclab-upload-refused .st-key-upload_feedback { display: none; }
</style>
<div class="metriclab-refused" role="alert">{note}</div>
<script>
(() => {
  if (window.metriclabUploadWatch) return;
  window.metriclabUploadWatch = true;
  const check = () => {
    const chips = document.querySelectorAll('.st-key-upload [data-testid="stFileChip"]');
    const newest = chips.length ? chips[chips.length - 1] : null;
    const refused = !!newest && newest.getAttribute("aria-invalid") === "true";
    if (document.body.classList.contains("metriclab-upload-refused") !== refused) {
      document.body.classList.toggle("metriclab-upload-refused", refused);
    }
  };
  new MutationObserver(check).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ["aria-invalid"],
  });
  check();
})();
</script>
"""
