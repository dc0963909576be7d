"""metriclab app, from a checkout: `make run` or `streamlit run app.py` (an installed package:
`metriclab app`). The router lives in metriclab/ui/app.py."""

from metriclab.ui.app import run

run()
