"""All methods, gathered from the family modules into one registry keyed by `MethodSpec.key`.

Each family's `SPECS` list lives in `metriclab.methods.specs.<family>`, apart from the algorithms.
A method defined outside the package joins with `register(spec)`; the app, the CLI, the
comparisons and the code snippets then offer it like the others (they ask its tags, never its
key).
"""

from __future__ import annotations

from importlib import import_module

from metriclab.methods.registry import CAPABILITIES, Explanation, MethodSpec, Param, with_tags

#: The family modules of `metriclab.methods.specs` whose ``SPECS`` lists make up `REGISTRY`,
#: in the registry's order.
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


#: Every method: `MethodSpec.key` -> `MethodSpec`, the shipped methods in family order, then
#: those added with `register`.
REGISTRY: dict[str, MethodSpec] = _gather()


def register(spec: MethodSpec, replace: bool = False) -> MethodSpec:
    """Add a method to `REGISTRY`.

    The app, the command line, the comparisons and the code snippets then offer it like the
    shipped methods.

    Parameters
    ----------
    spec : MethodSpec
        The method (a TypeError for anything else).
    replace : bool, default=False
        Whether a method already registered under ``spec.key`` is replaced; otherwise that is a
        ValueError.

    Returns
    -------
    MethodSpec
        `spec`.

    See Also
    --------
    unregister : Remove it again.

    Examples
    --------
    A whitened PCA, built by scikit-learn's PCA with ``whiten=True`` always passed:

    >>> from sklearn.decomposition import PCA
    >>> from metriclab.methods import REGISTRY, MethodSpec, Param, register, unregister
    >>> spec = MethodSpec(
    ...     key="whitened_pca", label="Whitened PCA", paper="baseline",
    ...     params=[Param("n_components", "Components", "int", 2, low=1)],
    ...     factory=PCA, fixed={"whiten": True}, tags={"unsupervised", "linear_map"},
    ... )
    >>> register(spec) is REGISTRY["whitened_pca"]
    True
    >>> REGISTRY["whitened_pca"].make(n_components=3)
    PCA(n_components=3, whiten=True)
    >>> unregister("whitened_pca")
    >>> "whitened_pca" in REGISTRY
    False
    """
    if not isinstance(spec, MethodSpec):
        raise TypeError(f"register takes a MethodSpec, got {type(spec).__name__}")
    if spec.key in REGISTRY and not replace:
        raise ValueError(f"a method with key {spec.key!r} is already registered")
    REGISTRY[spec.key] = spec
    return spec


def unregister(key: str) -> None:
    """Remove a method added with `register`.

    Parameters
    ----------
    key : str
        The method's `MethodSpec.key`; an unknown key is ignored.

    See Also
    --------
    register : Add a method.

    Examples
    --------
    >>> import dataclasses
    >>> from metriclab.methods import REGISTRY, register, unregister
    >>> register(dataclasses.replace(REGISTRY["pca"], key="pca_copy")).key
    'pca_copy'
    >>> unregister("pca_copy")
    >>> "pca_copy" in REGISTRY
    False
    >>> unregister("pca_copy")  # a key not registered: nothing happens
    """
    REGISTRY.pop(key, None)


def specs_with(*tags: str, without: tuple[str, ...] = ()) -> list[MethodSpec]:
    """The registered methods with every one of `tags` and none of `without`.

    Parameters
    ----------
    *tags : str
        Keys of `CAPABILITIES` the methods must all have (an unknown tag raises ValueError).
    without : tuple of str, default=()
        Keys of `CAPABILITIES` the methods must not have.

    Returns
    -------
    list of MethodSpec
        The methods, in `REGISTRY`'s order.

    Examples
    --------
    >>> from metriclab.methods import specs_with
    >>> [spec.key for spec in specs_with("kernelised")]
    ['knca', 'klmnn', 'kdne']
    >>> [spec.key for spec in specs_with("mahalanobis", without=("needs_images",))]
    ['nca', 'lmnn', 'dne']
    """
    return with_tags(REGISTRY.values(), *tags, without=without)


def input_space() -> MethodSpec | None:
    """The Euclidean baseline: the method tagged "input_space".

    Returns
    -------
    MethodSpec or None
        The first registered method with that tag, or None if there is none.

    See Also
    --------
    projection : The same-dimension baseline.

    Examples
    --------
    >>> from metriclab.methods import input_space
    >>> input_space().key
    'euclidean'
    """
    found = specs_with("input_space")
    return found[0] if found else None


def projection() -> MethodSpec | None:
    """The unsupervised same-dimension baseline: the method tagged "projection" (PCA).

    A learned embedding is shown beside it at the same number of components.

    Returns
    -------
    MethodSpec or None
        PCA's spec as registered (the first method tagged "projection"); None if no method
        has that tag.

    Examples
    --------
    >>> from metriclab.methods import projection
    >>> spec = projection()
    >>> spec.key, spec.defaults()
    ('pca', {'n_components': 2})
    """
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
