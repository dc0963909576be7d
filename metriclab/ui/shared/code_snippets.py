""" "Show the code": for what a page shows, a runnable Python snippet that uses only the public
metriclab API and recomputes it (same data set, subsample, split, scaling, method and parameters),
ending in a print of the page's headline number.

The builders are pure functions of the page's state (no streamlit), so the tests run each snippet
in a fresh interpreter and compare its output with the page; `show_code` draws the expander.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

import metriclab
from metriclab.datasets import Dataset
from metriclab.methods import REGISTRY
from metriclab.preprocess import scaler_fit_rows
from metriclab.ui.shared.fit_request import UPLOAD_PREFIX

SESSION_PREFIX = UPLOAD_PREFIX  # a set held by the session (upload or drawing)
UPLOAD_NOTE = "# the CSV file you uploaded: put its path here"
DRAWN_DIGITS = 4  # coordinates of drawn points are rounded to this many decimals when drawn


def _call(function: str, args: Sequence[str] = (), kwargs: Mapping[str, Any] = ()) -> str:
    """`function(arg, ..., name=value, ...)` with values as Python literals (repr)."""
    parts = list(args) + [f"{k}={v!r}" for k, v in dict(kwargs).items()]
    text = f"{function}({', '.join(parts)})"
    if len(text) <= 96:
        return text
    return f"{function}(\n" + "".join(f"    {p},\n" for p in parts) + ")"


def _public_class(factory) -> tuple[str, str] | None:
    """(module, name) to import `factory` from: `metriclab` when it exports it, else the class's
    own module when it is a class defined at a module's top level (a method added from outside
    the package); None for a factory function of the registry (the snippet then uses it)."""
    for name in metriclab.__all__:
        if name != "__version__" and getattr(metriclab, name, None) is factory:
            return "metriclab", name
    module, qualname = getattr(factory, "__module__", ""), getattr(factory, "__qualname__", "")
    if isinstance(factory, type) and module and not module.startswith("metriclab"):
        if "<" not in qualname and "." not in qualname:
            return module, qualname
    return None


def _literal(array: np.ndarray) -> str:
    """A NumPy array as a nested list literal (drawn coordinates are short decimals)."""
    return repr(np.asarray(array).tolist())


def data_lines(
    name: str,
    data_params: Mapping[str, Any] | None = None,
    max_points: int | None = None,
    dataset: Dataset | None = None,
    var: str = "ds",
) -> tuple[list[str], list[str]]:
    """(imports, lines) that leave the page's data set in `var`: a named set with its generator's
    parameters, an uploaded CSV (read from the path the person gives) or a drawn set (its points
    written out), then the page's stratified subsample of large sets."""
    imports, lines = [], []
    session_set = dataset is not None and name.startswith(SESSION_PREFIX)
    if session_set and dataset.source.startswith("drawn"):
        imports.append("from metriclab.datasets import from_points")
        lines += [
            f"{var} = from_points(  # the points you drew",
            f"    {_literal(np.round(dataset.X, DRAWN_DIGITS))},",
            f"    {_literal(dataset.y)},",
            f"    class_names={list(dataset.target_names)!r},",
            ")",
        ]
    elif session_set:
        imports.append("from metriclab.datasets import load_csv")
        label_column = (dataset.params or {}).get("label_column")
        call = _call("load_csv", [repr(dataset.name)], {"label_column": label_column})
        lines += [UPLOAD_NOTE, f"{var} = {call}"]
    else:
        imports.append("from metriclab.datasets import load")
        lines.append(f"{var} = " + _call("load", [repr(name)], dict(data_params or {})))
    n = dataset.n_samples if dataset is not None else None
    if max_points is not None and (n is None or n > max_points):
        imports.append("from metriclab.datasets import subsample")
        lines.append(
            f"{var}, kept = subsample({var}, {max_points}, seed=0)  # the page's stratified subsample"
        )
    return imports, lines


def split_line(split) -> str:
    """The page's labelled points (a `SplitRef`): a share of each class or a number per class."""
    if split.mode == "fraction":
        how = f"fraction={float(split.value)!r}"
    else:
        how = f"per_class={int(split.value)}"
    return f"mask = labeled_mask(ds.y, {how}, seed={int(split.seed)})  # True = labelled"


def model_lines(spec, params: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """(imports, lines) that build the unfitted estimator `model` exactly as `spec.make(**params)`."""
    values = spec.resolve(**dict(params))
    args = ["image_shape=ds.image_shape"] if spec.input == "image" else []
    public = _public_class(spec.factory)
    if public is not None:
        module, name = public
        fixed = {**spec.fixed, **values}  # with the arguments the app always passes (a seed)
        return [f"from {module} import {name}"], ["model = " + _call(name, args, fixed)]
    return (
        ["from metriclab.methods import REGISTRY"],
        ["model = " + _call(f"REGISTRY[{spec.key!r}].make", args, values)],
    )


def _scaler_rows(spec, preprocess: str) -> str:
    """Which rows the page's scaler is fitted on for `spec`: "all" or "labelled" ("" unscaled)."""
    if preprocess == "none":
        return ""
    return (
        "all"
        if scaler_fit_rows(spec, "transductive", np.zeros(1, dtype=bool)).all()
        else "labelled"
    )


def scaling_lines(spec, preprocess: str) -> tuple[list[str], list[str]]:
    """`X`: the features scaled as on the page (the scaler fitted on the rows the method sees)."""
    if preprocess == "none":
        return [], ["X = ds.X  # no feature scaling"]
    everyone = bool(scaler_fit_rows(spec, "transductive", np.zeros(1, dtype=bool)).all())
    rows, why = (
        ("None", "all points' features, no labels (a transductive fit sees them all)")
        if everyone
        else ("mask", "the labelled points only")
    )
    return (
        ["from metriclab.preprocess import scale_features"],
        [
            f"# the scaler is fitted on {why}",
            f"X = scale_features({preprocess!r}, ds.X, fit_rows={rows})",
        ],
    )


def fit_lines(spec) -> list[str]:
    """Fit `model` under the method's protocol and leave the embedding in `Z` (or, for a
    classifier, its accuracy on the unlabelled points in `accuracy`)."""
    if spec.output == "classifier":
        return [
            "model.fit(X[mask], ds.y[mask])",
            "predicted = model.predict(X[~mask])",
            "accuracy = np.mean(predicted == ds.y[~mask])",
        ]
    if spec.transductive:
        return [
            "model.fit(X, partial_labels(ds.y, mask))  # -1 marks the unlabelled points",
            "Z = model.embedding_",
        ]
    if spec.needs_labels:
        return [
            "model.fit(X[mask], ds.y[mask])  # learned from the labelled points",
            "Z = model.transform(X)",
        ]
    return ["model.fit(X)  # uses no labels", "Z = model.transform(X)"]


def _assemble(imports: list[str], body: list[str], header: str) -> str:
    """The snippet: docstring, imports (one line per module, names sorted), then the body."""
    plain = sorted({i for i in imports if i.startswith("import ")})
    names: dict[str, set[str]] = {}
    for line in imports:
        if line.startswith("from "):
            module, _, listed = line[len("from ") :].partition(" import ")
            names.setdefault(module, set()).update(n.strip() for n in listed.split(","))
    froms = [f"from {m} import {', '.join(sorted(names[m]))}" for m in sorted(names)]
    sections = [[f'"""{header}"""'], plain, froms, body]
    return "\n\n".join("\n".join(lines) for lines in sections if lines) + "\n"


def shown_name(request, dataset: Dataset | None) -> str:
    """The data set's name as the page shows it (an upload's file name)."""
    if dataset is not None and request.data.name.startswith(SESSION_PREFIX):
        return dataset.name
    return request.data.name


def fitted_lines(request, dataset: Dataset | None) -> tuple[list[str], list[str]]:
    """(imports, lines) up to the fitted `model` and its embedding `Z` (or `accuracy`) of
    `request` (a `FitRequest`); `dataset` is the loaded set (an upload's or a drawing's points)."""
    spec = request.spec
    data = request.data
    imports, body = data_lines(data.name, dict(data.params), data.max_points, dataset)
    imports.append("from metriclab.evaluation import labeled_mask")
    body.append(split_line(request.split))
    for more, lines in (scaling_lines(spec, request.scaling), model_lines(spec, request.values)):
        imports += more
        body += lines
    body += fit_lines(spec)
    if spec.transductive and spec.output != "classifier":
        imports.append("from metriclab.evaluation import partial_labels")
    return imports, body


def embed_snippet(request, dataset: Dataset | None = None, test: float = 0.0) -> str:
    """The Embed page's live view: fit, then print the 1-NN accuracy on the unlabelled points (a
    classifier's own accuracy) with the page's three decimals. With a held-out share `test` (the
    chart then draws the fit without it), the fit without the held-out points too: its `Z` and
    `mask` are the chart's, and the held-out tiles' two accuracies are printed."""
    spec = request.spec
    imports, body = fitted_lines(request, dataset)
    if spec.output == "classifier":
        imports.append("import numpy as np")
        body.append('print(f"accuracy: {accuracy:.3f}")')
    else:
        imports.append("from metriclab.evaluation import embedding_accuracy")
        body += [
            "accuracy = embedding_accuracy(Z, ds.y, mask)  # 1-NN on the unlabelled points",
            'print(f"1-NN accuracy: {accuracy:.3f}")',
        ]
        if test > 0:
            more, lines = held_out_lines(request, test)
            imports += more
            body += lines
    name = shown_name(request, dataset)
    return _assemble(imports, body, f"{spec.label} on {name}, as on the Embed page.")


def held_out_lines(request, test: float) -> tuple[list[str], list[str]]:
    """(imports, lines) that refit the method without a held-out share `test` (the draw's seed is
    the split's, as on the page) and leave the chart's `Z` and `mask`, printing the held-out
    tiles' accuracies."""
    seed = int(request.split.seed)
    other = "1-NN transductive" if request.spec.transductive else "1-NN other unlabelled"
    split = _call(
        "SplitRequest.of",
        [f"REGISTRY[{request.spec.key!r}]", "ds", "mask", repr(request.values)],
        {"preprocess": request.scaling},
    )
    imports = [
        "from metriclab.evaluation import SplitRequest, fit_held_out",
        "from metriclab.methods import REGISTRY",
    ]
    lines = [
        "",
        f"# the chart: the fit without {100 * test:.0f} % of the points held out (seed {seed}),",
        "# which its out-of-sample map places",
        f"held = fit_held_out({split}, test={float(test)!r}, seed={seed})",
        "Z, mask = held.embedding, held.labeled",
        "for tile, value in [",
        '    ("1-NN on held-out (mapped)", held.held_out_accuracy),',
        f"    ({other!r}, held.transductive_accuracy),",
        "]:",
        '    print(f"{tile}: " + ("—" if value is None else f"{value:.3f}"))',
    ]
    return imports, lines


def sweep_lines(request, dataset: Dataset | None) -> tuple[list[str], list[str]]:
    """(imports, lines) of a snippet that fits the method many times: the data set, the split and
    the scaled features `X`, with the registry and the accuracy the loop needs."""
    data = request.data
    imports, body = data_lines(data.name, dict(data.params), data.max_points, dataset)
    imports += [
        "from metriclab.evaluation import embedding_accuracy, labeled_mask",
        "from metriclab.methods import REGISTRY",
    ]
    body.append(split_line(request.split))
    more, lines = scaling_lines(request.spec, request.scaling)
    return imports + more, body + lines


def scrub_snippet(request, dataset: Dataset | None, scrub_name: str, values: Sequence[Any]) -> str:
    """The Embed page's λ scrub: one fit per value of `scrub_name` (the other parameters as on the
    page), each printing the 1-NN accuracy the slider's label gives (two decimals)."""
    spec = request.spec
    imports, body = sweep_lines(request, dataset)
    if spec.transductive:
        imports.append("from metriclab.evaluation import partial_labels")
    image = ", image_shape=ds.image_shape" if spec.input == "image" else ""
    body += [
        f"spec = REGISTRY[{spec.key!r}]  # {spec.label}",
        f"fixed = {request.values!r}  # the page's other parameters",
        f"for value in {list(values)!r}:",
        f"    model = spec.make(**fixed, {scrub_name}=value{image})",
        *("    " + line for line in fit_lines(spec)),
        "    accuracy = embedding_accuracy(Z, ds.y, mask)  # 1-NN on the unlabelled points",
        f'    print(f"{scrub_name} = {{value!r}}: 1-NN accuracy {{accuracy:.2f}}")',
    ]
    return _assemble(
        imports,
        body,
        f"{spec.label} on {shown_name(request, dataset)}: the Embed page's scrub of {scrub_name}.",
    )


def _fit_and_score_lines(specs) -> list[str]:
    """The body of `accuracy(spec, params, X)` after `model` is made: each spec's fit (a branch per
    protocol when they differ), then the 1-NN accuracy on the unlabelled points."""

    def scored(spec) -> list[str]:
        if spec.output == "classifier":
            return fit_lines(spec)
        return [*fit_lines(spec), "accuracy = embedding_accuracy(Z, ds.y, mask)"]

    first, *others = specs
    if all(scored(other) == scored(first) for other in others):
        return ["    " + line for line in scored(first)]
    lines = []
    for i, spec in enumerate(specs):
        lines.append(f"    {'if' if i == 0 else 'elif'} spec.key == {spec.key!r}:")
        lines += ["        " + line for line in scored(spec)]
    return lines


def window_snippet(
    request, dataset: Dataset | None, row: tuple[str, Sequence[Any]], col: tuple[str, Sequence[Any]]
) -> str:
    """The Embed page's window map: the method's 1-NN accuracy on every cell of the grid minus its
    baseline's (fitted with the settings it shares with the cell; without a baseline, minus the
    grid's median), each cell printed, then the share of cells the method wins, as the caption."""
    spec = request.spec
    base = REGISTRY.get(spec.baseline) if spec.baseline else None
    imports, body = sweep_lines(request, dataset)
    imports.append("import numpy as np")
    base_x = "X"
    if base is not None and _scaler_rows(base, request.scaling) != _scaler_rows(
        spec, request.scaling
    ):  # the baseline's scaler is fitted on other rows (all points / the labelled ones)
        more, lines = scaling_lines(base, request.scaling)
        imports += more
        body += [line.replace("X = ", "X_base = ", 1) for line in lines]
        base_x = "X_base"
    if spec.transductive or (base is not None and base.transductive):
        imports.append("from metriclab.evaluation import partial_labels")
    (row_name, rows), (col_name, cols) = row, col
    image = ", image_shape=ds.image_shape" if spec.input == "image" else ""
    body += [
        "",
        "",
        "def accuracy(spec, params, X):",
        '    """1-NN accuracy on the unlabelled points of `spec` fitted with `params`."""',
        f"    model = spec.make(**params{image})",
        *_fit_and_score_lines([spec] if base is None else [spec, base]),
        "    return accuracy",
        "",
        "",
        f"spec = REGISTRY[{spec.key!r}]  # {spec.label}",
        f"fixed = {request.values!r}  # the page's other parameters",
        f"rows, cols = {list(rows)!r}, {list(cols)!r}  # {row_name} × {col_name}",
        "grid = np.array([",
        f"    [accuracy(spec, {{**fixed, {row_name!r}: r, {col_name!r}: c}}, X) for c in cols]",
        "    for r in rows",
        "])",
    ]
    if base is not None:
        body += [
            f"base = REGISTRY[{base.key!r}]  # the baseline: {base.label}",
            "shared = {p.name for p in base.params}  # the settings it shares with each cell",
            "reference = np.array([",
            "    [",
            f"        accuracy(base, {{k: v for k, v in {{**fixed, {row_name!r}: r, "
            f"{col_name!r}: c}}.items() if k in shared}}, {base_x})",
            "        for c in cols",
            "    ]",
            "    for r in rows",
            "])",
        ]
    else:
        body.append("reference = np.full(grid.shape, np.median(grid))  # no baseline: the median")
    body += [
        "for i, r in enumerate(rows):",
        "    for j, c in enumerate(cols):",
        f'        print(f"{row_name}={{r!r}}, {col_name}={{c!r}}: '
        f'{{grid[i, j] - reference[i, j]:+.3f}}")',
        f'print(f"{spec.label} wins on {{np.mean(grid > reference + 1e-12):.0%}} of the grid")',
    ]
    return _assemble(
        imports,
        body,
        f"{spec.label} on {shown_name(request, dataset)}: the Embed page's window map.",
    )


def dissimilarity_snippet(request, dataset: Dataset | None = None) -> str:
    """The Dissimilarity page: fit, take the learned dissimilarity (else the Euclidean distances of
    the scaled labelled inputs) and print Zhang's two checks as the page's caption gives them."""
    spec, preprocess = request.spec, request.scaling
    imports, body = fitted_lines(request, dataset)
    imports.append("import numpy as np")
    imports.append("from metriclab.methods.zhang import is_euclidean, is_fisher_separable")
    imports.append("from metriclab.preprocess import scale_features")
    body += [
        'D = getattr(model, "dissimilarity_", None)',
        "if D is not None and len(D) in (len(ds.y), mask.sum()):  # the learned dissimilarity",
        "    D_labels = ds.y if len(D) == len(ds.y) else ds.y[mask]",
        "else:  # none learned: Euclidean distances of the labelled inputs",
        f"    X_lab = scale_features({preprocess!r}, ds.X[mask])",
        "    D = np.sqrt(np.maximum(((X_lab[:, None, :] - X_lab[None, :, :]) ** 2).sum(-1), 0.0))",
        "    D_labels = ds.y[mask]",
        "gower = is_euclidean(D, tol=1e-8)  # -1/2 H D^2 H positive semidefinite?",
        "fisher = is_fisher_separable(D, D_labels)  # every within < every between?",
        'print(f"Euclidean: {gower.euclidean}; Fisher separable: {fisher.separable}")',
        'print(f"smallest/largest eigenvalue {gower.relative_min_eigenvalue:.2e}; "',
        '      f"Fisher margin {fisher.margin:.3g}")',
    ]
    return _assemble(
        imports,
        body,
        f"{spec.label} on {shown_name(request, dataset)}, as on the Dissimilarity page.",
    )


def _classifier_argument(comparison) -> dict[str, str]:
    """compare()'s `classifier` where the page chose another than its default 1-NN."""
    classifier = getattr(comparison, "classifier", "1nn")
    return {} if classifier == "1nn" else {"classifier": classifier}


def compare_snippet(
    comparison,
    datasets: Mapping[str, Dataset] | None = None,
    methods: Sequence[tuple[str, dict]] | None = None,
    relabel: Sequence[str] = (),
) -> str:
    """The Compare page: the same repeated-split comparison (a `ComparisonRequest`), then its
    summary's mean accuracies. `datasets` gives the Dataset of each upload or drawing among its
    data sets (by name); `methods` the (method, parameters) the page runs (its baselines
    included; default: the chosen methods at their defaults) and `relabel` the lines of code that
    give their rows the page's names (run on `results` before the summary)."""
    sets = comparison.sets
    runs = list(methods) if methods is not None else [(m, {}) for m in comparison.methods]
    imports = ["from metriclab.evaluation import CompareRequest, compare, summarize"]
    imports += ["import json"] if any("json." in line for line in relabel) else []
    body: list[str] = []
    items = []
    for i, name in enumerate(sets):
        dataset = (datasets or {}).get(name)
        if dataset is None:
            items.append(repr(name))
            continue
        more, lines = data_lines(name, None, None, dataset, var=f"data_{i}")
        imports += more
        body += lines
        items.append(f"data_{i}")
    data = items[0] if len(items) == 1 else "[" + ", ".join(items) + "]"
    body += [
        "request = "
        + _call(
            "CompareRequest",
            [data, repr(runs) if methods is not None else repr({m: {} for m, _ in runs})],
            {
                "n_splits": int(comparison.n_splits),
                "fraction": float(comparison.fraction),
                "protocol": comparison.protocol,
                **_classifier_argument(comparison),
                "seed": int(comparison.seed),
                "preprocess": comparison.scaling,
            },
        ),
        "results = compare(request)",
        *relabel,
        "summary = summarize(results)  # the Euclidean baseline is always added",
        'print(summary[["dataset", "label", "accuracy_mean"]].to_string(index=False))',
    ]
    header = "The Compare page's comparison (methods at their defaults"
    header += ", with the page's PCA baselines)." if methods is not None else ")."
    return _assemble(imports, body, header)


def session_sets(names: Sequence[str]) -> dict[str, Dataset]:
    """The Dataset of each of `names` that this session holds (uploads and drawings), by name."""
    from metriclab.ui.shared.session_data import dataset

    return {n: dataset(n) for n in names if n.startswith(SESSION_PREFIX)}


def show_code(snippet: str, key: str | None = None) -> None:
    """The "Show the code" expander with the snippet (copy button included)."""
    import streamlit as st

    with st.expander("Show the code", expanded=False, icon=":material/code:"):
        st.caption(
            "Runs as is with `pip install -e .` of this repository: it recomputes what this page "
            "shows and prints its headline number."
        )
        st.code(snippet, language="python", wrap_lines=True)
