"""A fit as the app knows it: one frozen value.

`FitRequest` names everything a page's fit depends on — the data set (with its generator's
parameters and the stratified subsample), the labelled split, the feature scaling, the method and
its parameters — and nothing else. It is what the caches hash (`ui.shared.memo`), what the
computations run (`ui.shared.compute`), what the link records (`FitRequest.link`) and what the
code snippet recomputes (`ui.shared.code_snippets`), so these cannot drift apart. No streamlit
here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from metriclab.methods import REGISTRY, MethodSpec
from metriclab.params import Param

# The link schema: every URL key of a fit is spelled here, and only here. The widgets that set a
# fit's values use the same keys in the session, so a link opens the widgets it names.
DATA_KEY = "ds"  # the data set
CAP_KEY = "cap"  # the stratified subsample's size (the Embed page's "Points used")
LABELS_KEY = "lab"  # "fraction" or "per_class"
SPLIT_SEED_KEY = "seed"
SCALING_KEY = "pp"
CLASSIFIER_KEY = "clf"  # the classifier in the embedding: 1nn, knn:5, nearest_mean (Embed, Compare)
QUALITY_K_KEY = "qk"  # the k of trustworthiness, continuity and the kept neighbours
METHOD_KEY = "method"  # the Embed page's method; a page with its own picker passes its own key
TEST_KEY = "test"  # the share of the points held out of the fit and mapped (Embed; 0: none)
METHODS_KEY = "methods"  # the Embed page's linked views: the 2 to 4 methods side by side
SELECTION_KEY = "sel"  # the points selected in the linked views: data set indices, "3,17,40-52"
CLASSES_KEY = "classes"  # the classes the linked views draw: class codes, "1,2" (absent: all)
UPLOAD_PREFIX = "upload:"  # ds=upload:<key>: a data set held by a session (an upload, a drawing)
PARAM_PREFIX = "p."  # p.<method>.<name>: a method's parameter
GENERATOR_PREFIX = "d."  # d.<data set>.<name>: a synthetic generator's parameter
LINK_PREFIXES = (PARAM_PREFIX, GENERATOR_PREFIX)  # keys of a method or set no longer shown: pruned


def label_value_key(mode: str) -> str:
    """The key of the labelled share ("frac") or of the labels per class ("per")."""
    return "frac" if mode == "fraction" else "per"


def param_prefix(method: str) -> str:
    """`p.<method>.`: the keys of `method`'s parameters start with it."""
    return f"{PARAM_PREFIX}{method}."


def generator_prefix(dataset: str) -> str:
    """`d.<data set>.`: the keys of a synthetic generator's parameters start with it."""
    return f"{GENERATOR_PREFIX}{dataset}."


def _read(p: Param, value: Any) -> Any:
    """A link's value of the parameter `p`: the value itself, or its text as the URL holds it
    (`ui.shared.state.encode`: "auto" is None, "1"/"0" a switch, a choice its `str`)."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() == "auto" and p.allows_none:
            return None
        if p.kind == "bool" and text.lower() in ("1", "0", "true", "false", "on", "off"):
            return text.lower() in ("1", "true", "on")
        if p.kind == "choice":
            value = next((c for c in p.choices if str(c) == text), text)
    return p.validate(value)


def _prefixed(query: Mapping[str, Any], prefix: str, params) -> dict[str, Any]:
    """The values of `params` that `query` holds under `prefix + name`, read by `_read`."""
    return {p.name: _read(p, query[prefix + p.name]) for p in params if prefix + p.name in query}


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
        out: dict[str, Any] = {DATA_KEY: self.name}
        out |= {generator_prefix(self.name) + k: v for k, v in self.params}
        if self.max_points is not None:
            out[CAP_KEY] = self.max_points
        return out


@dataclass(frozen=True)
class SplitRef:
    """The labelled points: a share of each class (`mode` "fraction") or a number per class
    ("per_class"), drawn with `seed`."""

    mode: str = "fraction"
    value: float = 0.1
    seed: int = 0

    def link(self) -> dict[str, Any]:
        """The URL values of this split (`lab`, `frac` or `per`, `seed`)."""
        return {LABELS_KEY: self.mode, label_value_key(self.mode): self.value} | {
            SPLIT_SEED_KEY: self.seed
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
        out = self.data.link() | self.split.link()
        out |= {SCALING_KEY: self.scaling, method_key: self.method}
        return out | {param_prefix(self.method) + k: v for k, v in self.params}

    @classmethod
    def from_link(cls, query: Mapping[str, Any], method_key: str = METHOD_KEY) -> FitRequest:
        """The fit that the URL values `query` name: the inverse of `link`.

        Values may be the link's own or their text as the URL holds it (`st.query_params`); each
        is read and checked by its parameter's rule (a ValueError names a wrong one). The split
        and the scaling take their defaults where the link has none; keys of another method or
        data set, and the pages' own keys, are ignored."""
        from metriclab import datasets

        for key in (DATA_KEY, method_key):
            if key not in query:
                raise ValueError(f"the link names no {key!r}")
        name, method = str(query[DATA_KEY]), str(query[method_key])
        if method not in REGISTRY:
            raise ValueError(f"unknown method {method!r} in the link")
        generator = () if name.startswith(UPLOAD_PREFIX) else datasets.entry(name).params
        cap = Param(CAP_KEY, "Points used", "int", None, low=1)
        data = DataRef(
            name,
            _prefixed(query, generator_prefix(name), generator),
            _read(cap, query[CAP_KEY]) if CAP_KEY in query else None,
        )
        mode = str(query.get(LABELS_KEY, SplitRef.mode))
        if mode not in ("fraction", "per_class"):
            raise ValueError(f"{LABELS_KEY} must be 'fraction' or 'per_class', got {mode!r}")
        share = Param("frac", "Labeled fraction", "float", 0.1, low=0, high=1, low_open=True)
        count = Param("per", "Labels per class", "int", 1, low=1)
        rule = share if mode == "fraction" else count
        value = query.get(label_value_key(mode), rule.default)
        seed = query.get(SPLIT_SEED_KEY, SplitRef.seed)
        seed_rule = Param(SPLIT_SEED_KEY, "Split seed", "int", 0, low=0)
        split = SplitRef(mode, _read(rule, value), _read(seed_rule, seed))
        spec = REGISTRY[method]
        params = _prefixed(query, param_prefix(method), spec.params)
        return cls(data, split, method, params, str(query.get(SCALING_KEY, cls.scaling)))

    def link_keys(self, method_key: str = METHOD_KEY, offers_cap: bool = False) -> list[str]:
        """The URL keys of this fit (`link`), for a page whose widgets hold the values: the
        subsample's size only where the page offers it as a slider (`offers_cap`)."""
        keys = [key for key in self.link(method_key) if key != CAP_KEY]
        return keys + ([CAP_KEY] if offers_cap else [])
