"""Shared AppTest helpers: run a page, read its plotly figures and their (typed) arrays."""

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[1]


def run_page(page: str, query=None, timeout: float = 180):
    """Run pages/<page>.py once under AppTest, with the URL query parameters `query`."""
    at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=timeout)
    if query:
        at.query_params.update(query)
    return at.run()


def figures(at):
    return [json.loads(el.proto.spec) for el in at.get("plotly_chart")]


def values(v):
    """A plotly JSON array: a list, or a typed array {"dtype", "bdata"} (base64)."""
    if isinstance(v, dict) and "bdata" in v:
        data = np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
        if "shape" in v:
            shape = v["shape"]
            shape = [int(d) for d in shape.split(",")] if isinstance(shape, str) else shape
            data = data.reshape(shape)
        return data
    return np.asarray(v)


def fit_request(name, method, params=(), split=("fraction", 0.1, 0), scaling="none", cap=None):
    """The app's FitRequest of `method` with `params` on data set `name` (a split given as
    (mode, value, seed), the feature scaling and the point cap)."""
    from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef

    return FitRequest(DataRef(name, (), cap), SplitRef(*split), method, params, scaling)


def split_ref(mode="fraction", value=0.1, seed=0):
    from metriclab.ui.shared.fit_request import SplitRef

    return SplitRef(mode, value, seed)


def add_new_point(at, x: float, y: float):
    """Add a new point at (x, y) with the Embed page's input panel (a two-feature set), rerun."""
    at.toggle(key="new_points_open").set_value(True).run()
    at.number_input(key="new_points_input_x").set_value(x)
    at.number_input(key="new_points_input_y").set_value(y)
    return at.button(key="new_points_input_add").click().run()
