"""`python -m metriclab.ui.shared.serve run SCRIPT [options]`: Streamlit's command line,
started so that the server sends no request to another host (the lab sends nothing anywhere: a
classroom or an exam is often offline). `metriclab app` and `make run` serve the app through it;
ui/shared/streamlit_private.py, item 5, says the one thing it does before `streamlit run`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run Streamlit's command line on `argv` (default: this process's arguments)."""
    from metriclab.ui.shared.streamlit_private import serve

    return serve(sys.argv[1:] if argv is None else list(argv))


if __name__ == "__main__":
    sys.exit(main())
