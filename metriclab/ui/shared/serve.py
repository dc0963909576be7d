"""`python -m metriclab.ui.shared.serve run SCRIPT [options]`: Streamlit's command line,
started so that the server sends no request to another host (the lab sends nothing anywhere: a
classroom or an exam is often offline), in a process warmed before its first visitor
(`metriclab.warm_up`). `metriclab app`, `make run` and the class's workers (`metriclab.deploy`)
serve the app through it; ui/shared/streamlit_private.py, item 5, says the one thing it does
before `streamlit run`."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run Streamlit's command line on `argv` (default: this process's arguments)."""
    from metriclab import warm_up
    from metriclab.ui.shared.streamlit_private import serve

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["run"]:
        warm_up.start()
    return serve(argv)


if __name__ == "__main__":
    sys.exit(main())
