"""All methods, gathered from the family modules into one registry keyed by `MethodSpec.key`."""

from __future__ import annotations

from importlib import import_module

from metriclab.methods.registry import MethodSpec, Param

FAMILY_MODULES = ("baselines", "spectral", "zhang", "mahalanobis", "kpca_trick", "tangent")


def _gather() -> dict[str, MethodSpec]:
    registry: dict[str, MethodSpec] = {}
    for module_name in FAMILY_MODULES:
        module = import_module(f"metriclab.methods.{module_name}")
        for spec in getattr(module, "SPECS", ()):
            if spec.key in registry:
                raise RuntimeError(f"duplicate method key {spec.key!r} in {module_name}")
            registry[spec.key] = spec
    return registry


REGISTRY: dict[str, MethodSpec] = _gather()

__all__ = ["REGISTRY", "MethodSpec", "Param"]
