"""New points (issue 37, item 2): a method fitted without a held-out share maps those points
through its out-of-sample map, and any new point is placed with its nearest neighbours.

- `held_out_mask`: a seeded, stratified share of the unlabelled points held out of the fit.
- `fit_held_out`: fit a method on the other points (with `fit_split`, the one way to fit a method
  on a split), map the held-out points with the estimator's `transform` (TDL's Lemma 6, the
  Laplacian Eigenmaps Nyström extension, Zhang's out-of-sample MDS, the KPCA trick, the linear
  maps) and score a classifier on them beside the transductive score on the unlabelled points
  the fit saw. A method without an out-of-sample map raises `NoOutOfSampleMap` with the reason
  (`out_of_sample_reason` says it without fitting); which methods have one is read from the
  registry's tags, never from a method's key.
- `map_new_points`: a fitted estimator's coordinates of new points, with their nearest reference
  points in the embedding (the learned metric) and in the input (Euclidean).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from sklearn.neighbors import NearestNeighbors

from metriclab.evaluation.fitting import SplitRequest, fit_split, resolve_protocol
from metriclab.evaluation.scoring import classifier_accuracy, parse_classifier
from metriclab.evaluation.splitting import stratified_mask
from metriclab.preprocess import make_scaler, scaler_fit_rows

DEFAULT_TEST = 0.3  # the share of the points held out (`test=0.3` in a link)
# the features are scaled here, on the points not held out, before `fit_split` sees them
UNSCALED = {"preprocess": "none", "protocol": "auto"}
N_NEW_NEIGHBOURS = 5  # neighbours listed for each new point


class NoOutOfSampleMap(ValueError):
    """The method cannot place points it was not fitted on; the message says why.

    Raised by `fit_held_out` for a method whose registry tags give it no out-of-sample map
    (`out_of_sample_reason`: a classifier, such as tangent distance k-NN, gives labels, not
    coordinates) and by `map_new_points` for an estimator without ``transform``. It is a
    ``ValueError``, so code that catches bad parameters catches it too.

    Parameters
    ----------
    reason : str
        Why the method cannot place new points: the error's message.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import NoOutOfSampleMap, SplitRequest, fit_held_out, labeled_mask
    >>> from metriclab.methods import REGISTRY
    >>> ds = load("iris")
    >>> request = SplitRequest.of(REGISTRY["tangent_knn"], ds, labeled_mask(ds.y, 0.2, seed=0))
    >>> try:
    ...     fit_held_out(request, test=0.3)
    ... except NoOutOfSampleMap as error:
    ...     print(error)
    Tangent distance k-NN is a classifier: it predicts labels and gives no coordinates to map new points to
    """

    def __init__(self, reason: str):
        super().__init__(reason)


def out_of_sample_reason(spec) -> str | None:
    """Why `spec`'s method cannot map held-out points, or None when it can.

    Read from the spec's tags: a classifier gives labels, not coordinates; a transductive method
    maps new points only with the tag 'out_of_sample'.

    Parameters
    ----------
    spec : MethodSpec
        A registry entry (`metriclab.methods.REGISTRY`).

    Returns
    -------
    str or None
        The reason in one sentence, or None.

    Examples
    --------
    >>> from metriclab.methods import REGISTRY
    >>> from metriclab.evaluation.held_out import out_of_sample_reason
    >>> [key for key, spec in REGISTRY.items() if out_of_sample_reason(spec) is None][:2]
    ['euclidean', 'pca']
    """
    if spec.output == "classifier":
        return (
            f"{spec.label} is a classifier: it predicts labels and gives no coordinates to map "
            "new points to"
        )
    if not spec.out_of_sample:
        return f"{spec.label} has no out-of-sample map: it embeds only the points it is fitted on"
    return None


def held_out_mask(y, test: float = DEFAULT_TEST, labeled=None, seed: int = 0) -> np.ndarray:
    """A seeded, stratified share of the points held out of the fit (True = held out).

    The held-out points are drawn among the unlabelled points (all points when `labeled` is
    None), class by class in proportion to the class sizes (`stratified_mask`), so the labelled
    points stay the page's and the fit keeps at least one unlabelled point of each class.

    Parameters
    ----------
    y : array-like of shape (n,)
        Classes of all points.
    test : float
        Share of all n points to hold out, in (0, 1): round(test · n) points.
    labeled : array-like of bool of shape (n,), optional
        The labelled points, never held out.
    seed : int
        Seed of the draw.

    Returns
    -------
    ndarray of bool of shape (n,)
        True for the held-out points.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation.held_out import held_out_mask
    >>> held = held_out_mask(np.repeat([0, 1], 50), test=0.3, seed=0)
    >>> int(held.sum()), int(held[:50].sum())
    (30, 15)
    """
    y = np.asarray(y)
    n = y.shape[0]
    if isinstance(test, bool) or not isinstance(test, int | float | np.floating | np.integer):
        raise ValueError(f"the held-out share must be a number in (0, 1), got {test!r}")
    if not 0 < float(test) < 1:
        raise ValueError(f"the held-out share must be in (0, 1), got {test!r}")
    labeled = np.zeros(n, dtype=bool) if labeled is None else np.asarray(labeled, dtype=bool)
    if labeled.shape != (n,):
        raise ValueError(f"labeled must be a mask of the {n} points")
    candidates = np.flatnonzero(~labeled)
    n_test = int(round(float(test) * n))
    n_classes = np.unique(y[candidates]).size
    if not n_classes <= n_test < candidates.size:
        raise ValueError(
            f"a held-out share of {test:g} is {n_test} points; it must be between {n_classes} "
            f"(one per class) and {candidates.size - 1} (the unlabelled points, one left in the "
            "fit): choose another share or label fewer points"
        )
    chosen = stratified_mask(y[candidates], n_test, seed=int(seed))
    held = np.zeros(n, dtype=bool)
    held[candidates[chosen]] = True
    return held


@dataclass
class HeldOutFit:
    """A method fitted without its held-out points, which it then maps.

    Parameters
    ----------
    estimator : estimator
        Fitted on the other points (`fit_split`).
    held_out : ndarray of bool of shape (n,)
        True for the held-out points.
    labeled : ndarray of bool of shape (n,)
        True for the labelled points (never held out).
    embedding : ndarray of shape (n, m)
        Every point's coordinates, in the data's order: the fit's for the points it saw, the
        out-of-sample map's for the held-out ones.
    classifier : str
        The classifier scored ('1nn', 'knn:K', 'nearest_mean').
    transductive_accuracy : float or None
        On the unlabelled points not held out, with the labelled points as reference: the
        page's usual score (a transductive method saw their features in its fit; an inductive
        one maps them as it maps the held-out points). None without labelled points or without
        such points.
    held_out_accuracy : float or None
        On the held-out points, with the same reference (None without labelled points).
    scaler : fitted scaler or None
        The feature scaling of the fit (`metriclab.preprocess.make_scaler`), applied to new
        points by `map_new_points`.

    See Also
    --------
    fit_held_out : Fit a method without its held-out points and map them.

    Examples
    --------
    TDL on the two moons, 5 labels per moon, 20 % of the points held out and mapped by the
    out-of-sample map (Lemma 6):

    >>> from metriclab import datasets, evaluation
    >>> from metriclab.methods import REGISTRY
    >>> moons = datasets.load("two_moons")
    >>> labels = evaluation.labeled_mask(moons.y, per_class=5, seed=0)
    >>> request = evaluation.SplitRequest.of(REGISTRY["tdl"], moons, labels)
    >>> fit = evaluation.fit_held_out(request, test=0.2, seed=0)
    >>> fit.embedding.shape, fit.held_out_coordinates.shape, bool(fit.labeled[fit.held_out].any())
    ((200, 2), (40, 2), False)
    >>> 0.0 <= fit.held_out_accuracy <= 1.0
    True
    """

    estimator: Any
    held_out: np.ndarray
    labeled: np.ndarray
    embedding: np.ndarray
    classifier: str
    transductive_accuracy: float | None
    held_out_accuracy: float | None
    scaler: Any = None

    @property
    def held_out_coordinates(self) -> np.ndarray:
        """The held-out points' coordinates (rows of `embedding` where `held_out`)."""
        return self.embedding[self.held_out]

    def scale(self, X) -> np.ndarray:
        """Raw features mapped by the fit's scaler.

        Parameters
        ----------
        X : array-like of shape (q, d)
            Points in the data's raw units.

        Returns
        -------
        ndarray of shape (q, d)
            The points as the fit saw its own (unchanged when the fit was unscaled).
        """
        X = np.asarray(X, dtype=np.float64)
        return X if self.scaler is None else np.asarray(self.scaler.transform(X), np.float64)


def fit_held_out(
    request: SplitRequest,
    *,
    test: float = DEFAULT_TEST,
    seed: int = 0,
    classifier: str = "1nn",
) -> HeldOutFit:
    """Fit a request's method without a held-out share and map the held-out points.

    The held-out points (`held_out_mask(y, test, labeled, seed)`) are kept out of the fit: a
    transductive method is fitted with `fit_split` on the other points (it sees the other
    unlabelled points' features, never the held-out ones) and maps the held-out points with its
    `transform`; an inductive method is fitted on the labelled points as always (`fit_split`)
    and maps every other point, held out or not, with its `transform`. The features are scaled
    by a scaler fitted on the rows `scaler_fit_rows` names among the points not held out.

    Parameters
    ----------
    request : SplitRequest
        The method, its parameters, the data (raw features of all points and their classes), the
        feature scaling (`preprocess`) and the image shape, as `fit_split` takes them; its
        `mask` marks the labelled points (every point True: every point not held out is
        labelled). Its protocol is the method's own.
    test : float
        Share of the points held out (0.3: `test=0.3` in a link).
    seed : int
        Seed of the held-out draw.
    classifier : str
        '1nn', 'knn:K' or 'nearest_mean'.

    Returns
    -------
    HeldOutFit
        The fitted method, the held-out mask and the held-out points' coordinates and accuracy.

    Raises
    ------
    NoOutOfSampleMap
        When the method has no out-of-sample map (`out_of_sample_reason`).

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import SplitRequest, labeled_mask
    >>> from metriclab.evaluation.held_out import fit_held_out
    >>> from metriclab.methods import REGISTRY
    >>> ds = load("iris")
    >>> mask = labeled_mask(ds.y, fraction=0.2, seed=0)
    >>> fit = fit_held_out(SplitRequest.of(REGISTRY["nca"], ds, mask), test=0.3, seed=0)
    >>> int(fit.held_out.sum()), fit.held_out_coordinates.shape
    (45, (45, 2))
    """
    spec, preprocess = request.spec, request.preprocess
    reason = out_of_sample_reason(spec)
    if reason is not None:
        raise NoOutOfSampleMap(reason)
    parse_classifier(classifier)  # a clear ValueError before the fit
    X = np.asarray(request.X, dtype=np.float64)
    y = np.asarray(request.y)
    n = y.shape[0]
    if X.ndim != 2 or X.shape[0] != n:
        raise ValueError(f"X must be a 2-D array of {n} rows (one per label), got {X.shape}")
    labeled = np.asarray(request.mask, dtype=bool)
    all_labeled = bool(labeled.all())
    if all_labeled:
        labeled = np.zeros(n, dtype=bool)
    held = held_out_mask(y, test, labeled, seed)
    fitted = ~held
    if all_labeled:
        labeled = fitted.copy()
    labeled_fit = labeled[fitted]
    # an inductive method learns from the labelled points; one that needs no labels and is given
    # none learns from every point not held out
    train = labeled if (labeled.any() or spec.transductive) else fitted
    protocol = resolve_protocol(spec, "auto")
    scaler_rows = np.zeros(n, dtype=bool)
    scaler_rows[np.flatnonzero(fitted)[scaler_fit_rows(spec, protocol, train[fitted])]] = True
    scaler = make_scaler(preprocess)
    if scaler is not None:
        scaler = scaler.fit(X[scaler_rows])
        X = np.asarray(scaler.transform(X), dtype=np.float64)
    if spec.transductive:  # fitted on the other points; the held-out ones through `transform`
        split = fit_split(replace(request, X=X[fitted], y=y[fitted], mask=labeled_fit, **UNSCALED))
        Z_fit = split.embedding()
        Z_held = np.asarray(split.estimator.transform(X[held]))
        Z = np.empty((n, *Z_fit.shape[1:]), dtype=np.result_type(Z_fit, Z_held))
        Z[fitted], Z[held] = Z_fit, Z_held
    else:  # an inductive fit sees the labelled points only and maps every other one the same way
        split = fit_split(replace(request, X=X, y=y, mask=train, **UNSCALED))
        Z = split.embedding()
    transductive = held_accuracy = None
    if labeled.any():
        Z_ref, y_ref = Z[labeled], y[labeled]
        held_accuracy = classifier_accuracy(Z_ref, y_ref, Z[held], y[held], classifier)
        seen = fitted & ~labeled
        if seen.any():
            transductive = classifier_accuracy(Z_ref, y_ref, Z[seen], y[seen], classifier)
    return HeldOutFit(
        estimator=split.estimator,
        held_out=held,
        labeled=labeled,
        embedding=Z,
        classifier=str(classifier),
        transductive_accuracy=transductive,
        held_out_accuracy=held_accuracy,
        scaler=scaler,
    )


@dataclass(frozen=True)
class NewPoints:
    """New points placed by a fitted estimator, with their nearest reference points.

    Parameters
    ----------
    coordinates : ndarray of shape (q, m)
        The new points' coordinates (`estimator.transform`).
    embedding_neighbours, embedding_distances : ndarray of shape (q, k)
        Indices (rows of the reference) and distances of each new point's k nearest reference
        points in the embedding: under the learned metric.
    input_neighbours, input_distances : ndarray of shape (q, k)
        The same in the input space, Euclidean (the baseline).

    See Also
    --------
    map_new_points : Place new points and find their neighbours.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import NCA
    >>> from metriclab.evaluation import map_new_points
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (20, 3)), rng.normal(4, 1, (20, 3))]
    >>> model = NCA(n_components=2, random_state=0).fit(X, np.repeat([0, 1], 20))
    >>> new = map_new_points(model, [[4.0, 4.0, 4.0], [0.0, 0.0, 0.0]], X, n_neighbors=3)
    >>> new.coordinates.shape, new.embedding_neighbours.shape, new.input_distances.shape
    ((2, 2), (2, 3), (2, 3))
    """

    coordinates: np.ndarray
    embedding_neighbours: np.ndarray
    embedding_distances: np.ndarray
    input_neighbours: np.ndarray
    input_distances: np.ndarray


def map_new_points(
    estimator, X_new, X_reference, *, Z_reference=None, n_neighbors: int = N_NEW_NEIGHBOURS
) -> NewPoints:
    """Coordinates of new points and their nearest neighbours under the learned metric and in the
    input.

    Parameters
    ----------
    estimator : fitted estimator with `transform`
        Its out-of-sample map places the new points.
    X_new : array-like of shape (q, d)
        The new points, in the features the estimator was fitted on (scaled as it was:
        `HeldOutFit.scale`).
    X_reference : array-like of shape (n, d)
        The reference points (e.g. those the estimator was fitted on), same features.
    Z_reference : array-like of shape (n, m), optional
        Their coordinates; default `estimator.transform(X_reference)`. Give the fitted
        `embedding_` of a transductive method to list neighbours in the embedding it shows.
    n_neighbors : int
        Neighbours listed per new point (5).

    Returns
    -------
    NewPoints
        The new points' coordinates and their nearest reference points.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab import NCA
    >>> from metriclab.evaluation.held_out import map_new_points
    >>> rng = np.random.default_rng(0)
    >>> X = np.r_[rng.normal(0, 1, (20, 3)), rng.normal(4, 1, (20, 3))]
    >>> y = np.repeat([0, 1], 20)
    >>> model = NCA(n_components=2, random_state=0).fit(X, y)
    >>> new = map_new_points(model, [[4.0, 4.0, 4.0]], X)
    >>> bool(np.all(new.embedding_neighbours >= 20))  # its neighbours are of class 1
    True
    """
    if not hasattr(estimator, "transform"):
        raise NoOutOfSampleMap(
            f"{type(estimator).__name__} has no transform: it cannot place new points"
        )
    X_new = np.atleast_2d(np.asarray(X_new, dtype=np.float64))
    X_reference = np.asarray(X_reference, dtype=np.float64)
    if X_new.shape[1] != X_reference.shape[1]:
        raise ValueError(
            f"the new points have {X_new.shape[1]} features, the reference points "
            f"{X_reference.shape[1]}"
        )
    n = X_reference.shape[0]
    if isinstance(n_neighbors, bool) or int(n_neighbors) != n_neighbors or not 1 <= n_neighbors:
        raise ValueError(f"n_neighbors must be a whole number >= 1, got {n_neighbors!r}")
    k = min(int(n_neighbors), n)
    Z_new = np.asarray(estimator.transform(X_new), dtype=np.float64)
    if Z_reference is None:
        Z_reference = estimator.transform(X_reference)
    Z_reference = np.asarray(Z_reference, dtype=np.float64)
    if Z_new.ndim == 1:
        Z_new, Z_reference = Z_new[:, None], Z_reference.reshape(n, -1)
    if Z_reference.shape[0] != n:
        raise ValueError(f"Z_reference must hold the {n} reference points, got {Z_reference.shape}")
    d_embedding, i_embedding = NearestNeighbors(n_neighbors=k).fit(Z_reference).kneighbors(Z_new)
    d_input, i_input = NearestNeighbors(n_neighbors=k).fit(X_reference).kneighbors(X_new)
    return NewPoints(Z_new, i_embedding, d_embedding, i_input, d_input)
