"""Bad input at the edges gives a clear ValueError for every method."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from metriclab.methods import REGISTRY
from tests.test_robustness import IMAGE_SHAPE, fit_and_output

METHODS = sorted(REGISTRY)


def clean_data(spec, n_per_class=15, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1, 2], n_per_class)
    d = int(np.prod(IMAGE_SHAPE)) if spec.input == "image" else 4
    X = rng.standard_normal((y.size, d)) + y[:, None] * 2.0
    if spec.input == "image":
        X = np.abs(X)
    mask = np.zeros(y.size, dtype=bool)
    for c in range(3):
        mask[np.flatnonzero(y == c)[:5]] = True
    return X, y, mask


def run(spec, X, y, mask, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit_and_output(spec, params, X, y, mask)


@pytest.mark.parametrize("key", METHODS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_features_are_refused(key, bad):
    spec = REGISTRY[key]
    X, y, mask = clean_data(spec)
    X[np.flatnonzero(mask)[0], 0] = bad
    with pytest.raises(ValueError, match=r"(?i)nan|inf|finite"):
        run(spec, X, y, mask)


@pytest.mark.parametrize("key", METHODS)
def test_non_numeric_features_are_refused(key):
    spec = REGISTRY[key]
    X, y, mask = clean_data(spec)
    X = X.astype(object)
    X[0, 0] = "abc"
    with pytest.raises(ValueError):
        run(spec, X, y, mask)


# scikit-learn's NCA fits one class (it returns its start); ours does too, as a drop-in (issue 27)
ONE_CLASS_FITS = {"nca"}


@pytest.mark.parametrize(
    "key", [k for k in METHODS if REGISTRY[k].needs_labels and k not in ONE_CLASS_FITS]
)
def test_a_single_labelled_class_is_refused(key):
    spec = REGISTRY[key]
    X, y, mask = clean_data(spec)
    mask = mask & (y == 0)
    with pytest.raises(ValueError, match=r"(?i)class"):
        run(spec, X, y, mask)


@pytest.mark.parametrize("key", [k for k in METHODS if REGISTRY[k].needs_labels])
def test_the_app_and_comparisons_refuse_a_single_labelled_class(key):
    from metriclab.evaluation import SplitRequest, fit_split

    spec = REGISTRY[key]
    X, y, mask = clean_data(spec)
    shape = IMAGE_SHAPE if spec.input == "image" else None
    with pytest.raises(ValueError, match="at least two classes"):
        fit_split(SplitRequest(spec, X, y, mask & (y == 0), image_shape=shape))


@pytest.mark.parametrize("key", METHODS)
def test_string_labels_work_or_are_refused_clearly(key):
    spec = REGISTRY[key]
    if spec.transductive:
        pytest.skip("transductive methods take -1 for unlabeled points, so labels are integers")
    X, y, mask = clean_data(spec)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    kwargs = {"image_shape": IMAGE_SHAPE} if spec.input == "image" else {}
    est = spec.make(**kwargs)
    try:
        est.fit(X[mask], names[mask])
    except ValueError as exc:
        assert "label" in str(exc).lower() or "class" in str(exc).lower()
        return
    out = est.predict(X) if spec.output == "classifier" else est.transform(X)
    assert len(out) == len(X)


@pytest.mark.parametrize(
    "key", [k for k in METHODS if any(p.name == "k" for p in REGISTRY[k].params)]
)
def test_fewer_labelled_points_than_k(key):
    """k larger than the labelled points of a class: a clear error naming k, or a documented clip."""
    spec = REGISTRY[key]
    X, y, mask = clean_data(spec)
    high = spec.param("k").high
    k = int(min(high, 8)) if high is not None else 8
    try:
        out = run(spec, X, y, mask, k=k)  # 5 labelled points per class, k=8
    except ValueError as exc:
        assert "k" in str(exc)
        return
    assert all(np.isfinite(o).all() for o in out)


@pytest.mark.parametrize(
    "key", [k for k in METHODS if any(p.name == "n_components" for p in REGISTRY[k].params)]
)
def test_too_many_components(key):
    spec = REGISTRY[key]
    X, y, mask = clean_data(spec)
    p = spec.param("n_components")
    with pytest.raises(ValueError, match="n_components must be >= 1"):
        spec.make(n_components=0)
    try:  # the slider's top on 4 features: refused with the reason, or clipped to what fits
        out = run(spec, X, y, mask, n_components=int(p.ui_high))
    except ValueError as exc:
        assert "n_components" in str(exc) or "component" in str(exc)
        return
    assert all(np.isfinite(o).all() for o in out)


def _bounded_params():
    for key in METHODS:
        for p in REGISTRY[key].params:
            if p.kind in ("int", "float") and p.low is not None and p.low >= 0:
                yield key, p.name


@pytest.mark.parametrize("key, name", list(_bounded_params()))
def test_out_of_range_parameters_are_refused(key, name):
    """λ, widths, k ... of 0 (where the range excludes it) or negative: ValueError naming the parameter."""
    spec = REGISTRY[key]
    p = spec.param(name)
    for value in {p.low - 1, -1.0, 0.0} - ({0.0} if p.low <= 0 else set()):
        with pytest.raises(ValueError, match=name):
            spec.make(**{name: value})
