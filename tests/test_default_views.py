"""Defaults chosen to work (issue 31): every method's default view opens with no error on the
teaching sets (all listed data sets in the slow run), and every default window map has no failed
cell."""

import pytest

from metriclab.datasets import load, names
from metriclab.methods import REGISTRY
from metriclab.ui.shared.pickers import unavailable_reason
from tests.apptest_helpers import figures, run_page

TEACHING_SETS = ["two_moons", "harder_moons", "iris", "wine", "two_rings"]
SLOW_SETS = [n for n in names() if n not in TEACHING_SETS]


def offered(name):
    ds = load(name)
    return [k for k, s in REGISTRY.items() if unavailable_reason(s, ds) is None]


def opens_cleanly(name, method, **query):
    at = run_page("embed", {"ds": name, "method": method, **query}, timeout=600)
    assert not at.exception, [e.message for e in at.exception]
    assert not at.error, (name, method, [e.value for e in at.error])
    assert query.get("mode") == "window" or figures(at), (name, method)
    return at


@pytest.mark.parametrize("name", TEACHING_SETS)
def test_every_offered_methods_default_view_opens(name):
    for method in offered(name):
        opens_cleanly(name, method)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_SETS)
def test_every_offered_methods_default_view_opens_on_every_data_set(name):
    for method in offered(name):
        opens_cleanly(name, method)


@pytest.mark.parametrize("name", ["iris", "two_moons"])
def test_every_default_window_map_has_no_failed_cell(name):
    for method in offered(name):
        at = opens_cleanly(name, method, mode="window", grid="3")
        run = [b for b in at.button if b.key == "run_window"]
        if not run:  # fewer than two numeric parameters: the page says so
            continue
        run[0].click().run()
        assert not at.error, (name, method, [e.value for e in at.error])
        wins = [c.value for c in at.caption if "wins on" in c.value]
        assert wins, (name, method)
