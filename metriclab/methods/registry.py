"""Method registry: one `MethodSpec` per method, with `Param` specs that the app turns into widgets.

A method is added by writing its estimator and appending a `MethodSpec` to the `SPECS` list of its
family in `metriclab.methods.specs` (baselines, spectral, zhang, mahalanobis, kpca_trick,
tangent). The pages, the CLI and the fuzz tests read
`REGISTRY` and need no further edits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from metriclab.params import Param


@dataclass(frozen=True)
class MethodSpec:
    """What the app, the CLI and the tests need to know about one method.

    factory(**params) builds an unfitted estimator. Conventions of the estimator:
    - transductive methods: fit(X_all, y) with y == -1 on unlabeled points; `embedding_` holds
      the embedding of all points (and `transform` maps new points when out_of_sample).
    - inductive methods: fit(X_labeled, y_labeled); transform(X) maps any points.
    - classifiers (output == "classifier", e.g. tangent-distance k-NN): fit(X_labeled, y_labeled),
      predict(X); they have no embedding.
    - image methods (input == "image") need a data set with `image_shape` and receive it as the
      `image_shape` keyword of the factory.
    """

    key: str
    label: str
    paper: str
    params: Sequence[Param]
    factory: Callable[..., Any]
    family: str = "baseline"
    needs_labels: bool = True
    transductive: bool = False
    out_of_sample: bool = True
    gives_dissimilarity: bool = False
    input: str = "vector"  # "vector" or "image"
    # "embedding" (fit/transform or embedding_) or "classifier" (fit/predict)
    output: str = "embedding"
    baseline: str | None = "euclidean"  # key of the method shown beside this one
    description: str = ""
    tags: tuple = field(default_factory=tuple)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise KeyError(f"{self.key} has no parameter {name!r}")

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def resolve(self, **params: Any) -> dict[str, Any]:
        """Defaults overridden by `params`, each validated; unknown names raise ValueError."""
        known = {p.name for p in self.params}
        unknown = sorted(set(params) - known - {"image_shape"})
        if unknown:
            raise ValueError(f"{self.label} has no parameter(s) {unknown}; known: {sorted(known)}")
        values = self.defaults()
        for name, value in params.items():
            if name == "image_shape":
                values[name] = value
                continue
            values[name] = self.param(name).validate(value)
        return values

    def make(self, **params: Any) -> Any:
        """An unfitted estimator with validated parameters."""
        return self.factory(**self.resolve(**params))
