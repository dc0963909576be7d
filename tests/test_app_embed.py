"""AppTest of the Embed page: every registered method renders with its defaults, parameters move the
picture, views come back from the URL, and bad settings give st.error instead of a traceback."""

from dataclasses import replace

import numpy as np
import pytest

from metriclab.methods import REGISTRY
from metriclab.ui.shared.widgets import param_options
from tests.apptest_helpers import figures, run_page, values

TIMEOUT = 120


def run(query=None):
    return run_page("embed", query, timeout=TIMEOUT)


def scatter_points(fig):
    """(index, x, y) of every point of the scatter traces, sorted by index."""
    rows = []
    for trace in fig["data"]:
        if trace.get("type", "scatter") == "scatter" and "customdata" in trace:
            xs, ys = values(trace["x"]), values(trace["y"])
            for (index, _), x, y in zip(trace["customdata"], xs, ys, strict=True):
                rows.append((int(index), float(x), float(y)))
    return np.array(sorted(rows))


def assert_clean(at):
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, [e.value for e in at.error]


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_every_registered_method_renders_with_its_defaults(key):
    spec = REGISTRY[key]
    query = {"method": key}
    if spec.input == "image":
        query.update({"ds": "digits", "cap": "300", "lab": "fraction", "frac": "0.3"})
    at = run(query)
    assert_clean(at)
    assert at.sidebar.selectbox(key="method").value == key
    figs = figures(at)
    assert figs, "no chart"
    points = scatter_points(figs[0])
    n = 200 if spec.input == "vector" else 300
    assert abs(points.shape[0] - n) <= 3
    assert np.all(np.isfinite(points[:, 1:]))
    accuracy = float(at.metric[0].value)
    assert 0.0 <= accuracy <= 1.0
    if spec.baseline in REGISTRY:  # a reference of the same output dimension comes first
        first = at.metric[1].label
        assert first == REGISTRY[spec.baseline].label or first.startswith(("PCA to", "Euclidean"))
    # every parameter of the method that counts at its defaults got a widget; the others are named
    keys = {w.key for w in at.main.get("select_slider")} | {w.key for w in at.main.get("slider")}
    keys |= {w.key for w in at.main.get("selectbox")} | {w.key for w in at.main.get("checkbox")}
    keys |= {w.key for w in at.main.get("number_input")}
    defaults = spec.defaults()
    active = [p for p in spec.params if p.is_active(defaults)]
    assert {f"p.{key}.{p.name}" for p in active} <= keys
    for p in spec.params:
        if not p.is_active(defaults):
            assert f"p.{key}.{p.name}" not in keys
            assert any(p.label in c.value for c in at.main.caption if "Not used here" in c.value)


def _movable_param():
    """A registered method with a slider parameter (λ when TDL is there), and two values of it."""
    for key in ("tdl", "le", "zhang_mds", "lmnn", "nca", "pca"):
        spec = REGISTRY.get(key)
        if spec is None:
            continue
        for name in ("lam", "width", "mu", "n_components"):
            p = next((p for p in spec.params if p.name == name), None)
            if p is None:
                continue
            options = [v for v in (param_options(p) or []) if v is not None]
            if len(options) > 2 and p.default in options:
                i = options.index(p.default)
                return key, p, options[i], options[i - 3] if i >= 3 else options[i + 3]
    pytest.skip("no method with a slider parameter")


def test_moving_a_parameter_changes_the_picture_on_fixed_axes():
    key, p, start, other = _movable_param()
    at = run({"method": key, "ds": "two_moons"})
    assert_clean(at)
    before = figures(at)[0]
    widget = at.main.select_slider(key=f"p.{key}.{p.name}")
    assert widget.value == start
    widget.set_value(other).run()
    assert_clean(at)
    after = figures(at)[0]
    assert not np.allclose(scatter_points(before)[:, 1:], scatter_points(after)[:, 1:])
    # the axes keep their frame (they may only grow) so the picture morphs instead of jumping
    x0, x1 = before["layout"]["xaxis"]["range"], after["layout"]["xaxis"]["range"]
    assert x1[0] <= x0[0] + 1e-12 and x1[1] >= x0[1] - 1e-12
    assert (
        at.query_params[f"p.{key}.{p.name}"] == [f"{other:.6g}"]
        or at.query_params[f"p.{key}.{p.name}"] == f"{other:.6g}"
    )


def test_successive_embeddings_are_procrustes_aligned():
    """Re-running the same view after a detour must show the same picture, not a flipped one."""
    at = run({"method": "pca", "ds": "iris", "lab": "fraction", "frac": "0.1"})
    first = scatter_points(figures(at)[0])
    at.main.slider(key="p.pca.n_components").set_value(3).run()
    at.main.slider(key="p.pca.n_components").set_value(2).run()
    again = scatter_points(figures(at)[0])
    np.testing.assert_allclose(again[:, 1:], first[:, 1:], atol=1e-6)


def test_a_shared_url_restores_the_view():
    query = {
        "ds": "iris",
        "method": "pca",
        "lab": "per_class",
        "per": "4",
        "p.pca.n_components": "1",
    }
    at = run(query)
    assert_clean(at)
    assert at.sidebar.selectbox(key="ds").value == "iris"
    assert at.sidebar.radio(key="lab").value == "per_class"
    assert at.sidebar.slider(key="per").value == 4
    fig = figures(at)[0]
    assert fig["layout"]["yaxis"]["ticktext"] == ["setosa", "versicolor", "virginica"]  # 1-D strip
    assert at.metric[-1].value == "12 / 138"


def test_labeled_fraction_seed_and_generator_parameters_change_the_split_and_data():
    at = run({"ds": "two_moons", "method": "pca"})
    assert at.metric[-1].value == "20 / 180"
    at.sidebar.select_slider(key="frac").set_value(0.3).run()
    assert_clean(at)
    assert at.metric[-1].value == "60 / 140"
    before = scatter_points(figures(at)[0])
    at.sidebar.number_input(key="seed").set_value(3).run()
    after = scatter_points(figures(at)[0])
    assert np.array_equal(before[:, 0], after[:, 0])  # same points, other labeled ones
    assert at.query_params["seed"] in ("3", ["3"])
    widget = at.select_slider(key="d.two_moons.n_samples")
    widget.set_value(int(widget.options[2])).run()
    assert_clean(at)
    assert scatter_points(figures(at)[0]).shape[0] == int(widget.options[2])


def test_too_many_labels_per_class_is_an_error_message_not_a_traceback():
    at = run({"ds": "iris", "method": "pca", "lab": "per_class", "per": "50"})
    assert not at.exception
    assert any("class" in e.value and "50" in e.value for e in at.error)


def test_scrub_mode_sends_all_frames_to_the_browser():
    key, p, _, _ = _movable_param()
    at = run({"ds": "two_moons", "method": key, "mode": "scrub", "scrub": p.name})
    assert_clean(at)
    fig = figures(at)[0]
    options = [v for v in param_options(p) if v is not None]
    assert len(fig["frames"]) == min(len(options), 24)
    assert len(fig["layout"]["sliders"][0]["steps"]) == len(fig["frames"])
    n_points = sum(len(values(t["x"])) for t in fig["frames"][-1]["data"] if "customdata" in t)
    assert n_points == 200


def test_window_map_runs_on_the_button_and_draws_the_baseline_contour():
    candidates = [
        k
        for k in ("tdl", "lmnn", "nca", "zhang_mds")
        if k in REGISTRY and len(REGISTRY[k].params) >= 2
    ]
    if not candidates:
        pytest.skip("no method with two numeric parameters")
    key = candidates[0]
    at = run(
        {
            "ds": "two_moons",
            "method": key,
            "mode": "window",
            "grid": "3",
            "lab": "per_class",
            "per": "3",
        }
    )
    assert_clean(at)
    assert not figures(at)  # nothing runs before the button
    at.button(key="run_window").click().run()
    assert_clean(at)
    fig = figures(at)[0]
    z = np.array(values(fig["data"][0]["z"]), dtype=float)
    assert fig["data"][0]["type"] == "heatmap" and z.shape[0] >= 2 and z.shape[1] >= 2
    assert np.nanmax(z) <= 1.0


@pytest.mark.skipif("tdl" not in REGISTRY, reason="tdl not registered")
def test_window_map_grid_contains_the_shared_views_lambda_and_width():
    query = {"ds": "harder_moons", "method": "tdl", "mode": "window", "grid": "5"}
    query.update({"p.tdl.lam": "16", "p.tdl.width": "0.25", "lab": "per_class", "per": "5"})
    at = run(query)
    at.button(key="run_window").click().run()
    assert_clean(at)
    dots = figures(at)[0]["data"][-1]  # the grid values, one dot per fitted cell
    assert 16.0 in values(dots["y"]) and 0.25 in values(dots["x"])  # λ rows, width columns
    assert at.query_params["p.tdl.lam"] in ("16", ["16"])  # the view stays shareable


def test_method_without_numeric_parameters_explains_why_there_is_no_scrub():
    at = run({"ds": "two_moons", "method": "euclidean", "mode": "scrub"})
    assert_clean(at)
    assert any("no numeric parameter" in i.value for i in at.info)


def test_teaching_presets_set_the_whole_view():
    from metriclab.ui.embed.presets import available_presets

    presets = available_presets()
    if not presets:
        pytest.skip("no preset's method is registered yet")
    at = run()
    i = next(i for i, p in enumerate(presets) if p["mode"] == "live")
    at.button(key=f"preset{i}").click().run()
    assert_clean(at)
    preset = presets[i]
    assert at.sidebar.selectbox(key="ds").value == preset["dataset"]
    assert at.sidebar.selectbox(key="method").value == preset["method"]
    spec = REGISTRY[preset["method"]]
    for name, value in preset["params"].items():
        if any(p.name == name for p in spec.params):
            assert at.session_state[f"p.{spec.key}.{name}"] == pytest.approx(value) or isinstance(
                value, str
            )


def test_the_link_of_embed_and_dissimilarity_is_their_fit_requests_link():
    """Issue 40 item 3: one link schema. The pages' links hold exactly the keys of the fit's
    `FitRequest.link` (plus the page's own view keys), spelled by the request."""
    from metriclab.ui.shared.fit_request import (
        CLASSIFIER_KEY,
        QUALITY_K_KEY,
        TEST_KEY,
        DataRef,
        FitRequest,
        SplitRef,
        label_value_key,
    )

    def link(at) -> dict:
        return {k: (v[0] if isinstance(v, list) else v) for k, v in at.query_params.items()}

    at = run_page("embed", {"ds": "wine", "method": "nca", "lab": "per_class", "per": "4"})
    assert not at.exception
    request = FitRequest(
        DataRef("wine"), SplitRef("per_class", 4, 0), "nca", scaling="minmax"
    )  # wine's default
    shown = link(at)
    read = FitRequest.from_link(shown)  # the link reopens the page's fit, parameters included
    assert replace(read, params=()) == request and read.params
    assert read.values == {p.name: at.session_state[f"p.nca.{p.name}"] for p in read.spec.params}
    view_keys = {"mode", TEST_KEY, CLASSIFIER_KEY, QUALITY_K_KEY}  # the live view's own
    assert set(shown) - set(read.link()) == view_keys
    assert label_value_key("per_class") in shown and label_value_key("fraction") not in shown
    at = run_page("dissimilarity", {"ds": "two_rings"})
    assert not at.exception
    shown = link(at)
    read = FitRequest.from_link(shown, "dmethod")
    assert read.data.name == "two_rings" and read.data.params  # the generator's parameters
    assert set(shown) == set(read.link("dmethod")) - {"cap"}
    assert any(k.startswith("d.two_rings.") for k in shown)  # the generator's parameters


@pytest.mark.parametrize(
    "page, query",
    [
        ("embed", {"ds": "wine", "method": "nca"}),
        ("dissimilarity", {"ds": "wine"}),
        ("compare", {"cds": "iris", "cm": "pca", "splits": "3", "protocol": "inductive"}),
    ],
)
def test_no_widget_gets_a_default_beside_its_session_state_value(page, query, monkeypatch, caplog):
    """Issue 36 item 7: Streamlit logged 'The widget with key "pp" was created with a default
    value but also had its value set via the Session State API' (with a 30-line stack): a widget
    seeded through the session state must not also be given a default (index=, value=,
    default=). Streamlit logs it once per process, so its flag is reset here."""
    from streamlit.elements.lib import policies

    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    at = run_page(page, query)
    at.run()
    assert not at.exception
    assert "created with a default value" not in caplog.text


@pytest.mark.parametrize(("text", "expected"), [("1500", 1500), ("all", "all")])
def test_a_link_s_points_used_is_read_as_a_number_or_all(text, expected):
    """`cap=1500` in a link opens "Points used" at 1,500 for a method whose default is "all" (it
    was read against the word "all" and thrown away as "not one of the choices")."""
    at = run_page("embed", {"ds": "usps", "method": "le", "cap": text, "lab": "fraction"})
    assert not at.exception
    assert at.session_state["cap"] == expected
    assert not [w for w in at.warning if "Points used" in w.value]


def test_a_tie_with_the_reference_shows_no_arrow_of_a_gain():
    """TDL and Laplacian Eigenmaps both score 1.000 on the two moons: the tile's difference is
    "±0.000", not a green "+0.000"."""
    at = run({"ds": "two_moons", "method": "tdl"})
    assert_clean(at)
    assert at.metric[0].value == at.metric[1].value == "1.000"
    assert at.metric[0].delta == "±0.000"
