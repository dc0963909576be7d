"""Each data set's default feature scaling: what the paper that uses it did, with the reason.

The app's pages start from this choice and `CompareRequest(..., preprocess="auto")` uses it; a
person can always pick another (`metriclab.preprocess.PREPROCESS`). Rules: the sets of the TDL paper's Table 1
are renormalised to [0, 1] as there (two of them, breast cancer and ionosphere, are also KPCA-trick
sets; TDL's 10 %-labelled protocol is the one the app starts with); the KPCA-trick paper's sets are
z-scored as in our reproduction of it (the paper does not state its scaling); image sets keep their pixel values (tangent distance works on pixels);
synthetic sets keep the generator's units (the papers' widths, e.g. TDL's 0.25 on two moons, are
given in them); any other tabular set, an upload included, is z-scored.
"""

from __future__ import annotations

TDL = "TDL paper (Li, Yang & Wang 2007) Table 1: features renormalised to [0, 1]"
KPCA = (
    "KPCA-trick paper's sets (Chatpatanasiri et al. 2009): z-scores, as our reproduction of it "
    "(the paper does not state its scaling)"
)
IMAGES = "images: pixel values kept (tangent distance and the papers work on pixels)"
SYNTHETIC = "synthetic: the generator's units (the papers give their widths in them)"
TABULAR = "tabular: z-scores, so no feature dominates the distance by its units"

DEFAULTS: dict[str, tuple[str, str]] = {
    "wine": ("minmax", TDL),
    "sonar": ("minmax", TDL),
    "breast_cancer_wisconsin": ("minmax", TDL + "; also a KPCA-trick set (z-scored there)"),
    "ionosphere": ("minmax", TDL + "; also a KPCA-trick set (z-scored there)"),
    "balance": ("standardise", KPCA),
    "glass": ("standardise", KPCA),
    "iris": ("standardise", KPCA),
    "musk2": ("standardise", KPCA),
    "pima": ("standardise", KPCA),
    "satellite": ("standardise", KPCA),
    "yeast": ("standardise", KPCA),
    "wdbc": ("standardise", TABULAR),
    "soybean": ("standardise", TABULAR),
    "digits": ("none", IMAGES),
    "mnist_5000": ("none", IMAGES),
    "usps": ("none", IMAGES),
}


def default_scaling(dataset) -> tuple[str, str]:
    """The feature scaling a data set starts with, and why.

    What the paper that uses the set did: the TDL paper's Table 1 sets in [0, 1], the
    KPCA-trick paper's sets as z-scores, image and synthetic sets unscaled, any other tabular
    set (an upload included) as z-scores. ``preprocess="auto"`` (the default of
    :class:`~metriclab.evaluation.CompareRequest`) and the app's pages start from it.

    Parameters
    ----------
    dataset : Dataset or str
        A data set, or its name (a synthetic set's parameters, ``"harder_moons:shift=0.5"``,
        are ignored).

    Returns
    -------
    tuple of (str, str)
        The preprocess key (``"none"``, ``"standardise"`` or ``"minmax"``) and the reason, in
        words.

    See Also
    --------
    default_preprocess : The key alone.

    Examples
    --------
    >>> from metriclab.datasets import default_scaling
    >>> key, why = default_scaling("wine")
    >>> key, why.startswith("TDL paper")
    ('minmax', True)
    >>> default_scaling("two_moons")[0], default_scaling("my_upload")[0]
    ('none', 'standardise')
    """
    from metriclab.datasets.core import Dataset, names

    name = dataset.name if isinstance(dataset, Dataset) else str(dataset).split(":")[0]
    if name in DEFAULTS:
        return DEFAULTS[name]
    if name in names("synthetic"):
        return "none", SYNTHETIC
    if isinstance(dataset, Dataset) and dataset.image_shape is not None:
        return "none", IMAGES
    return "standardise", TABULAR


def default_preprocess(dataset) -> str:
    """The preprocess key a data set starts with.

    Parameters
    ----------
    dataset : Dataset or str
        A data set, or its name.

    Returns
    -------
    str
        ``"none"``, ``"standardise"`` (z-scores) or ``"minmax"`` ([0, 1] range).

    See Also
    --------
    default_scaling : The key with the reason.

    Examples
    --------
    >>> from metriclab.datasets import default_preprocess, load
    >>> default_preprocess(load("iris")), default_preprocess("usps")
    ('standardise', 'none')
    """
    return default_scaling(dataset)[0]
