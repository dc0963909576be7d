"""Lessons (issue 28): every step of every lesson opens, draws its chart, and every number its text
states is the number the page computes; navigation, links and "Back to this step" work."""

from __future__ import annotations

import re

import pytest

from metriclab.ui.lessons import MARKER, QUANTITIES, Lesson, Step, _check_step, lessons, shown
from tests.apptest_helpers import run_page

STEPS = [(key, n) for key, lesson in lessons().items() for n in range(1, len(lesson.steps) + 1)]


def metrics(at) -> dict[str, float]:
    """The live view's numbers by quantity: the method's accuracy, the first reference beside
    it (the comparable baseline) and the Euclidean 1-NN."""
    shown_metrics = [(m.label, m.value) for m in at.metric]
    out: dict[str, float] = {}
    scores = [
        (label, float(value)) for label, value in shown_metrics if label != "labeled / unlabeled"
    ]
    if scores:
        out["accuracy"] = scores[0][1]
    if len(scores) > 1:
        out["baseline"] = scores[1][1]
    for label, value in scores[1:]:
        if label.startswith("Euclidean"):
            out["input"] = value
    return out


def open_step(key: str, number: int):
    at = run_page("lessons", {"lesson": key, "step": str(number)}, timeout=300)
    for button in at.button:
        if button.key == "run_window":  # the window map is computed on request
            button.click().run()
    return at


def test_there_is_a_lesson_per_paper_with_four_to_eight_steps():
    found = lessons()
    assert {lesson.paper for lesson in found.values()} == {"tdl", "zhang", "mody", "kpca"}
    for lesson in found.values():
        assert 4 <= len(lesson.steps) <= 8
        assert lesson.link() == f"lessons?lesson={lesson.key}"
        assert lesson.link(2) == f"lessons?lesson={lesson.key}&step=2"


@pytest.mark.parametrize(("key", "number"), STEPS)
def test_every_step_draws_its_view_and_states_the_numbers_the_page_computes(key, number):
    step = lessons()[key].steps[number - 1]
    at = open_step(key, number)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.get("plotly_chart"), "the step's chart is not drawn"
    text = " ".join(m.value for m in at.markdown)
    for part in step.texts():
        assert shown(part).split(".")[0] in text  # the step's texts are on the page, markers shown
    assert "[[" not in text
    computed = metrics(at)
    for quantity, written in step.markers():
        decimals = len(written.split(".")[1]) if "." in written else 0
        assert quantity in computed, f"step {number}: the page shows no {quantity}"
        assert round(computed[quantity], decimals) == pytest.approx(float(written)), (
            f"{key} step {number}: the text says {quantity} {written}, the page computes "
            f"{computed[quantity]:.4f}"
        )
    params = dict(at.query_params)
    assert params.get("lesson") in (key, [key]) and params.get("step") in (
        str(number),
        [str(number)],
    )


def test_next_previous_and_back_to_the_step():
    key = next(iter(lessons()))
    at = open_step(key, 1)
    at.button(key="lesson_next").click().run()
    assert at.query_params["step"] in ("2", ["2"])
    step2 = lessons()[key].steps[1]
    key_lam = f"p.{step2.method}.lam"
    assert "lam" in step2.params
    widget = next(w for w in [*at.select_slider, *at.slider] if w.key == key_lam)
    options = getattr(widget, "options", None)
    other = next(o for o in options if float(o) != step2.params["lam"]) if options else 1.0
    widget.set_value(other).run()  # a student moves the slider ...
    assert float(at.session_state[key_lam]) != step2.params["lam"]
    at.button(key="lesson_back").click().run()  # ... and goes back to the step's setting
    assert float(at.session_state[key_lam]) == pytest.approx(step2.params["lam"])
    at.button(key="lesson_prev").click().run()
    assert at.query_params["step"] in ("1", ["1"])


def test_the_index_links_every_lesson_and_a_bad_link_says_why():
    at = run_page("lessons")
    text = " ".join(m.value for m in at.markdown)
    for key in lessons():
        assert f"?lesson={key}" in text
    bad = run_page("lessons", {"lesson": "nope"})
    assert any("No lesson 'nope'" in w.value for w in bad.warning)
    out_of_range = run_page("lessons", {"lesson": next(iter(lessons())), "step": "99"})
    assert any("showing step" in w.value for w in out_of_range.warning)


def test_a_step_outside_the_declarations_is_refused():
    good = lessons()["tdl"].steps[1]
    fields = dict(good.__dict__)
    with pytest.raises(ValueError, match="no parameter"):
        _check_step("x", 1, Step(**{**fields, "params": {"nope": 1}}))
    with pytest.raises(Exception, match="lam"):
        _check_step("x", 1, Step(**{**fields, "params": {"lam": -1.0}}))
    with pytest.raises(ValueError, match="marker"):
        _check_step("x", 1, Step(**{**fields, "look": "[[speed:1.0]]"}))
    with pytest.raises(ValueError, match="fraction"):
        _check_step("x", 1, Step(**{**fields, "labels": ("fraction", 0.123)}))


def test_markers_are_the_only_result_numbers_in_a_step():
    """A step's text states a result only through a marker: a bare accuracy such as 0.92 in the
    text would not be checked (settings like λ = 16 or t = 0.25 are not results)."""
    bare = re.compile(r"(?<![\[\d.:=])0\.\d{3,4}\b")
    for lesson in lessons().values():
        for number, step in enumerate(lesson.steps, start=1):
            for text in step.texts():
                unmarked = MARKER.sub("", text)
                assert not bare.findall(unmarked), (
                    f"{lesson.key} step {number}: {bare.findall(unmarked)}"
                )
    assert set(QUANTITIES) == {"accuracy", "baseline", "input"}
    assert isinstance(next(iter(lessons().values())), Lesson)


def test_the_ionosphere_step_says_how_many_points_carry_its_coordinates():
    """Step 8's sentence on the localised eigenvectors states the numbers the page's note
    computes: how many points hold how much of each of the first two coordinates."""
    at = open_step("tdl", 8)
    note = " ".join(i.value for i in at.info)
    found = re.findall(r"(\d+) point\(s\) carry (\d+\.\d)% of axis (\d)", note)
    assert [(count, axis) for count, _, axis in found] == [("1", "1"), ("5", "2")], note
    look = " ".join(lessons()["tdl"].steps[7].look.split())
    (first, second) = found
    assert f"{first[0]} point holds {first[1]} % of the first" in look
    assert f"{second[0]} points hold {second[1]} % of the second" in look


def test_on_a_projector_a_steps_view_waits_for_the_class_to_answer():
    """The step's chart and scores answer its question ("Should we expect the strip to split the
    moons?" beside the strip that shows it): in presentation mode the view waits behind "Show
    the view", once per step; Next opens the next step's question without its view, and a step
    already shown stays shown. Off a projector the view is drawn at once."""
    from streamlit.testing.v1 import AppTest

    from tests.apptest_helpers import ROOT, figures

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=300)  # the sidebar's toggle
    at.query_params.update({"lesson": "tdl", "step": "1", "present": "1"})
    at.run()
    at.switch_page("pages/lessons.py").run()
    assert not at.exception
    assert not figures(at) and not at.metric  # the question only
    assert "Laplacian Eigenmaps never sees a label" in " ".join(m.value for m in at.markdown)
    at.button(key="lesson_show").click().run()
    assert figures(at) and at.metric and "lesson_show" not in [b.key for b in at.button]
    at.button(key="lesson_next").click().run()
    assert not figures(at) and at.button(key="lesson_show")  # step 2 asks first
    at.button(key="lesson_prev").click().run()
    assert figures(at)  # step 1 was shown
    normal = run_page("lessons", {"lesson": "tdl", "step": "1"}, timeout=300)
    assert figures(normal) and "lesson_show" not in [b.key for b in normal.button]
