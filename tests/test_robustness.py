"""Property-based robustness over REGISTRY.

For every method, random parameters inside each Param's range and random small data sets (duplicated
points, constant columns, tiny classes, one labeled point per class, n smaller than k or n_components,
very large and very small feature scales): fitting and transforming either returns finite arrays of the
right shape or raises ValueError naming the problem. Nothing else: no other exception type, no NaN.
And no refusal of ordinary data: on a plain table (or images) every method works with its defaults.

The default suite tries FAST_EXAMPLES cases per method; `pytest -m fuzz` tries FUZZ_EXAMPLES.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metriclab.datasets import load
from metriclab.evaluation import labeled_mask, partial_labels
from metriclab.methods import REGISTRY

FAST_EXAMPLES = 12
FUZZ_EXAMPLES = 300
METHODS = sorted(REGISTRY)
IMAGE_SHAPE = (8, 8)
# ValueErrors that come from deep inside NumPy/SciPy rather than from our validation
NUMPY_INTERNALS = (
    "operands could not be broadcast",
    "concatenation axis",
    "zero-size array",
    "setting an array element with a sequence",
    "cannot reshape array",
)


def param_values(spec):
    """Strategy of a dict of valid parameter values for `spec`, drawn inside each Param's range."""
    fields = {}
    for p in spec.params:
        if p.kind == "choice":
            fields[p.name] = st.sampled_from(list(p.choices))
        elif p.kind == "bool":
            fields[p.name] = st.booleans()
        elif p.kind == "int":
            low = int(p.low) if p.low is not None else 0
            high = int(p.high) if p.high is not None else low + 20
            # small values (the usual case) more often than the far end of the range
            fields[p.name] = st.integers(low, min(high, low + 4)) | st.integers(
                low, min(high, low + 30)
            )
        else:
            low = p.low if p.low is not None else -10.0
            high = p.high if p.high is not None else 10.0
            if p.log and low > 0:
                values = st.floats(math.log10(low), math.log10(high)).map(lambda e: 10.0**e)
            else:
                values = st.floats(low, high, allow_nan=False, allow_infinity=False)
            fields[p.name] = values if p.default is not None else st.none() | values
    return st.fixed_dictionaries(fields)


@st.composite
def small_tables(draw, image: bool = False):
    """Small labelled data with the awkward cases listed above mixed in."""
    n_classes = draw(st.integers(2, 4))
    per_class = draw(st.lists(st.integers(2, 12), min_size=n_classes, max_size=n_classes))
    y = np.repeat(np.arange(n_classes), per_class)
    n = y.size
    d = int(np.prod(IMAGE_SHAPE)) if image else draw(st.integers(1, 6))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) + y[:, None]
    if image:
        X = np.abs(X) * 4
    scale = draw(st.sampled_from([1.0, 1e-6, 1e6]))
    X *= scale
    if draw(st.booleans()):  # duplicated points
        dup = rng.integers(0, n, size=max(1, n // 4))
        X[dup[1:]] = X[dup[0]]
    if not image and d > 1 and draw(st.booleans()):  # a constant column
        X[:, 0] = 3.0
    labels_per_class = draw(st.integers(1, 3))
    mask = np.zeros(n, dtype=bool)
    for c in range(n_classes):
        idx = np.flatnonzero(y == c)
        mask[idx[: min(labels_per_class, idx.size - 1)]] = True
    return X, y, mask


def fit_and_output(spec, params, X, y, mask):
    """Run the method under its own protocol; return its outputs (embeddings or predictions).

    Transductive methods with an out-of-sample map also return `transform` of three points, which
    must have as many columns as the embedding.
    """
    kwargs = dict(params)
    if spec.input == "image":
        kwargs["image_shape"] = IMAGE_SHAPE
    estimator = spec.make(**kwargs)
    if spec.output == "classifier":
        estimator.fit(X[mask], y[mask])
        return [np.asarray(estimator.predict(X[~mask]))]
    if spec.transductive:
        estimator.fit(X, partial_labels(y, mask))
        outputs = [np.asarray(estimator.embedding_)]
        if spec.out_of_sample:
            outputs.append(np.asarray(estimator.transform(X[:3])))
        return outputs
    if spec.needs_labels:
        estimator.fit(X[mask], y[mask])
    else:
        estimator.fit(X)
    return [np.asarray(estimator.transform(X))]


def check_outcome(spec, params, X, y, mask):
    """Finite output of the right shape, or a ValueError with a message. Anything else fails."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            outputs = fit_and_output(spec, params, X, y, mask)
        except ValueError as exc:
            message = str(exc)
            assert message.strip(), f"{spec.key}: ValueError without a message"
            assert not any(leak in message for leak in NUMPY_INTERNALS), (
                f"{spec.key} with {params}: a NumPy internal error leaked out: {message}"
            )
            return "refused"
    if spec.output == "classifier":
        (predicted,) = outputs
        assert predicted.shape == ((~mask).sum(),)
        assert set(np.unique(predicted)) <= set(np.unique(y[mask]))
        return "ok"
    main = outputs[0]
    assert main.ndim == 2 and main.shape[0] == X.shape[0], f"{spec.key}: shape {main.shape}"
    assert main.shape[1] >= 1
    if "n_components" in params:
        assert main.shape[1] <= max(params["n_components"], X.shape[1])
    for extra in outputs[1:]:
        assert extra.shape == (3, main.shape[1]), (
            f"{spec.key} with {params}: transform gives {extra.shape}, embedding {main.shape}"
        )
    for out in outputs:
        assert np.isfinite(out).all(), f"{spec.key} with {params}: non-finite output"
    return "ok"


def _property_test(examples):
    @pytest.mark.parametrize("key", METHODS)
    def test(key):
        spec = REGISTRY[key]
        outcomes = []

        @settings(
            max_examples=examples,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        @given(data=small_tables(image=spec.input == "image"), params=param_values(spec))
        def run(data, params):
            outcomes.append(check_outcome(spec, params, *data))

        run()
        counts = {kind: outcomes.count(kind) for kind in ("ok", "refused")}
        print(f"\n{key}: {len(outcomes)} cases, {counts['ok']} fitted, {counts['refused']} refused")
        # a method that refuses every awkward-but-valid case would pass vacuously
        assert counts["ok"] >= 1, f"{key} refused all {len(outcomes)} cases"

    return test


test_random_data_and_parameters = _property_test(FAST_EXAMPLES)
test_fuzz_random_data_and_parameters = pytest.mark.fuzz(_property_test(FUZZ_EXAMPLES))


def ordinary_data(spec):
    if spec.input == "image":
        ds = load("digits")
        X, y = ds.X[:300], ds.y[:300]
    else:
        ds = load("two_moons", n_samples=120)
        X, y = ds.X, ds.y
    return X, y, labeled_mask(y, per_class=10, seed=0)


@pytest.mark.parametrize("key", METHODS)
def test_ordinary_data_is_never_refused(key):
    spec = REGISTRY[key]
    X, y, mask = ordinary_data(spec)
    params = {"image_shape": IMAGE_SHAPE} if spec.input == "image" else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        outputs = fit_and_output(spec, params, X, y, mask)
    assert all(np.isfinite(out).all() for out in outputs)
