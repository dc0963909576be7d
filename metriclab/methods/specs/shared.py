"""Presentation of the parameters several methods share, declared once: the slider, its scale
and the words, for `Param.of` an estimator class (the valid values and the estimator's default
come from the class; `app_default` names where the app starts elsewhere)."""

from __future__ import annotations

from typing import Any

from metriclab.params import _SAME, Param

WIDTH_SLIDER = (1e-3, 1e3)  # a kernel or heat width: three decades either side of 1, log scale


def n_components(
    cls: type, label: str, help: str, high: int = 50, app_default: Any = _SAME
) -> Param:
    """The output dimension: a slider from 1 to `high`."""
    return Param.of(
        cls, "n_components", label, slider=(1, high), help=help, app_default=app_default
    )


def width(cls: type, label: str, help: str, active_when=None) -> Param:
    """A Gaussian (heat) width: empty = chosen from the data; a log slider over WIDTH_SLIDER."""
    return Param.of(
        cls, "width", label, slider=WIDTH_SLIDER, log=True, help=help, active_when=active_when
    )


def neighbours(
    cls: type, name: str, label: str, help: str, slider: tuple[int, int], app_default=_SAME
) -> Param:
    """A neighbour count (k of a graph, target neighbours, voters) on a linear slider."""
    return Param.of(cls, name, label, slider=slider, help=help, app_default=app_default)


def iterations(
    cls: type, label: str, help: str, slider: tuple[int, int], log: bool = True, app_default=_SAME
) -> Param:
    """An iteration count (`max_iter`): any positive number is valid; the slider needs ends."""
    return Param.of(
        cls, "max_iter", label, slider=slider, log=log, help=help, app_default=app_default
    )
