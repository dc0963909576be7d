"""`Param`: one tunable parameter (of a method or a synthetic data set), declared once: its type,
the range an estimator accepts, the range and scale of the app's slider, its default, label and
help.

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
    as_number,
    check_choice,
    check_int,
    check_real,
    whole_number,
)

PARAM_KINDS = ("int", "float", "choice", "bool")


@dataclass(frozen=True)
class Param:
    """One tunable parameter: its valid range, its slider, default and how to show it.

    `low`/`high` bound the values the estimator accepts (None: unbounded; `low_open` excludes
    `low` itself, as for a width that must be > 0). `slider` = (low, high) is the slider's range
    where it is narrower than the valid one (an iteration count accepts any positive number; a
    slider needs an end). A `default` of None means "automatic" (e.g. a width chosen from the
    data) and is then always accepted."""

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

    def __post_init__(self):
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
        return self.default is None or self.none_ok

    def is_active(self, values: dict) -> bool:
        """Whether this parameter counts given the others' `values` (see `active_when`); a
        parameter whose condition is not met is ignored by the estimator, and not offered."""
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
        return self.ui_range[0]

    @property
    def ui_high(self) -> float | None:
        return self.ui_range[1]

    def check(self, value: Any) -> Any:
        """`value` if the estimator accepts it (scikit-learn's strict types), else an
        InvalidParameterError naming the parameter, the value and the allowed range."""
        if self.accepts and isinstance(value, self.accepts):
            return value  # the estimator checks these itself (e.g. an init matrix)
        if value is None and self.allows_none:
            return None
        if self.kind == "choice":
            return check_choice(self.name, value, self.choices)
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise InvalidParameterError(f"{self.name} must be True or False, got {value!r}")
            return value
        auto = self.allows_none
        if self.kind == "int":
            return check_int(self.name, value, self.low, self.high, allow_none=auto)
        return check_real(
            self.name,
            value,
            self.low,
            self.high,
            low_open=self.low_open,
            high_open=self.high_open,
            allow_none=auto,
        )

    def validate(self, value: Any) -> Any:
        """Return `value` coerced to this parameter's type, or raise ValueError naming the parameter.

        Values come from widgets, URLs and the command line, so 3.0 and "3" are read as the whole
        number 3 (`whole_number`); the range is then checked by `check`, the estimators' own rule."""
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
