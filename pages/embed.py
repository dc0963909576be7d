"""Embed page: one method on one data set, live; λ scrub as animation frames; window map over a grid."""

import os
import time

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.methods import REGISTRY
from metriclab.ui import cache, code_snippets, compute, presentation, presets, runs
from metriclab.ui.compute import collapse_warning
from metriclab.ui.errors import guarded
from metriclab.ui.input_view import input_view
from metriclab.ui.learn_view import learn_view
from metriclab.ui.pickers import (
    LARGE,
    dataset_picker,
    explainer,
    labels_picker,
    method_picker,
    url_values,
)
from metriclab.ui.preprocessing import scaling_note, scaling_picker
from metriclab.ui.router import ensure_router
from metriclab.ui.state import publish, seed_from_url, validate
from metriclab.ui.widgets import capped, format_value, param_values, param_widget

TIMING = bool(os.environ.get("METRICLAB_TIMING"))
MODES = {"live": "live", "input": "input view", "learn": "watch it learn"}
MODES |= {"scrub": "λ scrub", "window": "window map"}
POINT_CAPS = [300, 500, 1000, 1500, 2000, 3000, 5000]

ensure_router()
st.title("Embed")

presets.apply_landing_view()
with st.sidebar:
    presets.preset_buttons()
    name, data_params = dataset_picker(st.sidebar)
    method = method_picker(st.sidebar, default=presets.default_method())
    spec = REGISTRY[method]
    label_mode, label_value, seed = labels_picker(st.sidebar)
    ds_full = guarded(cache.dataset, name, cache.params_key(data_params), context=name)
    scaling = scaling_picker(st.sidebar, ds_full if ds_full is not None else name)
    max_points = None
    if ds_full is not None and ds_full.n_samples > LARGE:
        seed_from_url("cap", 1000, options=POINT_CAPS)
        max_points = st.select_slider("Points used (stratified sample)", POINT_CAPS, key="cap")
    seed_from_url("mode", "live", options=list(MODES))
    mode = st.radio("View", list(MODES), key="mode", format_func=MODES.get, horizontal=True)

explainer(*presets.explanation(spec))
if ds_full is None:
    st.stop()

data_key = (name, cache.params_key(data_params), max_points)
split_key = (label_mode, label_value, seed)
base_keys = ["ds", "method", "lab", "frac" if label_mode == "fraction" else "per", "seed", "mode"]
base_keys += ["pp"]
base_keys += [f"d.{name}.{p}" for p in data_params] + (["cap"] if max_points else [])
prefix = f"p.{method}."


def baseline_params(values):
    """The baseline shares the method's graph/kernel settings where it has them (LE beside TDL on
    the same graph); the Euclidean baseline has none."""
    base = REGISTRY.get(spec.baseline)
    if base is None:
        return None
    return cache.params_key(compute.shared_params(base, values))


def numeric_params(spec):
    return [p for p in spec.params if len(param_values(p)) > 1]


def page_param(name, key=None):
    """The method's parameter as this page offers it: an output dimension that a linear map cannot
    exceed is capped at the data's number of features (a value under `key` is clamped too)."""
    p = spec.param(name)
    if name == "n_components" and (spec.family == "mahalanobis" or method == "pca"):
        return capped(p, ds_full.n_features, key)
    return p


def widgets(container=None, skip=()):
    """The method's parameter widgets ({name: value}), as `page_param` offers them."""
    out = {}
    for p in spec.params:
        if p.name in skip:
            continue
        key = prefix + p.name
        out[p.name] = param_widget(page_param(p.name, key), key, container)
    return out


def comparison(result, values):
    """[(label, method, params)] to score beside the method: its own baseline where that has the
    same output dimension (LE beside TDL), else PCA to the same dimension; and the Euclidean input
    space with all features, labelled as such."""
    rows = []
    if spec.baseline in REGISTRY and spec.baseline != "euclidean":
        rows.append((REGISTRY[spec.baseline].label, spec.baseline, baseline_params(values)))
    dim = None if result.Z is None else result.Z.shape[1]
    if not rows and dim is not None and dim < ds_full.n_features and "pca" in REGISTRY:
        rows.append((f"PCA to {dim}-D", "pca", (("n_components", dim),)))
    if "euclidean" in REGISTRY and method != "euclidean":
        rows.append((f"Euclidean, {ds_full.n_features}-D", "euclidean", ()))  # all features
    return rows


def show_scores(result, references):
    """The method's accuracy beside the references; the delta is against the first (comparable)."""
    cols = st.columns(1 + len(references) + 1)
    first = references[0] if references else None
    cols[0].metric(
        "1-NN accuracy" if result.Z is not None else "accuracy",
        f"{result.accuracy:.3f}",
        delta=None if first is None else f"{result.accuracy - first[1].accuracy:+.3f}",
        help=spec.label if first is None else f"{spec.label}; the arrow: minus {first[0]}",
    )
    for col, (label, fitted) in zip(cols[1:], references, strict=False):
        col.metric(label, f"{fitted.accuracy:.3f}", help=f"1-NN accuracy, {label}")
    cols[-1].metric(
        "labeled / unlabeled", f"{int(result.mask.sum())} / {int((~result.mask).sum())}"
    )
    st.caption(scaling_note(ds_full, scaling, spec, result.mask))
    same_dim = result.Z is not None and first is not None and not first[0].startswith("Euclid")
    st.caption(
        f"**{spec.label}** on this split; fit in {result.fit_time * 1000:.0f} ms (cached after "
        "the first time). "
        + (
            f"The arrow is the difference to **{first[0]}** "
            + ("(same output dimension)." if same_dim else "(the input space).")
            if first is not None
            else ""
        )
    )


def show_spread(values, refs):
    """Accuracy over 10 split seeds, the method against its comparable reference: wins/ties/losses."""
    label, ref_method, ref_params = refs[0]
    seeds = range(10)
    with st.spinner("fitting 10 splits"):
        mine = [
            cache.fit(
                *data_key,
                method,
                cache.params_key(values),
                label_mode,
                label_value,
                s,
                preprocess=scaling,
            )
            for s in seeds
        ]
        theirs = [
            cache.fit(
                *data_key, ref_method, ref_params, label_mode, label_value, s, preprocess=scaling
            )
            for s in seeds
        ]
    spread = compute.seed_spread([r.accuracy for r in mine], [r.accuracy for r in theirs])
    st.markdown(
        f"**Over split seeds 0–9** against {label} — wins/ties/losses {spread.wins}/{spread.ties}/"
        f"{spread.losses}: {spec.label} {spread.mean:.3f} ± {spread.std:.3f}, {label} "
        f"{spread.ref_mean:.3f} ± {spread.ref_std:.3f}. {spread.verdict(spec.label, label)}"
    )


def embedding_figure(result, ds, view_id):
    """Normalised, Procrustes-aligned to the previous picture of this view, on sticky axes."""
    Z = plots.normalize_embedding(result.Z[:, :2])
    previous = st.session_state.setdefault("_previous", {})
    ranges = st.session_state.setdefault("_ranges", {})
    Z = plots.align_to(Z, previous.get(view_id))
    previous.pop(view_id, None)
    previous[view_id] = Z  # most recent last; keep the last few views only
    for stale in list(previous)[:-16]:
        previous.pop(stale)
        ranges.pop((stale, 0), None)
        ranges.pop((stale, 1), None)
    x_range = plots.merge_ranges(ranges.get((view_id, 0)), plots.padded_range(Z[:, 0]))
    ranges[(view_id, 0)] = x_range
    y_range = None
    if Z.shape[1] > 1:
        y_range = plots.merge_ranges(ranges.get((view_id, 1)), plots.padded_range(Z[:, 1]))
        ranges[(view_id, 1)] = y_range
    dims = "1-D strip" if Z.shape[1] == 1 else "2-D"
    return plots.embedding_scatter(
        Z,
        ds.y,
        result.mask,
        ds.target_names,
        title=f"{spec.label} on {ds.name}: {dims} embedding",
        x_range=x_range,
        y_range=y_range,
    )


@st.fragment
def live_view():
    started = time.perf_counter()
    left, right = st.columns([1, 3])
    with left:
        st.markdown(f"**{spec.label}** parameters")
        params = widgets()
        if not spec.params:
            st.caption("This method has no parameters.")
        else:
            st.button(
                "Reset to defaults",
                key="reset_params",
                on_click=presets.reset_method,
                args=(method,),
                help=f"every parameter of {spec.label} back to its default",
            )
    publish(url_values(base_keys + [prefix + p for p in params]), prune=("p.", "d."))
    ds, _ = cache.view_data(*data_key)
    if spec.input == "image":  # slow (seconds to minutes): stages on a progress bar, not a spinner
        with right:
            bar = st.progress(0.0, text=f"{spec.label}: starting")

        def progress(done, total, message):
            bar.progress(
                min(1.0, done / max(total, 1)), text=f"{spec.label}: {message} ({done}/{total})"
            )

        result = guarded(
            runs.image_fit,
            *data_key,
            method,
            cache.params_key(params),
            *split_key,
            scaling,
            progress=progress,
            context=spec.label,
        )
        bar.empty()
    else:
        result = guarded(
            cache.fit,
            *data_key,
            method,
            cache.params_key(params),
            *split_key,
            context=spec.label,
            preprocess=scaling,
        )
    refs = [] if result is None else comparison(result, params)
    references = []
    for label, ref_method, ref_params in refs:
        fitted = guarded(
            cache.fit,
            *data_key,
            ref_method,
            ref_params,
            *split_key,
            context=label,
            preprocess=scaling,
        )
        if fitted is not None:
            references.append((label, fitted))
    with right:
        if result is None:
            return
        show_scores(result, references)
        collapsed = None if result.Z is None else collapse_warning(result.Z, result.mask)
        if collapsed:
            st.warning(collapsed, icon=":material/warning:")
        if refs and st.toggle("Spread over 10 split seeds", key="spread"):
            guarded(show_spread, params, refs, context="spread over seeds")
        if result.Z is not None:
            view_id = (data_key, method, split_key, scaling)
            fig = presentation.fit_screen(embedding_figure(result, ds, view_id))
            st.plotly_chart(fig, key="embedding")
        else:
            fig = plots.embedding_scatter(
                plots.pca_2d(ds.X),
                result.predictions,
                result.mask,
                ds.target_names,
                title=f"{spec.label}: predicted classes (PCA view of the data)",
                axis_titles=("PC 1", "PC 2"),
            )
            st.plotly_chart(presentation.fit_screen(fig), key="embedding")
            wrong = int(np.sum(result.predictions[~result.mask] != ds.y[~result.mask]))
            st.caption(f"{wrong} unlabeled points misclassified")
        if result.eigenvalues is not None and result.eigenvalues.size:
            n_used = result.Z.shape[1] if result.Z is not None else None
            st.plotly_chart(plots.spectrum(result.eigenvalues, n_used=n_used), key="spectrum")
        code = (name, data_params, max_points, spec, params, *split_key, scaling, ds_full)
        code_snippets.show_code(code_snippets.embed_snippet(code_snippets.FitState(*code)))
    if TIMING:  # bench/app_latency.py reads this from the server log
        elapsed = 1000 * (time.perf_counter() - started)
        print(f"metriclab-timing live_view {elapsed:.1f} ms", flush=True)


def scrub_view():
    candidates = numeric_params(spec)
    if not candidates:
        st.info(f"{spec.label} has no numeric parameter to scrub through.")
        return
    names = [p.name for p in candidates]
    default = next((n for n in ("lam", "width") if n in names), names[0])
    seed_from_url("scrub", default, options=names)
    st.session_state["scrub"] = (
        st.session_state["scrub"] if st.session_state["scrub"] in names else default
    )
    left, right = st.columns([1, 3])
    with left:
        scrub_name = st.selectbox(
            "Scrub through", names, key="scrub", format_func=lambda n: spec.param(n).label
        )
        fixed = widgets(skip=(scrub_name,))
    publish(url_values(base_keys + ["scrub"] + [prefix + p for p in fixed]), prune=("p.", "d."))
    scrubbed = page_param(scrub_name)
    values = param_values(scrubbed)
    if len(values) > 24:
        values = [values[i] for i in np.linspace(0, len(values) - 1, 24).round().astype(int)]
    current = st.session_state.get(prefix + scrub_name, scrubbed.default)
    start = int(np.argmin([abs(v - current) for v in values])) if current is not None else 0
    with right, st.spinner(f"computing {len(values)} embeddings (once; cached)"):
        out = guarded(
            cache.scrub,
            *data_key,
            method,
            cache.params_key(fixed),
            *split_key,
            scrub_name,
            tuple(values),
            context=spec.label,
            preprocess=scaling,
        )
    if out is None:
        return
    frames, accuracies = out
    ds, _ = cache.view_data(*data_key)
    mask = cache.split(*data_key, *split_key)
    labels = [f"{format_value(v)} (acc {a:.2f})" for v, a in zip(values, accuracies, strict=True)]
    fig = plots.embedding_animation(
        frames,
        labels,
        ds.y,
        mask,
        ds.target_names,
        title=f"{spec.label} on {ds.name}: drag the slider to scrub {scrubbed.label}",
        slider_prefix=f"{scrubbed.label} = ",
        active=start,
    )
    right.plotly_chart(fig, key="scrub_chart")
    right.caption(
        "All frames were computed once on the server and travel to the browser with the page: "
        "scrubbing is instant. Each frame is Procrustes-aligned to the one before; the label "
        "gives the 1-NN accuracy on the unlabeled points."
    )
    state = (name, data_params, max_points, spec, fixed, *split_key, scaling, ds_full)
    with right:
        code_snippets.show_code(
            code_snippets.scrub_snippet(code_snippets.FitState(*state), scrub_name, values)
        )


def window_view():
    candidates = numeric_params(spec)
    if len(candidates) < 2:
        st.info(f"{spec.label} needs two numeric parameters for a window map.")
        return
    names = [p.name for p in candidates]
    row_default = "lam" if "lam" in names else names[0]
    col_default = (
        "width"
        if "width" in names and row_default != "width"
        else names[1 if names[0] == row_default else 0]
    )
    seed_from_url("row", row_default, options=names)
    seed_from_url("col", col_default, options=names)
    c1, c2, c3 = st.columns(3)
    row_name = c1.selectbox("Rows", names, key="row", format_func=lambda n: spec.param(n).label)
    col_name = c2.selectbox("Columns", names, key="col", format_func=lambda n: spec.param(n).label)
    seed_from_url("grid", 7, options=[3, 5, 7, 9, 11])
    size = c3.select_slider("Grid size", [3, 5, 7, 9, 11], key="grid")
    if row_name == col_name:
        st.error("choose two different parameters for rows and columns")
        return

    from_link = {}

    def current_of(pname):
        """The parameter's value in the live view (session or shared URL, validated), or None."""
        current = st.session_state.get(prefix + pname)
        if current is None and prefix + pname in st.query_params:
            if pname not in from_link:
                options = param_values(page_param(pname)) or None
                text = st.query_params[prefix + pname]
                from_link[pname], notice = validate(text, None, options=options, parse=float)
                if notice:
                    st.warning(f"Link parameter `{prefix + pname}`: {notice}.")
            current = from_link[pname]
        return current

    def grid_of(pname):
        """`size` values spread over the slider's range, one of them the current value."""
        values = param_values(page_param(pname))
        idx = np.linspace(0, len(values) - 1, min(size, len(values))).round().astype(int)
        current = current_of(pname)
        if current is not None:
            here = int(np.argmin([abs(v - current) for v in values]))
            idx[np.argmin(np.abs(idx - here))] = here
        return tuple(dict.fromkeys(values[i] for i in sorted(idx)))

    rows, cols = grid_of(row_name), grid_of(col_name)
    with st.expander("Other parameters (fixed over the grid)", expanded=False):
        defaults = widgets(skip=(row_name, col_name))
    kept = {prefix + n: current_of(n) for n in (row_name, col_name) if current_of(n) is not None}
    publish(
        {**url_values(base_keys + ["row", "col", "grid"] + [prefix + p for p in defaults]), **kept},
        prune=("p.", "d."),
    )
    run_key = (
        data_key,
        scaling,
        method,
        split_key,
        row_name,
        rows,
        col_name,
        cols,
        cache.params_key(defaults),
    )
    st.caption(f"{len(rows) * len(cols)} fits, the other parameters as set above.")
    if st.button("Compute window map", type="primary", key="run_window"):
        with st.spinner("fitting the grid and the baseline on each cell"):
            computed = guarded(
                cache.window,
                *data_key,
                method,
                cache.params_key(defaults),
                *split_key,
                (row_name, rows),
                (col_name, cols),
                context=spec.label,
                preprocess=scaling,
            )
        if computed is not None:
            st.session_state["_window"] = (run_key, computed)
    stored = st.session_state.get("_window")
    if stored is None or stored[0] != run_key:
        return
    computed = stored[1]
    if computed.failures:
        shown = "; ".join(computed.failures[:3])
        more = f" (and {len(computed.failures) - 3} more)" if len(computed.failures) > 3 else ""
        st.error(
            f"{len(computed.failures)} fit(s) of the grid failed and show as gaps: {shown}{more}",
            icon=":material/error:",
        )
    grid, base_grid, base_label = computed.grid, computed.baseline, computed.baseline_label
    row_p, col_p = spec.param(row_name), spec.param(col_name)
    fig = plots.window_map(
        rows,
        cols,
        grid,
        base_grid,
        row_name=row_p.label,
        col_name=col_p.label,
        title=f"{spec.label} minus {base_label}: 1-NN accuracy on the unlabeled points",
        row_log=bool(row_p.log and min(rows) > 0),
        col_log=bool(col_p.log and min(cols) > 0),
        baseline_name=base_label,
    )
    st.plotly_chart(fig, key="window_chart")
    wins = np.nanmean(grid > base_grid + 1e-12)
    st.caption(
        f"Colour: accuracy minus {base_label}'s on the same split (blue: {spec.label} wins, red: "
        f"it loses, white: a tie). {spec.label} wins on {wins:.0%} of the grid; the black line "
        "runs along the sides of those cells. The baseline is fitted with the same shared "
        "settings in each cell; grey dots mark the grid values."
    )
    state = (name, data_params, max_points, spec, defaults, *split_key, scaling, ds_full)
    code_snippets.show_code(
        code_snippets.window_snippet(
            code_snippets.FitState(*state), (row_name, rows), (col_name, cols)
        )
    )


if mode == "live":
    live_view()
elif mode == "input":  # label by clicking, see the metric (metriclab/ui/input_view.py)
    input_view(spec, data_key, split_key, scaling, widgets, base_keys, prefix)
elif mode == "learn":  # a learner's iterations as animation frames (metriclab/ui/learn_view.py)
    learn_view(spec, data_key, split_key, scaling, widgets, base_keys, prefix)
elif mode == "scrub":
    scrub_view()
else:
    window_view()
