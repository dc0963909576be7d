"""Named data sets: shipped files in sample_data/, synthetic generators, and CSV uploads.

`names()` gives the sets the app's lists offer; `names(include_unlisted=True)` every name `load`
takes (the full MNIST, ``mnist``, and the 699-row Wisconsin breast cancer set,
``breast_cancer_wisconsin_699``, added); `metriclab data list` prints them all.
"""

from metriclab.datasets import synthetic  # noqa: F401  (registers the generators)
from metriclab.datasets.core import Dataset, _register_shipped, entry, load, names
from metriclab.datasets.drawn import from_points
from metriclab.datasets.sampling import subsample, subsample_indices
from metriclab.datasets.scaling import default_preprocess, default_scaling
from metriclab.datasets.upload import load_csv

_register_shipped()

__all__ = [
    "Dataset",
    "default_preprocess",
    "default_scaling",
    "entry",
    "from_points",
    "load",
    "load_csv",
    "names",
    "subsample",
    "subsample_indices",
]
