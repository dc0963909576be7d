"""All methods, gathered from the family modules into one registry keyed by `MethodSpec.key`.

Each family's `SPECS` list lives in `metriclab.methods.specs.<family>`, apart from the algorithms.
"""

from __future__ import annotations

from importlib import import_module

from metriclab.methods.registry import MethodSpec, Param

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

__all__ = ["FAMILY_MODULES", "REGISTRY", "MethodSpec", "Param"]
