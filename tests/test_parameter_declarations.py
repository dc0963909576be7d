"""A parameter is declared once, on its estimator class (issue 40: `_parameter_rules` and the
constructor's default, scikit-learn's `_parameter_constraints` model): from that declaration come
the estimator's own checks at fit, for subclasses too, and the spec's sliders and link clamp.
scikit-learn's conventions at the edges: NotFittedError before fit, an ignored parameter refused,
image shapes whole."""

import inspect

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

from metriclab import LMNN, NCA, KernelPCATrick, TangentDistanceKNN
from metriclab.methods import REGISTRY
from metriclab.methods.mahalanobis.base import METRIC_LEARN_REFUSED
from metriclab.methods.tangent import TangentMetricKNN
from metriclab.validation import Rule, constructor_defaults, declared_rules

# Constructor arguments no Param kind describes; each estimator checks them itself (metric-learn's
# names with no counterpart here: `metric_learn_arguments`).
NOT_PARAMS = {
    "random_state",
    "callback",
    "learner",
    "sigmas",
    "image_shape",
    "preprocessor",
    *METRIC_LEARN_REFUSED,
}
CLASSES = sorted({s.estimator for s in REGISTRY.values()}, key=lambda c: c.__name__)
IMAGE = (4, 4)


def constructor_args(cls) -> set[str]:
    return {
        n for n in inspect.signature(cls.__init__).parameters if n not in ("self", "args", "kwargs")
    }


def build(cls, **params):
    if "image_shape" in constructor_args(cls):
        params.setdefault("image_shape", IMAGE)
    return cls(**params)


def data_for(cls):
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 8)
    d = IMAGE[0] * IMAGE[1] if "image_shape" in constructor_args(cls) else 4
    return np.abs(rng.standard_normal((y.size, d))) + y[:, None], y


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_constructor_argument_is_declared_on_its_class(cls):
    declared = set(declared_rules(cls))
    missing = constructor_args(cls) - declared - NOT_PARAMS
    assert not missing, f"{cls.__name__}: declare {sorted(missing)} in its _parameter_rules"
    assert declared <= constructor_args(cls), f"{cls.__name__}: a rule for no constructor argument"
    defaults = constructor_defaults(cls)
    for name, rule in declared_rules(cls).items():  # every default is accepted by its own rule
        assert rule.check(name, defaults[name]) == defaults[name] or defaults[name] is None


def out_of_range(p: Rule):
    """A value the declaration refuses, or None when the parameter has no bound to break."""
    if p.kind == "choice":
        return "no-such-choice"
    if p.kind == "bool":
        return "yes"
    if p.low is not None:
        return (p.low - 1) if p.kind == "int" else (p.low - 0.5 if not p.low_open else p.low)
    if p.high is not None:
        return p.high + 1
    return None


CASES = [
    (cls, name)
    for cls in CLASSES
    for name, rule in declared_rules(cls).items()
    if out_of_range(rule) is not None and name not in ("verbose",)
]


@pytest.mark.parametrize("cls, name", CASES, ids=lambda v: getattr(v, "__name__", v))
def test_a_value_outside_the_declaration_is_refused_by_the_estimator_and_the_spec(cls, name):
    X, y = data_for(cls)
    rule = declared_rules(cls)[name]
    bad = out_of_range(rule)
    with pytest.raises(ValueError) as by_estimator:
        build(cls, **{name: bad}).fit(X, y)
    assert str(by_estimator.value).startswith(name), str(by_estimator.value)
    if rule.accepts and isinstance(bad, rule.accepts):  # a form the estimator checks itself
        return
    with pytest.raises(ValueError) as by_rule:
        rule.check(name, bad)
    assert str(by_estimator.value) == str(by_rule.value)  # one rule, one message
    for spec in (s for s in REGISTRY.values() if s.estimator is cls):
        for p in (q for q in spec.params if q.name == name):
            assert p.rule == rule  # the spec reads the class's rule, never its own
            with pytest.raises(ValueError, match=f"^{name}"):  # read as from a link, then checked
                spec.make(**{name: bad})


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_every_slider_lies_within_what_the_estimator_accepts(key):
    for p in REGISTRY[key].params:
        low, high = p.ui_range
        for end in (low, high):
            if end is not None:
                p.check(type(p.default)(end) if p.default is not None else end)


@pytest.mark.parametrize("key", sorted(REGISTRY))
def test_every_estimator_says_not_fitted_before_fit(key):
    spec = REGISTRY[key]
    kwargs = {"image_shape": IMAGE} if spec.has("needs_images") else {}
    estimator = spec.make(**kwargs)
    X, _ = data_for(type(estimator))
    method = "predict" if spec.has("classifier") else "transform"
    with pytest.raises(NotFittedError):
        getattr(estimator, method)(X)


def test_kernel_pca_trick_refuses_parameters_it_would_ignore():
    X, y = data_for(KernelPCATrick)
    with pytest.raises(ValueError, match="k configure a learner given by name"):
        KernelPCATrick(learner=LMNN(), k=99).fit(X, y)
    with pytest.raises(ValueError, match="k is not used by learner='nca'"):
        KernelPCATrick(learner="nca", k=5).fit(X, y)
    with pytest.raises(ValueError, match="width is used only with weighting='single'"):
        KernelPCATrick(weighting="aligned", width=2.0).fit(X, y)
    KernelPCATrick(learner=NCA(n_components=2, max_iter=5)).fit(X, y)  # its own parameters: fine
    KernelPCATrick(learner="lmnn", k=2, max_iter=5).fit(X, y)


@pytest.mark.parametrize("cls", [TangentDistanceKNN, TangentMetricKNN])
@pytest.mark.parametrize("shape", [(8.5, 8), (8, 8.0), ("8", 8), (True, 8), (0, 8)])
def test_image_shape_takes_positive_whole_numbers(cls, shape):
    X = np.abs(np.random.default_rng(0).standard_normal((6, 64)))
    with pytest.raises(ValueError, match="image_shape"):
        cls(image_shape=shape).fit(X, np.arange(6) % 2)
