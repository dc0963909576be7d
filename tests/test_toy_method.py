"""A new method is one spec and one estimator (issue 33): tests/toy_method.py declares both in one
file, and the Embed page (its slider, a fitted view), the Compare page's list and the code snippet
pick it up from the registry alone; a value out of range is refused alike by the estimator, the
slider and a link."""

import re

import numpy as np
import pytest

from metriclab.methods import REGISTRY, register, unregister
from tests.apptest_helpers import figures, run_page
from tests.test_code_snippets import run_snippets, shown_code


@pytest.fixture
def toy():
    from tests import toy_method

    register(toy_method.SPEC, replace=True)
    yield toy_method
    unregister(toy_method.SPEC.key)


def slider(at, label):
    return next(s for s in at.select_slider if s.label == label)


def test_the_toy_method_is_offered_drawn_and_scored_on_embed(toy):
    at = run_page("embed", {"ds": "iris", "method": "toy_stretch"})
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert "Toy stretch" in at.sidebar.selectbox(key="method").options  # shown by its label
    strength = slider(at, "Toy strength")
    assert strength.value == 2.0
    fig = figures(at)[0]
    assert "Toy stretch on iris" in fig["layout"]["title"]["text"]
    assert re.fullmatch(r"\d\.\d{3}", at.metric[0].value)
    strength.set_value(8.0).run()  # the slider moves the fit
    assert not at.exception and not at.error


def test_the_toy_method_is_in_compares_list_and_runs_there(toy):
    at = run_page("compare", {"cds": "iris", "cm": "toy_stretch", "splits": "2"})
    assert "Toy stretch" in at.multiselect(key="cm").options
    at.button[0].click().run()
    assert not at.exception and not at.error
    assert "Toy stretch" in set(at.dataframe[0].value["label"])


def test_the_toy_methods_snippet_runs_and_prints_the_pages_number(toy):
    at = run_page("embed", {"ds": "iris", "method": "toy_stretch", "p.toy_stretch.strength": "4"})
    code = shown_code(at)
    assert "from tests.toy_method import ToyStretch" in code
    (out,) = run_snippets([code])
    assert out.strip() == f"1-NN accuracy: {at.metric[0].value}"


@pytest.mark.parametrize("value, bound", [(9.0, 8.0), (0.25, 0.5)])
def test_out_of_range_is_refused_alike_by_estimator_slider_and_link(toy, value, bound):
    X = np.random.default_rng(0).normal(size=(20, 3))
    message = re.escape("strength must be")
    with pytest.raises(ValueError, match=message) as by_estimator:
        toy.ToyStretch(strength=value).fit(X)
    with pytest.raises(ValueError, match=message) as by_spec:
        REGISTRY["toy_stretch"].make(strength=value)
    assert str(by_estimator.value) == str(by_spec.value)
    assert str(bound) in str(by_estimator.value)
    at = run_page(
        "embed", {"ds": "iris", "method": "toy_stretch", "p.toy_stretch.strength": str(value)}
    )
    strength = slider(at, "Toy strength")
    assert strength.value == bound  # clamped to the slider's end, which is the valid range's
    assert (strength.options[0], strength.options[-1]) == ("0.5", "8")  # the valid range's ends
    notices = [w.value for w in at.warning]
    assert any("p.toy_stretch.strength" in n or "Toy strength" in n for n in notices), notices
