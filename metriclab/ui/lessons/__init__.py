"""Lessons: guided paths through the app's instruments, one per paper (issue 28).

A lesson is data: one TOML file in this folder, read and validated at import (the method and its
parameters against the registry's declarations, the data set, the labels, the view mode). Each
step is a view of the app (data set, method, parameters, labels, split seed, scaling, view mode)
with three texts: what to look at, the question to put to the class, and what to expect and why.

A number a step's text states about its own view is written as a marker, ``[[accuracy:0.92]]``,
shown as "0.92"; the test suite opens every step and checks each marker against the number the
page computes (QUANTITIES: the method's 1-NN accuracy on the split, the first reference beside it,
1-NN in the input space), so a lesson cannot go stale silently when a default changes. Other numbers
in the text (λ = 16, Eq. (6)) are settings and citations, not results.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODES = ("live", "input", "learn", "scrub", "window")
# what the live view shows as metrics: the method's 1-NN accuracy, the first reference beside it,
# and 1-NN in the input space (the Euclidean distance on all features)
QUANTITIES = ("accuracy", "baseline", "input")
MARKER = re.compile(r"\[\[(\w+):([-+]?\d+(?:\.\d+)?)\]\]")


@dataclass(frozen=True)
class Step:
    title: str
    dataset: str
    method: str
    look: str  # what to look at
    ask: str  # the one question to put to the class
    expect: str  # what to expect and why, citing the paper
    params: dict[str, Any] = field(default_factory=dict)
    labels: tuple[str, float] = ("fraction", 0.1)
    seed: int = 0
    scaling: str | None = None  # None: the data set's default
    mode: str = "live"
    data_params: dict[str, Any] = field(default_factory=dict)
    max_points: int | None = None  # a stratified subsample of a large set (as Embed's cap)

    def texts(self) -> tuple[str, str, str]:
        return self.look, self.ask, self.expect

    def markers(self) -> list[tuple[str, str]]:
        """(quantity, the number as written) of every marker in the step's texts."""
        return [m.groups() for text in self.texts() for m in MARKER.finditer(text)]


@dataclass(frozen=True)
class Lesson:
    key: str
    title: str
    paper: str
    summary: str
    steps: tuple[Step, ...]

    def link(self, step: int | None = None) -> str:
        """The lesson's address (relative to the app): ?lesson=KEY, or a step's &step=N (from 1)."""
        return f"lessons?lesson={self.key}" + (f"&step={step}" if step else "")


def shown(text: str) -> str:
    """A step's text as the page shows it: every marker replaced by its number."""
    return MARKER.sub(lambda m: m.group(2), text)


def _check_step(lesson: str, index: int, step: Step) -> None:
    from metriclab import datasets
    from metriclab.methods import REGISTRY
    from metriclab.preprocess import PREPROCESS
    from metriclab.ui.shared.pickers import FRACTIONS, POINT_CAPS

    where = f"lesson {lesson!r}, step {index}"
    if step.method not in REGISTRY:
        raise ValueError(f"{where}: unknown method {step.method!r}")
    if step.dataset not in datasets.names(include_unlisted=True):
        raise ValueError(f"{where}: unknown data set {step.dataset!r}")
    spec = REGISTRY[step.method]
    names = {p.name: p for p in spec.params}
    for name, value in step.params.items():
        if name not in names:
            raise ValueError(f"{where}: {spec.label} has no parameter {name!r}")
        names[name].check(value)  # the estimator's own range: InvalidParameterError if outside
    data_params = {p.name for p in datasets.entry(step.dataset).params}
    unknown = set(step.data_params) - data_params
    if unknown:
        raise ValueError(f"{where}: {step.dataset} has no generator parameter(s) {unknown}")
    mode, value = step.labels
    if mode == "fraction" and value not in FRACTIONS:
        raise ValueError(f"{where}: the labelled fraction must be one of {FRACTIONS}")
    if mode == "per_class" and not (1 <= value <= 50 and float(value).is_integer()):
        raise ValueError(f"{where}: labels per class must be a whole number in [1, 50]")
    if mode not in ("fraction", "per_class"):
        raise ValueError(f"{where}: labels must be ['fraction', share] or ['per_class', n]")
    if step.max_points is not None and step.max_points not in POINT_CAPS:
        raise ValueError(f"{where}: max_points must be one of the Embed page's caps {POINT_CAPS}")
    if step.mode not in MODES:
        raise ValueError(f"{where}: mode must be one of {MODES}")
    if step.scaling is not None and step.scaling not in PREPROCESS:
        raise ValueError(f"{where}: scaling must be one of {list(PREPROCESS)}")
    if not all(text.strip() for text in step.texts()):
        raise ValueError(f"{where}: 'look', 'ask' and 'expect' are all needed")
    for quantity, _ in step.markers():
        if quantity not in QUANTITIES:
            raise ValueError(f"{where}: marker [[{quantity}:…]] must be one of {QUANTITIES}")


def _read(path: Path) -> Lesson:
    with path.open("rb") as fh:
        data = tomllib.load(fh)
    head = data["lesson"]
    steps = []
    for index, raw in enumerate(data["step"], start=1):
        raw = dict(raw)
        raw["labels"] = tuple(raw.get("labels", ("fraction", 0.1)))
        step = Step(**raw)
        _check_step(head["key"], index, step)
        steps.append(step)
    if not 4 <= len(steps) <= 8:
        raise ValueError(f"lesson {head['key']!r}: a lesson has 4 to 8 steps, got {len(steps)}")
    return Lesson(head["key"], head["title"], head["paper"], head["summary"], tuple(steps))


@lru_cache(maxsize=1)
def lessons() -> dict[str, Lesson]:
    """Every lesson of this folder, by key, in the papers' order (read and checked once)."""
    found = [_read(path) for path in sorted(HERE.glob("*.toml"))]
    keys = [lesson.key for lesson in found]
    if len(set(keys)) != len(keys):
        raise ValueError(f"lesson keys must be unique: {keys}")
    from metriclab.reproduce.verdicts import PAPERS

    order = {paper: i for i, paper in enumerate(PAPERS)}
    found.sort(key=lambda lesson: (order.get(lesson.paper, len(order)), lesson.key))
    return {lesson.key: lesson for lesson in found}
