"""`Param`: one tunable parameter (of a method or a synthetic data set) with its range and widget hints."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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
        """Return `value` coerced to this parameter's type, or raise ValueError naming the parameter."""
        if self.kind == "choice":
            if value not in self.choices:
                raise ValueError(f"{self.name} must be one of {list(self.choices)}, got {value!r}")
            return value
        if self.kind == "bool":
            if not isinstance(value, bool | int):
                raise ValueError(f"{self.name} must be true or false, got {value!r}")
            return bool(value)
        if value is None:
            if self.default is None:
                return None  # "automatic" (e.g. width chosen from the data)
            raise ValueError(f"{self.name} must be a number, got None")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"{self.name} must be a number, got {value!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"{self.name} must be finite, got {value!r}")
        if self.kind == "int":
            if number != int(number):
                raise ValueError(f"{self.name} must be a whole number, got {value!r}")
            number = int(number)
        if self.low is not None and number < self.low:
            raise ValueError(f"{self.name} must be >= {self.low}, got {value!r}")
        if self.high is not None and number > self.high:
            raise ValueError(f"{self.name} must be <= {self.high}, got {value!r}")
        return number
