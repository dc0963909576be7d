"""All methods, gathered from the family modules into one registry keyed by `MethodSpec.key`.

Each family's `SPECS` list lives in `metriclab.methods.specs.<family>`, apart from the algorithms.
A method defined outside the package joins with `register(spec)`; the app, the CLI, the
comparisons and the code snippets then offer it like the others (they ask its tags, never its
key).
"""

from __future__ import annotations

from importlib import import_module

from metriclab.methods.registry import CAPABILITIES, Explanation, MethodSpec, Param, with_tags

FAMILY_MODULES = ("baselines", "spectral", "zhang", "mahalanobis", "kpca_trick", "tangent")


def _specs_module(family: str):
    return import_module(f"metriclab.methods.specs.{family}")


def _gather() -> dict[str, MethodSpec]:
    registry: dict[str, MethodSpec] = {}
    for family in FAMILY_MODULES:
        module = _specs_module(family)
        for spec in getattr(module, "SPECS", ()):
            if spec.key in registry:
                raise RuntimeError(f"duplicate method key {spec.key!r} in {module.__name__}")
            registry[spec.key] = spec
    return registry


REGISTRY: dict[str, MethodSpec] = _gather()


def register(spec: MethodSpec, replace: bool = False) -> MethodSpec:
    """Add `spec` to `REGISTRY` (a ValueError for a key already taken, unless `replace`)."""
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register takes a MethodSpec, got {type(spec).__name__}")
    if spec.key in REGISTRY and not replace:
        raise ValueError(f"a method with key {spec.key!r} is already registered")
    REGISTRY[spec.key] = spec
    return spec


def unregister(key: str) -> None:
    """Remove a method added with `register` (a no-op for an unknown key)."""
    REGISTRY.pop(key, None)


def specs_with(*tags: str, without: tuple[str, ...] = ()) -> list[MethodSpec]:
    """The registered methods with every one of `tags` and none of `without`."""
    return with_tags(REGISTRY.values(), *tags, without=without)


def input_space() -> MethodSpec | None:
    """The Euclidean baseline (the method tagged "input_space"), or None."""
    found = specs_with("input_space")
    return found[0] if found else None


def projection() -> MethodSpec | None:
    """The unsupervised same-dimension baseline (tagged "projection", i.e. PCA), or None."""
    found = specs_with("projection")
    return found[0] if found else None


__all__ = [
    "CAPABILITIES",
    "FAMILY_MODULES",
    "REGISTRY",
    "Explanation",
    "MethodSpec",
    "Param",
    "input_space",
    "projection",
    "register",
    "specs_with",
    "unregister",
]
