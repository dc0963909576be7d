"""The estimators' parameter checks, from the one declaration of each parameter: the `Param`s of
the method specs that build the estimator's class (`MethodSpec.params` and `.hidden`).

`check_params(estimator)` is called at the start of `fit`, as scikit-learn validates there: every
declared parameter's value is checked by `Param.check`, which raises an `InvalidParameterError`
(a ValueError) naming the parameter, its value and the allowed range. The app's sliders and the
link clamp read the same `Param`s, so the three cannot disagree. Checks that depend on the data
(n_components at most the number of features) stay in the estimator.
"""

from __future__ import annotations

from typing import Any

from metriclab.params import Param


def declared_params(cls: type) -> dict[str, Param]:
    """The parameters declared for estimator class `cls` by the registered specs that build it
    (a ValueError when two specs declare one name with different ranges or choices)."""
    from metriclab.methods import REGISTRY

    found: dict[str, Param] = {}
    for spec in REGISTRY.values():
        if spec.estimator is not cls:
            continue
        for p in (*spec.params, *spec.hidden):
            known = found.get(p.name)
            if known is not None and _rule(known) != _rule(p):
                raise ValueError(
                    f"{cls.__name__}.{p.name} is declared twice with different rules: "
                    f"{_rule(known)} and {_rule(p)}"
                )
            found[p.name] = p
    return found


def _rule(p: Param) -> tuple:
    """What decides whether a value is accepted (not the label, help or slider)."""
    choices = p.choices if p.kind == "choice" else ()
    return (p.kind, p.low, p.high, p.low_open, p.high_open, choices, p.allows_none, p.active_when)


def check_params(estimator: Any) -> dict[str, Any]:
    """Check every declared parameter of `estimator` (at fit); returns {name: value} checked."""
    declared = declared_params(type(estimator))
    values = estimator.get_params(deep=False)
    return {name: p.check(values[name]) for name, p in declared.items() if name in values}
