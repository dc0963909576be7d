"""The Dataset record and the registry of named data sets (shipped files and synthetic generators)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from metriclab import resources

SAMPLE_DATA = resources.sample_data()  # the checkout's sample_data/, or the wheel's copy
CATALOG = SAMPLE_DATA / "catalog.json"


@dataclass
class Dataset:
    """A data set: features, integer labels 0..c-1 and where they came from.

    Returned by :func:`load` and :func:`load_csv`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The features (float64, or float32 for the app's full-size copies).
    y : ndarray of shape (n_samples,)
        The classes, coded 0..c-1.
    name : str
        The data set's name.
    feature_names : list of str
        A name per column of X.
    target_names : list of str
        A name per class code.
    description : str, default=""
        What the data are.
    source : str, default=""
        Citation and provenance (package, version, licence, rows removed, preprocessing).
    image_shape : tuple of int or None, default=None
        (height, width) when the rows are images.
    test_mask : ndarray of bool or None, default=None
        The source's own train/test split (True: a test point), where it defines one.
    params : dict, default={}
        The generator's parameters of a synthetic set.

    See Also
    --------
    load : A data set by name.
    load_csv : A data set from your CSV file.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> ds = load("iris")
    >>> ds.X.shape, ds.n_classes
    ((150, 4), 3)
    >>> ds.class_counts()
    {'setosa': 50, 'versicolor': 50, 'virginica': 50}
    """

    X: np.ndarray
    y: np.ndarray
    name: str
    feature_names: list[str]
    target_names: list[str]
    description: str = ""
    source: str = ""
    image_shape: tuple[int, int] | None = None
    # Fixed train/test split where the source defines one (True = test point), else None.
    test_mask: np.ndarray | None = None
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        # float64, or float32 where it was chosen (the app's full-size copies: half the memory)
        dtype = np.float32 if getattr(self.X, "dtype", None) == np.float32 else np.float64
        self.X = np.ascontiguousarray(self.X, dtype=dtype)
        self.y = np.asarray(self.y, dtype=np.int64)
        if self.X.ndim != 2 or self.y.shape != (self.X.shape[0],):
            raise ValueError(f"{self.name}: X must be n×d and y of length n")

    @property
    def n_samples(self) -> int:
        return self.X.shape[0]

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_classes(self) -> int:
        return len(self.target_names)

    def class_counts(self) -> dict[str, int]:
        """Count the points of each class.

        Returns
        -------
        dict of str to int
            The number of points per class name.
        """
        counts = np.bincount(self.y, minlength=self.n_classes)
        return {name: int(c) for name, c in zip(self.target_names, counts, strict=True)}


@dataclass(frozen=True)
class DatasetEntry:
    name: str
    kind: str  # "file" or "synthetic"
    loader: Callable[..., Dataset]
    summary: str = ""
    params: tuple = ()  # metriclab.methods.registry.Param specs for synthetic generators
    listed: bool = True  # False: loadable by name, but not offered by names() (the app's lists)


_ENTRIES: dict[str, DatasetEntry] = {}


def register(entry: DatasetEntry) -> None:
    _ENTRIES[entry.name] = entry


@lru_cache(maxsize=1)
def read_catalog() -> dict:
    if not CATALOG.exists():
        return {}
    return json.loads(CATALOG.read_text())


def load_shipped(name: str) -> Dataset:
    """Read one shipped data set from sample_data/ (NPZ without pickles, metadata in catalog.json)."""
    meta = read_catalog()[name]
    with np.load(SAMPLE_DATA / meta["file"], allow_pickle=False) as npz:
        arrays = {key: npz[key] for key in npz.files}
    shape = meta.get("image_shape")
    return Dataset(
        X=arrays["X"],
        y=arrays["y"],
        name=name,
        feature_names=[str(f) for f in arrays["feature_names"]],
        target_names=[str(t) for t in arrays["target_names"]],
        description=meta.get("description", ""),
        source=meta.get("source", ""),
        image_shape=tuple(shape) if shape else None,
        test_mask=arrays["test_mask"].astype(bool) if "test_mask" in arrays else None,
    )


def _register_shipped() -> None:
    for name, meta in read_catalog().items():
        register(
            DatasetEntry(
                name=name,
                kind="file",
                loader=lambda name=name: load_shipped(name),
                summary=meta.get("summary", meta.get("description", "")[:80]),
                listed=meta.get("listed", True),
            )
        )


def names(kind: str | None = None, include_unlisted: bool = False) -> list[str]:
    """List the names of the data sets: the ones the app's lists offer, or every name `load` takes.

    Parameters
    ----------
    kind : {None, "file", "synthetic"}, default=None
        Only the shipped files of sample_data/ ("file") or only the generators ("synthetic");
        None: both.
    include_unlisted : bool, default=False
        False: the listed sets, those the app's data-set lists offer. True: every name that
        `load` takes, the unlisted ones added. Two shipped sets are unlisted: ``mnist`` (all
        70,000 MNIST digits, 440 MB as float64, for the TDL paper's MNIST tables and the Embed
        page's full-size view) and ``breast_cancer_wisconsin_699`` (all 699 rows of the original
        Wisconsin set with the 16 missing values imputed, for the 699-row reading of Zhang's
        Table 1; the listed ``breast_cancer_wisconsin`` drops those rows). ``entry(name).listed``
        tells which a name is.

    Returns
    -------
    list of str
        The names in registration order: shipped files, then generators.

    See Also
    --------
    load : A data set by name.

    Examples
    --------
    >>> from metriclab.datasets import names
    >>> "iris" in names() and "two_moons" in names(kind="synthetic")
    True
    >>> "mnist" in names(include_unlisted=True) and "mnist" not in names()
    True
    """
    if kind not in (None, "file", "synthetic"):
        raise ValueError(f"kind must be None, 'file' or 'synthetic', got {kind!r}")
    return [
        n
        for n, e in _ENTRIES.items()
        if (kind is None or e.kind == kind) and (e.listed or include_unlisted)
    ]


def entry(name: str) -> DatasetEntry:
    """What the registry knows about a data set, without loading it.

    Parameters
    ----------
    name : str
        A name :func:`load` takes (see ``names(include_unlisted=True)``).

    Returns
    -------
    DatasetEntry
        ``name``; ``kind``, ``"file"`` (shipped in sample_data/) or ``"synthetic"`` (a
        generator); ``summary``, one line; ``params``, a generator's parameters (each a
        :class:`metriclab.methods.Param`); ``listed``, whether :func:`names` offers it.

    Raises
    ------
    ValueError
        For an unknown name; the message lists every name `load` takes.

    See Also
    --------
    names : The names of the data sets.
    load : A data set by name.

    Examples
    --------
    >>> from metriclab.datasets import entry
    >>> entry("two_moons").kind, entry("iris").kind
    ('synthetic', 'file')
    >>> entry("mnist").listed
    False
    >>> [p.name for p in entry("harder_moons").params]
    ['n_samples', 'noise', 'shift', 'seed']
    """
    if name not in _ENTRIES:
        every = names(include_unlisted=True)
        raise ValueError(f"unknown data set {name!r}; load() takes: {', '.join(every)}")
    return _ENTRIES[name]


def load(name: str, **params) -> Dataset:
    """Load a data set by name, from the shipped files or a generator.

    Parameters
    ----------
    name : str
        One of :func:`names` (``"iris"``, ``"two_moons"``, ``"usps"``, ...).
    **params : dict
        A synthetic generator's parameters (``n_samples``, ``noise``, ``seed``, ...); a shipped
        file takes none.

    Returns
    -------
    Dataset
        The features, labels, names and provenance.

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones) or parameter.

    See Also
    --------
    names : The names it takes.
    load_csv : Your own data.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> ds = load("two_moons", n_samples=100, seed=1)
    >>> ds.X.shape, ds.target_names
    ((100, 2), ['upper moon', 'lower moon'])
    >>> load("usps").image_shape
    (16, 16)
    """
    e = entry(name)
    if e.kind == "synthetic":
        resolved = {p.name: p.default for p in e.params}
        known = set(resolved)
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(f"{name} has no parameter(s) {unknown}; known: {sorted(known)}")
        for p in e.params:
            if p.name in params:
                resolved[p.name] = p.validate(params[p.name])
        ds = e.loader(**resolved)
        ds.params = resolved
        return ds
    if params:
        raise ValueError(f"{name} is a shipped data set and takes no parameters")
    return e.loader()
