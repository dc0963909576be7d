"""The Lessons page: the index of lessons, and one step at a time with its live view.

A step's link is ``/lessons?lesson=KEY&step=N`` (N from 1). Opening a step sets the whole view
(data set, method and its parameters, labels, seed, scaling, view mode) in the session, as a
preset does, so the Embed page opens on the same view ("Open in Embed"); the student may move a
slider, and "Back to this step's setting" sets the step again.
"""

from __future__ import annotations

import streamlit as st

from metriclab.datasets import default_scaling
from metriclab.reproduce.verdicts import PAPERS
from metriclab.ui.embed.context import EmbedPage
from metriclab.ui.embed.input_view import input_view
from metriclab.ui.embed.learn import learn_view
from metriclab.ui.embed.live import live_view
from metriclab.ui.embed.presets import preset_values
from metriclab.ui.embed.scrub import scrub_view
from metriclab.ui.embed.window import window_view
from metriclab.ui.lessons import Lesson, Step, lessons, shown
from metriclab.ui.navigation import link
from metriclab.ui.shared import presentation
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.fit_request import DataRef, FitRequest, SplitRef
from metriclab.ui.shared.session_data import dataset
from metriclab.ui.shared.state import announce, publish, remember

VIEWS = {"live": live_view, "input": input_view, "learn": learn_view}
VIEWS |= {"scrub": scrub_view, "window": window_view}
APPLIED = "_lesson_applied"  # (lesson, step) whose view was last set in this session


class LessonPage(EmbedPage):
    """The Embed page's view inside a lesson: the same widgets and charts; the link is the step's."""

    lesson: Lesson
    step_number: int
    present_area = "lesson, presentation"  # on a projector the view is beside the step's texts

    def publish(self, params, keys=(), extra=None) -> None:
        publish({"lesson": self.lesson.key, "step": self.step_number}, prune=("lesson", "step"))


def step_preset(step: Step) -> dict:
    """The step as a preset of the Embed page (metriclab.ui.embed.presets)."""
    return {
        "dataset": step.dataset,
        "method": step.method,
        "params": step.params,
        "labels": step.labels,
        "seed": step.seed,
        "mode": step.mode,
        "scaling": step.scaling,
        "data_params": step.data_params,
        "max_points": step.max_points,
        "spread": False,
    }


def apply_step(lesson: Lesson, number: int) -> None:
    """Set the session's whole view to step `number` of `lesson` (a callback, before widgets)."""
    remember(preset_values(step_preset(lesson.steps[number - 1])))
    for key in ("_previous", "_ranges"):
        st.session_state.pop(key, None)
    st.session_state[APPLIED] = (lesson.key, number)
    st.session_state["_lesson_current"] = (lesson.key, number)


def _requested() -> tuple[Lesson | None, int]:
    """The lesson and step of the link (or of this session), validated: an unknown lesson opens
    the index, a step out of range the nearest step, each with a notice."""
    found = lessons()
    params = st.query_params
    current = st.session_state.get("_lesson_current")
    key = params.get("lesson") or (current[0] if current else None)
    if key is None:
        return None, 1
    if key not in found:
        announce(f"No lesson {key!r}; the lessons are: {', '.join(found)}.")
        st.session_state.pop("_lesson_current", None)
        return None, 1
    lesson = found[key]
    raw = params.get("step") or (str(current[1]) if current and current[0] == key else "1")
    try:
        number = int(raw)
    except ValueError:
        announce(f"Step {raw!r} is not a number; showing step 1 of {lesson.title}.")
        number = 1
    if not 1 <= number <= len(lesson.steps):
        clamped = min(max(number, 1), len(lesson.steps))
        announce(f"{lesson.title} has steps 1–{len(lesson.steps)}; showing step {clamped}.")
        number = clamped
    return lesson, number


def _go(lesson: Lesson, number: int) -> None:
    apply_step(lesson, number)
    st.query_params["lesson"] = lesson.key
    st.query_params["step"] = str(number)


def _leave() -> None:
    st.session_state.pop("_lesson_current", None)
    st.query_params.clear()


def index() -> None:
    st.markdown(
        "Guided lectures, one per paper. Each step opens a view of the app with what to look "
        "at, the question to put to the class, and what to expect and why; the view is live "
        "(move a slider), and **Open in Embed** carries it to the full page. In presentation "
        "mode the text is large and the buttons stay."
    )
    for lesson in lessons().values():
        with st.container(border=True):
            st.subheader(lesson.title)
            st.caption(f"{PAPERS.get(lesson.paper, lesson.paper)} · {len(lesson.steps)} steps")
            st.markdown(lesson.summary)
            cols = st.columns([1, 3])
            cols[0].button(
                "Start", key=f"start_{lesson.key}", on_click=_go, args=(lesson, 1), type="primary"
            )
            cols[1].markdown(f"Link: [`?lesson={lesson.key}`](?lesson={lesson.key})")


def _texts(step: Step, large: bool) -> None:
    look, ask, expect = (shown(text) for text in step.texts())
    size = "1.35rem" if large else "1.05rem"
    st.markdown(f"**Look at.** {look}")
    st.markdown(
        f"<div style='font-size:{size}; border-left: 4px solid #4c72b0; padding-left: 0.75rem;'>"
        f"<b>Ask the class.</b> {ask}</div>",
        unsafe_allow_html=True,
    )
    with st.expander("What to expect, and why", expanded=False):  # the answer: opened on cue
        st.markdown(expect)


def _nav(lesson: Lesson, number: int, stacked: bool = False) -> None:
    cols = [st.container() for _ in range(5)] if stacked else st.columns([1, 1, 2, 2, 1])
    cols[0].button(
        "Previous",
        key="lesson_prev",
        icon=":material/arrow_back:",
        disabled=number <= 1,
        on_click=_go,
        args=(lesson, number - 1),
        use_container_width=True,
    )
    cols[1].button(
        "Next",
        key="lesson_next",
        icon=":material/arrow_forward:",
        disabled=number >= len(lesson.steps),
        on_click=_go,
        args=(lesson, number + 1),
        type="primary",
        use_container_width=True,
    )
    cols[2].button(
        "Back to this step's setting",
        key="lesson_back",
        icon=":material/restart_alt:",
        on_click=apply_step,
        args=(lesson, number),
        use_container_width=True,
        help="the step's data set, method, parameters and labels again",
    )
    with cols[3]:
        link("embed", "Open in Embed")
    cols[4].button("All lessons", key="lesson_index", on_click=_leave, use_container_width=True)


def step_view(lesson: Lesson, number: int) -> None:
    step = lesson.steps[number - 1]
    if st.session_state.get(APPLIED) != (lesson.key, number):
        apply_step(lesson, number)  # a link opened, or another page changed the view meanwhile
    st.session_state["_lesson_current"] = (lesson.key, number)
    large = presentation.active()
    # on a projector the step's texts and buttons sit beside its view, whose chart comes first,
    # so that the chart is whole on screen at 1280×720 without scrolling
    if large:
        text_area, view_area = st.columns([1, 2], gap="medium")
    else:
        text_area = view_area = st.container()
    with text_area:
        st.markdown(f"### {lesson.title}")
        st.progress(number / len(lesson.steps), text=f"Step {number} of {len(lesson.steps)}")
        st.markdown(f"#### {step.title}")
        _texts(step, large)
        _nav(lesson, number, stacked=large)
    with view_area:
        if large and _answer_first(lesson, number):
            return
        _step_view(lesson, number, step)


SHOWN = "_lesson_shown"  # the (lesson, step) views shown in this session


def _answer_first(lesson: Lesson, number: int) -> bool:
    """On a projector the step's view, whose chart and scores answer its question, waits until
    the class has answered: a button shows it (once per step and session). True while it waits."""
    shown = st.session_state.setdefault(SHOWN, set())
    if (lesson.key, number) in shown:
        return False
    st.markdown("#### Ask first")
    st.markdown(
        "The view answers the question on the left: its chart and scores are shown when the "
        "class has answered."
    )
    st.button(
        "Show the view",
        key="lesson_show",
        icon=":material/visibility:",
        type="primary",
        on_click=shown.add,
        args=((lesson.key, number),),
    )
    return True


def _step_view(lesson: Lesson, number: int, step: Step) -> None:
    ds = guarded(
        dataset, step.dataset, tuple(sorted(step.data_params.items())), context=step.dataset
    )
    if ds is None:
        return
    scaling = step.scaling or default_scaling(step.dataset)[0]
    request = FitRequest(
        DataRef(step.dataset, step.data_params, step.max_points),
        SplitRef(step.labels[0], step.labels[1], step.seed),
        step.method,
        scaling=scaling,
    )
    page = LessonPage(request, ds, [])
    page.lesson, page.step_number = lesson, number
    VIEWS[step.mode](page)


def render() -> None:
    lesson, number = _requested()
    if lesson is None:
        publish({}, prune=("lesson", "step"))
        index()
        return
    publish({"lesson": lesson.key, "step": number}, prune=("lesson", "step"))
    step_view(lesson, number)
