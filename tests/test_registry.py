import numpy as np
import pytest

from metriclab.methods import REGISTRY
from metriclab.params import Param


def test_registry_has_baselines_and_specs_are_consistent():
    assert {"euclidean", "pca"} <= set(REGISTRY)
    for key, spec in REGISTRY.items():
        assert spec.key == key
        for p in spec.params:
            # every default is accepted by its own validation
            assert p.validate(p.default) == p.default or p.default is None
        if spec.baseline is not None:
            assert spec.baseline in REGISTRY, f"{key}: baseline {spec.baseline} not registered"


@pytest.mark.parametrize(
    "value, message",
    [(0, ">= 1"), (2.5, "whole number"), (float("nan"), "finite"), ("x", "number"), (99, "<= 50")],
)
def test_param_validation_names_the_parameter(value, message):
    p = Param("n_components", "Components", "int", 2, low=1, high=50)
    with pytest.raises(ValueError, match="n_components") as info:
        p.validate(value)
    assert message in str(info.value)


def test_make_rejects_unknown_parameters():
    with pytest.raises(ValueError, match="no parameter"):
        REGISTRY["pca"].make(lam=3)


def test_pca_baseline_embeds():
    X = np.random.default_rng(0).standard_normal((30, 5))
    Z = REGISTRY["pca"].make(n_components=2).fit(X).transform(X)
    assert Z.shape == (30, 2)
    np.testing.assert_allclose(Z.mean(axis=0), 0, atol=1e-12)
