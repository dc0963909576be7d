"""A fit as the app knows it: one frozen value.

`FitRequest` names everything a page's fit depends on — the data set (with its generator's
parameters and the stratified subsample), the labelled split, the feature scaling, the method and
its parameters — and nothing else. It is what the caches hash (`ui.shared.cache`), what the
computations run (`ui.shared.compute`), what the link records (`FitRequest.link`) and what the
code snippet recomputes (`ui.shared.code_snippets`), so these cannot drift apart. No streamlit
here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from metriclab.methods import REGISTRY, MethodSpec

METHOD_KEY = "method"  # the URL key of the method (the Embed page's; Dissimilarity has its own)


def sorted_items(values: Mapping[str, Any] | tuple) -> tuple:
    """Parameters as a hashable, order-free value: sorted (name, value) pairs."""
    items = values.items() if isinstance(values, Mapping) else values
    return tuple(sorted(items))


@dataclass(frozen=True)
class DataRef:
    """A data set as a page uses it: its name, a synthetic generator's parameters and at most
    `max_points` points (a stratified subsample of larger sets; None: all of them)."""

    name: str
    params: tuple = ()
    max_points: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "params", sorted_items(self.params))

    def link(self) -> dict[str, Any]:
        """The URL values of this data set (`ds`, its generator's `d.<name>.<param>`, `cap`)."""
        out: dict[str, Any] = {"ds": self.name}
        out |= {f"d.{self.name}.{k}": v for k, v in self.params}
        if self.max_points is not None:
            out["cap"] = self.max_points
        return out


@dataclass(frozen=True)
class SplitRef:
    """The labelled points: a share of each class (`mode` "fraction") or a number per class
    ("per_class"), drawn with `seed`."""

    mode: str = "fraction"
    value: float = 0.1
    seed: int = 0

    def link(self) -> dict[str, Any]:
        return {"lab": self.mode, "frac" if self.mode == "fraction" else "per": self.value} | {
            "seed": self.seed
        }


@dataclass(frozen=True)
class FitRequest:
    """One method with its parameters on one split of one data set, with one feature scaling."""

    data: DataRef
    split: SplitRef
    method: str
    params: tuple = field(default=())
    scaling: str = "none"

    def __post_init__(self):
        object.__setattr__(self, "params", sorted_items(self.params))

    @property
    def spec(self) -> MethodSpec:
        return REGISTRY[self.method]

    @property
    def values(self) -> dict[str, Any]:
        """The method's parameters as a dict."""
        return dict(self.params)

    def with_params(self, **changes: Any) -> FitRequest:
        """The same fit with some parameters changed (or added)."""
        return replace(self, params=sorted_items({**self.values, **changes}))

    def with_method(self, method: str, params: Mapping[str, Any] | tuple = ()) -> FitRequest:
        """Another method (with its own parameters) on the same data, split and scaling."""
        return replace(self, method=method, params=sorted_items(params))

    def link(self, method_key: str = METHOD_KEY) -> dict[str, Any]:
        """The URL values that reopen this fit: data set, split, scaling, method and every one of
        its parameters (under `p.<method>.<name>`)."""
        out = self.data.link() | self.split.link() | {"pp": self.scaling, method_key: self.method}
        return out | {f"p.{self.method}.{k}": v for k, v in self.params}
