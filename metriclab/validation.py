"""One set of parameter checks, used by every estimator and by `Param.validate`; and the one
deterministic sign of eigenvectors.

The rule is scikit-learn's (`sklearn.utils.check_scalar`, `Interval` in
`sklearn.utils._param_validation`):
- an integer parameter takes a value of an integer type (Python int, NumPy integer); 3.0 is
  refused, not rounded (text and widget values are turned into numbers first, by `whole_number`);
- a real parameter takes any real number (int or float, NumPy scalars included) that is finite;
- a choice is one of a fixed tuple of values.
Unlike scikit-learn, a bool is refused where a number is asked for (True is a flag, not a count).

Every error is an `InvalidParameterError`: a ValueError (and a TypeError, as scikit-learn's own)
whose message starts with the parameter's name, says what is allowed (the bound broken, for a
value of the right type) and shows the value given.

Each estimator class declares the values its parameters accept once, as scikit-learn's
`_parameter_constraints`: a class attribute `_parameter_rules = {name: Rule(...)}` (named apart
from scikit-learn's, whose checks read that attribute in scikit-learn's own format). Its defaults
are its constructor's. `check_params(estimator)`, called at the start of `fit`, checks every
declared parameter, the rules of the base classes included, so a subclass (`class MyTDL(TDL):
pass`) is checked as its base is. Checks that depend on the data (n_components at most the number
of features) stay in the estimator.

The parameters themselves and their defaults are declared once too, as annotated class attributes
(`parameters` writes scikit-learn's constructor from them: each parameter stored under its own
name, nothing else done); a subclass adds its own to its base's, so a parameter two estimators
share (the graph options of TDL and Laplacian Eigenmaps) has one default.
"""

from __future__ import annotations

import inspect
import math
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np


class InvalidParameterError(ValueError, TypeError):
    """A parameter value outside what the estimator accepts (names the parameter)."""


def _range_text(low, high, low_open: bool, high_open: bool) -> str:
    if low is not None and high is not None:
        return f" in {'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
    if low is not None:
        return f" {'>' if low_open else '>='} {low}"
    if high is not None:
        return f" {'<' if high_open else '<='} {high}"
    return ""


def _violated_bound(value, low, high, low_open: bool, high_open: bool) -> str | None:
    """The bound `value` breaks, as text (">= 1", "< 1"), or None when it is within them."""
    if low is not None and (value <= low if low_open else value < low):
        return f"{'>' if low_open else '>='} {low}"
    if high is not None and (value >= high if high_open else value > high):
        return f"{'<' if high_open else '<='} {high}"
    return None


def _is_finite(value) -> bool:
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond the float range
        return False


def _check_number(name, value, kind: str, number_type, low, high, low_open, high_open, allow_none):
    """`value` if it is a (finite) `number_type` within the bounds; the shared body of
    check_int and check_real."""
    allowed = f"{kind}{_range_text(low, high, low_open, high_open)}"
    if allow_none:
        allowed += " or None"
    if isinstance(value, bool | np.bool_) or not isinstance(value, number_type):
        raise InvalidParameterError(f"{name} must be {allowed}, got {value!r}")
    if number_type is Real and not _is_finite(value):
        raise InvalidParameterError(f"{name} must be {allowed}, got {value!r}")
    bound = _violated_bound(value, low, high, low_open, high_open)
    if bound is not None:
        raise InvalidParameterError(f"{name} must be {bound}, got {value!r}")
    return value


def check_int(
    name: str,
    value: Any,
    low: int | None = None,
    high: int | None = None,
    *,
    allow_none: bool = False,
) -> int | None:
    """`value` as an int if it is of an integer type within [low, high] (None when allowed)."""
    if value is None and allow_none:
        return None
    return int(
        _check_number(name, value, "an integer", Integral, low, high, False, False, allow_none)
    )


def check_real(
    name: str,
    value: Any,
    low: float | None = None,
    high: float | None = None,
    *,
    low_open: bool = False,
    high_open: bool = False,
    allow_none: bool = False,
) -> float | None:
    """`value` as a float if it is a finite real number within the bounds (None when allowed);
    `low_open` / `high_open` exclude the bound itself."""
    if value is None and allow_none:
        return None
    return float(
        _check_number(
            name, value, "a finite number", Real, low, high, low_open, high_open, allow_none
        )
    )


def check_positive(name: str, value: Any, *, allow_none: bool = False) -> float | None:
    """A finite number > 0 (None when allowed)."""
    return check_real(name, value, 0, low_open=True, allow_none=allow_none)


def check_nonnegative(name: str, value: Any, *, allow_none: bool = False) -> float | None:
    """A finite number >= 0 (None when allowed)."""
    return check_real(name, value, 0, allow_none=allow_none)


def check_fraction(name: str, value: Any, *, high_open: bool = False) -> float:
    """A number in [0, 1] ([0, 1) with high_open)."""
    return check_real(name, value, 0, 1, high_open=high_open)


def check_choice(name: str, value: Any, choices) -> Any:
    """`value` if it is one of `choices`."""
    try:
        found = any(value is choice or value == choice for choice in choices)
    except (TypeError, ValueError):  # e.g. an array: no truth value
        found = False
    if found:
        return value
    raise InvalidParameterError(f"{name} must be one of {list(choices)}, got {value!r}")


RULE_KINDS = ("int", "float", "choice", "bool")


@dataclass(frozen=True)
class Rule:
    """The values one estimator parameter accepts: an entry of a class's `_parameter_rules`.

    kind: "int" (an integer type), "float" (a finite real number), "choice" (one of `choices`) or
    "bool". `low`/`high` bound a number (None: unbounded; `low_open`/`high_open` exclude the bound
    itself, as for a width that must be > 0). `none_ok`: None is accepted ("automatic", "all").
    `accepts`: other types the estimator takes and checks itself (an init matrix)."""

    kind: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    choices: tuple = ()
    none_ok: bool = False
    accepts: tuple[type, ...] = ()

    def __post_init__(self):
        if self.kind not in RULE_KINDS:
            raise ValueError(f"Rule kind must be one of {RULE_KINDS}, got {self.kind!r}")
        object.__setattr__(self, "choices", tuple(self.choices))

    def check(self, name: str, value: Any) -> Any:
        """`value` if it is accepted (scikit-learn's strict types), else an InvalidParameterError
        naming the parameter, the value and the allowed range."""
        if self.accepts and isinstance(value, self.accepts):
            return value  # the estimator checks these itself (e.g. an init matrix)
        if value is None and self.none_ok:
            return None
        if self.kind == "choice":
            return check_choice(name, value, self.choices)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidParameterError(f"{name} must be True or False, got {value!r}")
            return value
        if self.kind == "int":
            return check_int(name, value, self.low, self.high, allow_none=self.none_ok)
        return check_real(
            name,
            value,
            self.low,
            self.high,
            low_open=self.low_open,
            high_open=self.high_open,
            allow_none=self.none_ok,
        )


def parameters(cls: type) -> type:
    """Write the estimator's constructor from its annotated class attributes (a class decorator).

    The generated ``__init__`` is scikit-learn's: every parameter a keyword with its default,
    stored unchanged under its own name (`get_params`, `clone` and `set_params` read them back);
    a subclass's parameters come after its base's, ``_: KW_ONLY`` makes those after it
    keyword-only. The estimator keeps identity equality and hashing (caches key on it) and
    scikit-learn's repr.
    """
    return dataclass(eq=False, repr=False)(cls)


def declared_rules(cls: type) -> dict[str, Rule]:
    """The `_parameter_rules` of `cls` and its bases (a subclass's own entries win)."""
    rules: dict[str, Rule] = {}
    for klass in reversed(cls.__mro__):
        rules.update(vars(klass).get("_parameter_rules", {}))
    return rules


def constructor_defaults(cls: type) -> dict[str, Any]:
    """{parameter: default} of `cls.__init__`: the one declaration of the estimator's defaults."""
    return {
        name: p.default
        for name, p in inspect.signature(cls.__init__).parameters.items()
        if name != "self" and p.default is not inspect.Parameter.empty
    }


def check_params(estimator: Any) -> dict[str, Any]:
    """Check every parameter declared by the estimator's class and its bases (at fit); returns
    {name: value} checked."""
    rules = declared_rules(type(estimator))
    values = estimator.get_params(deep=False)
    return {name: rule.check(name, values[name]) for name, rule in rules.items() if name in values}


def whole_number(name: str, value: Any) -> int:
    """A number given as text or by a widget (3, 3.0, "3") as an int; 3.5, NaN, "x" refused.

    The edge between the outside world (URLs, forms, the command line) and the estimators, which
    take only integer types (`check_int`)."""
    number = as_number(name, value)
    if number != int(number):
        raise InvalidParameterError(f"{name} must be a whole number, got {value!r}")
    return int(number)


def as_number(name: str, value: Any) -> float:
    """A finite float from a number or its text; bools, NaN, infinities and words refused."""
    if isinstance(value, bool | np.bool_):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}")
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(number):
        raise InvalidParameterError(f"{name} must be finite, got {value!r}")
    return number


def fix_signs(vectors: np.ndarray, axis: int = 0) -> np.ndarray:
    """Vectors with their largest-magnitude entry made positive: a deterministic sign for
    eigenvectors, which solvers return up to ±1 (stable plots and reproducible runs).

    axis=0: each column is a vector (eigh's output); axis=1: each row (components_ of a learner).
    A zero vector is left unchanged. Returns a new array."""
    vectors = np.asarray(vectors)
    columns = vectors if axis == 0 else vectors.T
    largest = np.argmax(np.abs(columns), axis=0)
    signs = np.sign(columns[largest, np.arange(columns.shape[1])])
    signs[signs == 0] = 1.0
    return vectors * (signs if axis == 0 else signs[:, None])
