"""The only streamlit-aware code of metriclab, grouped by what the user sees: ui/embed/ (one module
per view mode of the Embed page), ui/shared/ (pickers, widgets from the method specs, view state,
caches, errors, presentation mode, code snippets), one module per other page (compare, data,
draw) and ui/dev/ (serving the app for tests, screenshots)."""

from pathlib import Path

# The page icon is a file of the package: a ":material/...:" page icon makes the browser fetch it
# from Google's font server, and a classroom without internet must not wait for anything.
ICON = str(Path(__file__).resolve().parent / "assets" / "favicon.png")
