"""`Param`: one tunable parameter as the app, the link, the command line and the docs show it: its
label, help, slider range and scale, the value the app starts from, and the values accepted.

A method's parameter is declared on its estimator class (`_parameter_rules`, the constructor's
default: `metriclab.validation`); its `Param` is made by `Param.of(cls, name, label, ...)`, which
reads the valid values and the default from the class and adds the presentation (the slider, its
scale, label, help, and `app_default` where the app starts elsewhere than the estimator). A data
set generator's parameter is declared by `Param(...)` itself.

Two readings of one declaration:
- `Param.check(value)` is the estimator's check at fit (scikit-learn's rule: an integer parameter
  takes an integer type, a real one a finite real number; a bound broken is named);
- `Param.validate(value)` reads a value from the outside world (widgets, URLs, the command line:
  3.0 and "3" are the whole number 3) and then applies the same check.
The slider offers `ui_range` (the valid range where it is finite, else the declared `slider`);
a link value outside it is clamped to it, with a notice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from metriclab.validation import (
    InvalidParameterError,
    Rule,
    as_number,
    check_choice,
    constructor_defaults,
    declared_rules,
    whole_number,
)

PARAM_KINDS = ("int", "float", "choice", "bool")
_SAME = object()  # no app starting value of its own: the app starts at the estimator's default


@dataclass(frozen=True)
class Param:
    """One tunable parameter: its valid range, its slider, default and how to show it.

    A method's parameters are made by `Param.of` its estimator class, which reads the valid
    values and the default from the class; a data set generator's are made by ``Param(...)``.
    `check` is the estimator's own check; `validate` reads a value from a widget, a link or the
    command line (``3.0`` and ``"3"`` are the whole number 3) and then checks it.

    Parameters
    ----------
    name : str
        The constructor argument it sets.
    label : str
        The name shown beside the widget.
    kind : {"int", "float", "choice", "bool"}
        The type of its values.
    default : object
        The value the app starts from; None means "automatic" (a width chosen from the data)
        and is then always accepted.
    low, high : float or None, default=None
        The bounds of the values the estimator accepts (None: unbounded).
    log : bool, default=False
        Whether the slider moves on a log scale.
    choices : tuple, default=()
        The values of a "choice" parameter.
    help : str, default=""
        The widget's help text.
    slider : tuple of (float, float) or None, default=None
        The slider's range where it is narrower than the valid one (an iteration count accepts
        any positive number; a slider needs an end); it must lie in the valid range.
    low_open, high_open : bool, default=False
        Whether `low` (`high`) itself is excluded, as for a width that must be > 0.
    none_ok : bool, default=False
        Whether None ("automatic" or "all") is accepted even with a number default.
    active_when : tuple of (str, tuple) or None, default=None
        (other parameter, its values where this one counts); elsewhere the estimator ignores
        it and the app does not offer it.
    accepts : tuple of type, default=()
        Other types the estimator takes and checks itself (an initial matrix).
    estimator_default : object, optional
        The estimator's own default, where the app starts elsewhere; by default `default`.

    See Also
    --------
    MethodSpec : The method whose parameters they are.

    Examples
    --------
    A method's parameter, read from its spec:

    >>> from metriclab.methods import REGISTRY, Param
    >>> lam = REGISTRY["tdl"].param("lam")
    >>> lam.kind, lam.default, lam.low, lam.slider, lam.log
    ('float', 16.0, 0.0, (0.001, 10000.0), True)
    >>> lam.validate("32")
    32.0
    >>> lam.validate(-1)
    Traceback (most recent call last):
    ...
    metriclab.validation.InvalidParameterError: lam must be >= 0.0, got -1.0

    A parameter declared by hand, as a data set generator does:

    >>> k = Param("k", "Neighbours", "int", 5, low=1, slider=(1, 50))
    >>> k.validate(3.0), k.ui_range
    (3, (1, 50))
    """

    name: str
    label: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple = ()
    help: str = ""
    slider: tuple[float, float] | None = None
    low_open: bool = False
    high_open: bool = False
    none_ok: bool = False  # None ("automatic" or "all") is accepted even with a number default
    active_when: tuple[str, tuple] | None = None  # (other parameter, its values where this counts)
    accepts: tuple[type, ...] = ()  # other types the estimator takes and checks itself (arrays)
    estimator_default: Any = _SAME  # the estimator's default where the app starts elsewhere

    @classmethod
    def of(
        cls,
        estimator: type,
        name: str,
        label: str,
        *,
        help: str = "",
        slider: tuple[float, float] | None = None,
        log: bool = False,
        active_when: tuple[str, tuple] | None = None,
        app_default: Any = _SAME,
    ) -> Param:
        """The parameter `name` of an estimator class as the app shows it.

        The valid values and the default are read from the class (``_parameter_rules``, the
        constructor); the rest is given here.

        Parameters
        ----------
        estimator : type
            The estimator class; it must declare `name` in its ``_parameter_rules``
            (ValueError otherwise).
        name : str
            The constructor argument.
        label : str
            The name shown beside the widget.
        help : str, default=""
            The widget's help text.
        slider : tuple of (float, float) or None, default=None
            The slider's range where it is narrower than the valid one.
        log : bool, default=False
            Whether the slider moves on a log scale.
        active_when : tuple of (str, tuple) or None, default=None
            (other parameter, its values where this one counts).
        app_default : object, optional
            The value the app starts from where it is not the estimator's default.

        Returns
        -------
        Param
            The parameter, with ``estimator_default`` the constructor's default.
        """
        rules = declared_rules(estimator)
        if name not in rules:
            raise ValueError(
                f"{estimator.__name__} declares no parameter {name!r} in _parameter_rules"
            )
        rule, default = rules[name], constructor_defaults(estimator)[name]
        return cls(
            name,
            label,
            "choice" if rule.kind == "choice" else rule.kind,
            default if app_default is _SAME else app_default,
            low=rule.low,
            high=rule.high,
            log=log,
            choices=rule.choices,
            help=help,
            slider=slider,
            low_open=rule.low_open,
            high_open=rule.high_open,
            none_ok=rule.none_ok,
            active_when=active_when,
            accepts=rule.accepts,
            estimator_default=default,
        )

    def __post_init__(self):
        if self.estimator_default is _SAME:
            object.__setattr__(self, "estimator_default", self.default)
        if self.kind not in PARAM_KINDS:
            raise ValueError(f"Param {self.name!r}: kind must be one of {PARAM_KINDS}")
        if self.kind == "choice" and self.default not in self.choices and not self.none_ok:
            raise ValueError(f"Param {self.name!r}: default {self.default!r} not in choices")
        if self.slider is not None:
            lo, hi = self.slider
            if not lo < hi or not self._within(lo) or not self._within(hi):
                raise ValueError(
                    f"Param {self.name!r}: slider {self.slider} must lie in the valid range"
                )
        if self.kind in ("int", "float") and self.default is not None:
            self.check(self.default)

    def _within(self, value) -> bool:
        low_ok = self.low is None or (value > self.low if self.low_open else value >= self.low)
        high_ok = self.high is None or (value < self.high if self.high_open else value <= self.high)
        return low_ok and high_ok

    @property
    def allows_none(self) -> bool:
        """Whether None is accepted (a None default, or `none_ok`)."""
        return self.default is None or self.none_ok

    def is_active(self, values: dict) -> bool:
        """Whether this parameter counts given the others' values (see `active_when`).

        A parameter whose condition is not met is ignored by the estimator, and not offered.

        Parameters
        ----------
        values : dict
            The method's parameter values by name.

        Returns
        -------
        bool
            True without an `active_when`, else whether the other parameter has one of its
            values.
        """
        if self.active_when is None:
            return True
        other, allowed = self.active_when
        return values.get(other) in allowed

    @property
    def ui_range(self) -> tuple[float | None, float | None]:
        """The slider's (low, high): `slider` where declared, else the valid range."""
        if self.slider is not None:
            return self.slider
        return self.low, self.high

    @property
    def ui_low(self) -> float | None:
        """The slider's low end (`ui_range`'s first value)."""
        return self.ui_range[0]

    @property
    def ui_high(self) -> float | None:
        """The slider's high end (`ui_range`'s second value)."""
        return self.ui_range[1]

    @property
    def rule(self) -> Rule:
        """What decides whether a value is accepted (not the label, help or slider)."""
        return Rule(
            self.kind,
            self.low,
            self.high,
            self.low_open,
            self.high_open,
            self.choices if self.kind == "choice" else (),
            self.allows_none,
            self.accepts,
        )

    def check(self, value: Any) -> Any:
        """Check a value as the estimator does at fit (scikit-learn's strict types).

        Parameters
        ----------
        value : object
            The value.

        Returns
        -------
        object
            `value`, if the estimator accepts it; else an InvalidParameterError (a ValueError)
            naming the parameter, the value and the allowed range.
        """
        return self.rule.check(self.name, value)

    def validate(self, value: Any) -> Any:
        """Read a value from a widget, a URL or the command line, and check it.

        Parameters
        ----------
        value : object
            The value; 3.0 and "3" are read as the whole number 3 for an "int" parameter.

        Returns
        -------
        object
            `value` coerced to this parameter's type and checked by `check`, the estimators'
            own rule; else a ValueError naming the parameter.
        """
        if self.kind == "choice":
            return check_choice(self.name, value, self.choices)
        if self.kind == "bool":
            if not isinstance(value, bool | int):
                raise InvalidParameterError(f"{self.name} must be true or false, got {value!r}")
            return bool(value)
        if value is None:
            if self.allows_none:
                return None  # "automatic" (e.g. width chosen from the data)
            raise InvalidParameterError(f"{self.name} must be a number, got None")
        if self.kind == "int":
            return self.check(whole_number(self.name, value))
        return self.check(as_number(self.name, value))
