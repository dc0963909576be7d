"""`fit_split`: the one way to fit a method on a split under a protocol, used by `compare`, the
app's pages (`metriclab.ui.shared.compute`, the full-size path included) and the tests. It takes
one value, a `SplitRequest`.

It builds the estimator from its registry entry (the image shape added for image methods), scales
the features (`metriclab.preprocess.scaler_fit_rows` says on which rows the scaler is fitted),
fits it under the transductive or inductive protocol, and keeps the embedding of the labeled and
held-out points, or a classifier's predictions for the held-out points.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metriclab.evaluation.scoring import classifier_accuracy
from metriclab.evaluation.splitting import partial_labels
from metriclab.preprocess import scale_features, scaler_fit_rows


def resolve_protocol(spec, protocol: str) -> str:
    """'auto' -> the method's own protocol; otherwise 'transductive' or 'inductive'."""
    if protocol == "auto":
        return "transductive" if spec.transductive else "inductive"
    if protocol not in ("transductive", "inductive"):
        raise ValueError(
            f"protocol must be 'auto', 'transductive' or 'inductive', got {protocol!r}"
        )
    return protocol


def estimator_params(spec, params: dict, image_shape=None, data_name: str | None = None) -> dict:
    """Parameters for `spec.make`: `params`, with the data's image shape added for image methods."""
    kwargs = dict(params)
    if spec.input == "image":
        if image_shape is None:
            where = data_name or "this data set"
            raise ValueError(
                f"this method needs image data; {where} is not an image data set (choose usps, "
                "digits or mnist_5000, or a data set with image_shape)"
            )
        kwargs["image_shape"] = tuple(image_shape)
    return kwargs


@dataclass
class SplitFit:
    """One method fitted on one split: the fitted estimator and what it gives for the points.

    What :func:`fit_split` returns. Embedding methods fill `Z_train` and `Z_test` (the
    labeled/training and the held-out points); classifiers fill `predictions` (the predicted
    labels of the held-out points).

    Parameters
    ----------
    estimator : estimator
        The fitted estimator.
    protocol : str
        'transductive' or 'inductive', as resolved for the method.
    mask : ndarray of bool of shape (n,)
        True for the labelled/training points.
    y_train, y_test : ndarray of shape (n_train,) and (n_test,)
        The labels of the training and of the held-out points.
    fit_time_s : float
        Seconds to scale, build, fit and map (or predict); scoring and a graph hook's work are
        not included.
    Z_train, Z_test : ndarray or None
        The embedding of the training and of the held-out points (None for a classifier).
    predictions : ndarray or None
        A classifier's predicted labels of the held-out points (None for an embedding).

    See Also
    --------
    fit_split : Fit a method on a split.

    Examples
    --------
    Made by :func:`fit_split` (its example fits Laplacian Eigenmaps on iris); by hand, two
    training and two held-out points on a line:

    >>> import numpy as np
    >>> from metriclab.evaluation import SplitFit
    >>> fit = SplitFit(
    ...     estimator=None, protocol="inductive", mask=np.array([True, False, True, False]),
    ...     y_train=np.array([0, 1]), y_test=np.array([0, 1]), fit_time_s=0.0,
    ...     Z_train=np.array([[0.0], [1.0]]), Z_test=np.array([[0.2], [0.9]]),
    ... )
    >>> fit.embedding().ravel().tolist()
    [0.0, 0.2, 1.0, 0.9]
    >>> fit.accuracy("1nn")
    1.0
    """

    estimator: Any
    protocol: str
    mask: np.ndarray  # True = labeled / training point
    y_train: np.ndarray
    y_test: np.ndarray
    fit_time_s: float
    Z_train: np.ndarray | None = None
    Z_test: np.ndarray | None = None
    predictions: np.ndarray | None = None

    def embedding(self) -> np.ndarray | None:
        """The embedding of every point, in the data's order.

        Returns
        -------
        ndarray of shape (n, m) or None
            `Z_train` and `Z_test` put back in the rows of the data; None for a classifier.
        """
        if self.Z_train is None:
            return None
        Z_train, Z_test = np.asarray(self.Z_train), np.asarray(self.Z_test)
        Z = np.empty((self.mask.shape[0], *Z_train.shape[1:]), np.result_type(Z_train, Z_test))
        Z[self.mask], Z[~self.mask] = Z_train, Z_test
        return Z

    def accuracy(self, classifier: str = "1nn") -> float:
        """Accuracy on the held-out points.

        Parameters
        ----------
        classifier : str, default="1nn"
            '1nn', 'knn:K' or 'nearest_mean', in the embedding with the training points as
            reference; a classifier method's own predictions are scored instead.

        Returns
        -------
        float
            The share of held-out points classified right, in [0, 1].
        """
        if self.predictions is not None:
            return float(np.mean(self.predictions == self.y_test))
        return classifier_accuracy(self.Z_train, self.y_train, self.Z_test, self.y_test, classifier)


@dataclass(frozen=True, eq=False)
class SplitRequest:
    """One method with its parameters on one split of one data set, under a protocol and a feature
    scaling: everything `fit_split` needs, as one value (the app's `FitRequest` and `compare`'s
    jobs become one of these once their data are resolved).

    Parameters
    ----------
    spec : MethodSpec
        The method (``metriclab.methods.REGISTRY[key]``).
    X : ndarray of shape (n_samples, n_features)
        The raw features of every point.
    y : ndarray of shape (n_samples,)
        The classes of every point.
    mask : ndarray of bool of shape (n_samples,)
        True marks a labeled / training point.
    params : mapping, default={}
        The method's parameters (the spec's defaults for the others).
    protocol : {"auto", "transductive", "inductive"}, default="auto"
        "auto": the method's own.
    preprocess : str, default="none"
        The feature scaling (``metriclab.preprocess``).
    image_shape : tuple of int, optional
        For the image methods (a ValueError names `data_name` when there is none).
    data_name : str, optional
        The data set's name, for messages.

    See Also
    --------
    fit_split : Fits one of these.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import SplitRequest, labeled_mask
    >>> from metriclab.methods import REGISTRY
    >>> iris = load("iris")
    >>> request = SplitRequest.of(REGISTRY["le"], iris, labeled_mask(iris.y, fraction=0.2, seed=0))
    >>> request.data_name, int(request.mask.sum())
    ('iris', 30)
    """

    spec: Any
    X: np.ndarray
    y: np.ndarray
    mask: np.ndarray
    params: Mapping[str, Any] = field(default_factory=dict)
    protocol: str = "auto"
    preprocess: str = "none"
    image_shape: tuple[int, int] | None = None
    data_name: str | None = None

    @classmethod
    def of(cls, spec, data, mask, params: Mapping[str, Any] = (), **options) -> SplitRequest:
        """Make the request of a method on a split of a data set.

        Parameters
        ----------
        spec : MethodSpec
            The method.
        data : Dataset
            The data set: its features, labels, image shape and name are taken.
        mask : ndarray of bool of shape (n_samples,)
            True marks a labeled / training point.
        params : mapping, default=()
            The method's parameters.
        **options
            `protocol` and `preprocess`, as in `SplitRequest`.

        Returns
        -------
        SplitRequest
            The request.
        """
        return cls(
            spec,
            data.X,
            data.y,
            mask,
            dict(params),
            image_shape=data.image_shape,
            data_name=data.name,
            **options,
        )


def fit_split(
    request: SplitRequest,
    *,
    progress: Callable[[int, int, str], None] | None = None,
    configure: Callable[[Any], None] | None = None,
    graph: Callable[[Any, np.ndarray], Any] | None = None,
) -> SplitFit:
    """Fit a request's method on its split: the one way every caller fits a method on a split.

    `request.spec` is built with its parameters, fitted on the split (mask True = labeled) under
    the request's protocol and maps (or predicts) the points; every caller (the app, its
    full-size path, `compare`, the tests) goes through here.

    - transductive: a transductive method is fitted on all points with y = -1 on the held-out
      ones; an inductive one is fitted on the labeled points (or on all points when it needs no
      labels, like PCA) and maps all points.
    - inductive: the method never sees the held-out points; it is fitted on the training points
      and maps the test points with `transform` (a transductive method needs an out-of-sample
      map).

    A classifier is fitted on the labeled points and predicts the others, under either protocol.
    The features are first scaled by `request.preprocess` with a scaler fitted on the rows
    `metriclab.preprocess.scaler_fit_rows` names.

    Parameters
    ----------
    request : SplitRequest
        The method, its parameters, the data, the split, the protocol and the scaling.
    progress : callable, optional
        ``progress(done, total, message)`` hears a classifier's stages: the fit, then each block
        of predicted points when its `predict` reports them.
    configure : callable, optional
        ``configure(estimator)`` runs before the fit (e.g. ``set_params(record_iterates=True)``
        to watch a learner's iterations).
    graph : callable, optional
        ``graph(estimator, X)`` gives the neighbourhood graph a method tagged "graph" is fitted
        on (its ``fit(X, y, graph=...)``; the app's full-size path passes a graph it keeps per
        data set), X being the scaled features; only a transductive fit of such a method takes
        it. None of the hooks changes what is fitted.

    Returns
    -------
    SplitFit
        The fitted estimator, the embedding of the training and held-out points (or the
        predictions of a classifier) and the fit's time.

    See Also
    --------
    embedding_accuracy : The 1-NN accuracy of an embedding on a split.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import SplitRequest, fit_split, labeled_mask
    >>> from metriclab.methods import REGISTRY
    >>> iris = load("iris")
    >>> mask = labeled_mask(iris.y, fraction=0.2, seed=0)
    >>> fit = fit_split(SplitRequest.of(REGISTRY["le"], iris, mask, preprocess="standard"))
    >>> fit.embedding().shape
    (150, 2)
    """
    spec = request.spec
    mask = np.asarray(request.mask, dtype=bool)
    y = np.asarray(request.y)
    protocol = resolve_protocol(spec, request.protocol)
    if spec.needs_labels and np.unique(y[mask]).size < 2:
        # a learner fitted on one class learns nothing from the labels (scikit-learn's NCA
        # returns its start): a split like that is refused here, with the reason
        raise ValueError(
            f"{spec.label} needs labelled points of at least two classes; the labelled points "
            "of this split are all of one class"
        )
    if graph is not None and not (spec.has("graph") and spec.transductive):
        raise ValueError(f"{spec.label} is not fitted on a neighbourhood graph (tag 'graph')")
    if graph is not None and protocol != "transductive":
        raise ValueError("a given graph is for a transductive fit on every point")
    start = time.perf_counter()
    params = estimator_params(spec, request.params, request.image_shape, request.data_name)
    estimator = spec.make(**params)
    if configure is not None:
        configure(estimator)
    X = scale_features(request.preprocess, request.X, scaler_fit_rows(spec, protocol, mask))
    y_train = y[mask]
    out = {"estimator": estimator, "protocol": protocol, "mask": mask, "y_train": y_train}
    out["y_test"] = y[~mask]
    if spec.output == "classifier":
        X_train, X_test = X[mask], X[~mask]
        if progress is not None:
            progress(0, int(X_test.shape[0]), f"fitting on {int(mask.sum())} labeled points")
        if progress is not None and "progress" in inspect.signature(estimator.fit).parameters:
            estimator.fit(X_train, y_train, progress=progress)  # e.g. LMNN's iterations
        else:
            estimator.fit(X_train, y_train)
        if progress is not None and "progress" in inspect.signature(estimator.predict).parameters:
            predictions = estimator.predict(X_test, progress=progress)
        else:
            predictions = estimator.predict(X_test)
        elapsed = time.perf_counter() - start
        return SplitFit(**out, fit_time_s=elapsed, predictions=np.asarray(predictions))
    fit_graph, graph_time = None, 0.0
    if graph is not None:  # a graph kept elsewhere: its making is not this fit's time
        graph_start = time.perf_counter()
        fit_graph = {"graph": graph(estimator, X)}
        graph_time = time.perf_counter() - graph_start
    Z_train, Z_test = _embed_split(spec, estimator, X, (y, mask), protocol, fit_graph)
    elapsed = time.perf_counter() - start - graph_time
    return SplitFit(**out, fit_time_s=elapsed, Z_train=Z_train, Z_test=Z_test)


def _embed_split(
    spec, estimator, X, labels: tuple, protocol: str, graph: dict | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Fit an embedding method under `protocol` (see `fit_split`) on `labels` = (y, mask):
    (Z_train, Z_test); `graph` ({"graph": W}) is passed to a transductive fit on every point."""
    y, mask = labels
    sees_all = protocol == "transductive"  # the held-out points' features, never their labels
    if spec.transductive and sees_all:
        estimator.fit(X, partial_labels(y, mask), **(graph or {}))
        Z = np.asarray(estimator.embedding_)
        return Z[mask], Z[~mask]
    # the two parts are copies: made only where a fit needs them (on all of MNIST a copy of the
    # 70,000 × 784 features took 0.9 s, twice per fit, on every λ move)
    X_train, y_train, X_test = X[mask], y[mask], X[~mask]
    if spec.transductive:
        if not spec.out_of_sample:
            raise ValueError(
                f"{spec.label} has no out-of-sample map; use the transductive protocol"
            )
        estimator.fit(X_train, y_train)
        return np.asarray(estimator.embedding_), np.asarray(estimator.transform(X_test))
    if spec.needs_labels:
        estimator.fit(X_train, y_train)
    else:  # unsupervised (PCA): on every point the protocol shows it
        estimator.fit(X if sees_all else X_train)
    if sees_all:
        Z = np.asarray(estimator.transform(X))
        return Z[mask], Z[~mask]
    return np.asarray(estimator.transform(X_train)), np.asarray(estimator.transform(X_test))
