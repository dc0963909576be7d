"""`Param`: one tunable parameter (of a method or a synthetic data set) with its range and widget hints."""

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
    """One tunable parameter of a method: its range, default and how to show it."""

    name: str
    label: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    log: bool = False
    choices: tuple = ()
    help: str = ""

    def __post_init__(self):
        if self.kind not in PARAM_KINDS:
            raise ValueError(f"Param {self.name!r}: kind must be one of {PARAM_KINDS}")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"Param {self.name!r}: default {self.default!r} not in choices")

    def validate(self, value: Any) -> Any:
        """Return `value` coerced to this parameter's type, or raise ValueError naming the parameter.

        Values come from widgets, URLs and the command line, so 3.0 and "3" are read as the whole
        number 3 (`whole_number`); the range is then checked by the estimators' own rule."""
        if self.kind == "choice":
            return check_choice(self.name, value, self.choices)
        if self.kind == "bool":
            if not isinstance(value, bool | int):
                raise InvalidParameterError(f"{self.name} must be true or false, got {value!r}")
            return bool(value)
        if value is None:
            if self.default is None:
                return None  # "automatic" (e.g. width chosen from the data)
            raise InvalidParameterError(f"{self.name} must be a number, got None")
        if self.kind == "int":
            return check_int(self.name, whole_number(self.name, value), self.low, self.high)
        return check_real(self.name, as_number(self.name, value), self.low, self.high)
