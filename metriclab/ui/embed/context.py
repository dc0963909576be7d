"""What every view mode of the Embed page shares: the page's fit without the method's parameters
(data set, subsample, split, scaling, method), the full data set, the keys the link records, and
the method's parameter widgets as this page offers them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from metriclab.datasets import Dataset
from metriclab.methods import REGISTRY
from metriclab.params import Param
from metriclab.ui.shared.fit_request import LINK_PREFIXES, FitRequest, param_prefix
from metriclab.ui.shared.pickers import url_values
from metriclab.ui.shared.state import publish, view_value
from metriclab.ui.shared.widgets import capped, param_widgets


@dataclass
class EmbedPage:
    """The Embed page's state for one run: `request` carries every setting but the method's
    parameters, which the view draws as widgets (`widgets`) and adds (`with_params`)."""

    request: FitRequest
    dataset: Dataset  # the whole data set, before the page's subsample
    url_keys: list[str] = field(default_factory=list)  # the page's own keys (not the method's)
    # the plot area's shape in presentation mode (plots.AREA_ASPECT): the chart across the page
    present_area: ClassVar[str] = "presentation"

    @property
    def spec(self):
        return self.request.spec

    @property
    def prefix(self) -> str:
        return param_prefix(self.request.method)

    def page_param(self, name: str) -> Param:
        """The method's parameter as this page offers it: the output dimension of a linear map
        cannot exceed the data's number of features, nor can that of a method compared with a
        linear map at the same dimension (KNCA beside NCA); a graph's neighbours cannot exceed the
        other points (a drawing of 6 points opened on TDL with 10, the default, gave only an
        error: "Graph neighbours must be <= 5")."""
        p = self.spec.param(name)
        base = REGISTRY.get(self.spec.baseline) if self.spec.baseline else None
        linear = self.spec.has("linear_map") or (base is not None and base.has("linear_map"))
        if name == "n_components" and linear:
            return capped(p, self.dataset.n_features)
        if name == "n_neighbors" and self.spec.has("graph"):
            return capped(p, self.dataset.n_samples - 1)
        return p

    def widgets(self, container=None, skip: Sequence[str] = ()) -> dict[str, Any]:
        """The method's parameter widgets ({name: value}), as `page_param` offers them (the
        ones the others make unused are not drawn: `param_widgets`)."""
        offered = [self.page_param(p.name) for p in self.spec.params if p.name not in skip]
        return param_widgets(offered, self.prefix, container)

    def active_params(self) -> list[Param]:
        """The parameters that count with the values the session holds (for sweeps)."""
        values = {p.name: view_value(self.prefix + p.name, p.default) for p in self.spec.params}
        return [p for p in self.spec.params if p.is_active(values)]

    def with_params(self, params: dict[str, Any]) -> FitRequest:
        """The page's fit with the method's parameters `params`."""
        return self.request.with_params(**params)

    def publish(self, params: Sequence[str], keys: Sequence[str] = (), extra=None) -> None:
        """Write the link: the page's keys, the view's own `keys`, the method's parameters named in
        `params` and `extra` values; parameters and generator settings not shown are dropped."""
        shown = url_values([*self.url_keys, *keys, *(self.prefix + p for p in params)])
        publish({**shown, **(extra or {})}, prune=LINK_PREFIXES)


def numeric_params(page: EmbedPage) -> list[Param]:
    """The parameters that count here with more than one numeric value on their slider (what a
    scrub or a window map can sweep)."""
    from metriclab.ui.shared.widgets import param_values

    return [p for p in page.active_params() if len(param_values(p)) > 1]


def timing_enabled() -> bool:
    """Whether the views print their run times for bench/app_latency.py (METRICLAB_TIMING)."""
    import os

    return bool(os.environ.get("METRICLAB_TIMING"))
