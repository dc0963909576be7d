"""The app: the only streamlit-aware code of metriclab, grouped by what the user sees.

- app.py, navigation.py: the router (page config, the page list) that `metriclab app` and the
  checkout's app.py run; each pages/<page>.py file only routes to its view here.
- one module per page's view: compare, data, dissimilarity, draw, reproduce, tangent (each a
  `render()` or the functions its page calls); the Embed page's views are ui/embed/ (one module
  per view mode: live, spread, input view, watch it learn, λ scrub, window map, presets) and the
  Lessons page is ui/lessons/ (lessons as data, the step view).
- ui/shared/: what the pages share: the fit request and its link (fit_request), the cached fits
  (memo, compute, full_size, heavy, runs), the session's data sets (session_data), view state in
  the URL (state, router), pickers and widgets from the method specs, scaling, errors, charts,
  code snippets, presentation mode, and Streamlit's non-public hooks in one module
  (streamlit_private).
- ui/dev/: serving the app for the browser tests and the screenshots.
"""

from pathlib import Path

# The page icon is a file of the package: a ":material/...:" page icon makes the browser fetch it
# from Google's font server, and a classroom without internet must not wait for anything.
ICON = str(Path(__file__).resolve().parent / "assets" / "favicon.png")
