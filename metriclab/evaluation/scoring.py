"""Classifiers in an embedding, scored on the held-out points: k-NN (1-NN: the papers' rule) and
the nearest class mean, and the names `compare` accepts for them ('1nn', 'knn:K', 'nearest_mean')."""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from sklearn.neighbors import NearestNeighbors

from metriclab._docstrings import fill_doc
from metriclab.array_module import resolve_device
from metriclab.graphs import brute_force_neighbors

STORED_MIN_WORK = 1e10  # n_train · n_test · dimensions above which a score is kept on disk
GPU_MIN_WORK = 1e9  # device="auto": the GPU from this much work on (a small set stays on the CPU)
KD_TREE_MAX_DIMENSIONS = 10  # SciPy's kd-tree up to this many dimensions (scikit-learn's above)
PARALLEL_MIN_QUERIES = 2_000  # the kd-tree's queries on every core from this many on


@fill_doc
def knn_accuracy(
    Z_train: np.ndarray,
    y_train: np.ndarray,
    Z_test: np.ndarray,
    y_test: np.ndarray,
    k: int = 1,
    device: str = "auto",
) -> float:
    """Score the k-NN rule (k=1: the papers' 1-NN) with the training points as reference.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, n_components)
        The reference points (in an embedding, or the input space).
    %(classified_points)s
    k : int, default=1
        Neighbours that vote (at most the number of reference points).
    device : {"auto", "cpu", "gpu"}, default="auto"
        Where the neighbour search runs: "gpu" is the exact brute force on the GPU
        (``pip install "metric-learning-lab[gpu]"``); "auto" takes the GPU where one is usable
        and the work (n_train · n_test · dimensions) is at least GPU_MIN_WORK. On the CPU:
        SciPy's kd-tree in up to KD_TREE_MAX_DIMENSIONS dimensions, scikit-learn's search above
        (`nearest_references`).

    Returns
    -------
    float
        The share of test points classified correctly, in [0, 1].

    See Also
    --------
    embedding_accuracy : The same on one embedding and a split mask.
    nearest_mean_accuracy : The nearest class mean rule.

    Notes
    -----
    A large one (the Euclidean baseline of all 70,000 MNIST digits: 8 s) is computed once per
    machine and kept in `metriclab.graph_store`'s folder, keyed by the arrays' content.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import knn_accuracy
    >>> Z = np.array([[0.0], [1.0], [10.0], [11.0]])
    >>> knn_accuracy(Z[[0, 2]], [0, 1], Z[[1, 3]], [0, 1])
    1.0
    """
    k = min(k, len(y_train))
    work = float(len(y_train)) * len(y_test) * (Z_train.shape[1] if np.ndim(Z_train) > 1 else 1)
    on_gpu = resolve_device(device) == "gpu" and (device == "gpu" or work >= GPU_MIN_WORK)
    if work >= STORED_MIN_WORK:
        from metriclab.graph_store import stored_score

        def compute() -> float:
            return _knn_accuracy(Z_train, y_train, Z_test, y_test, k, on_gpu)

        return stored_score("knn-accuracy", (Z_train, y_train, Z_test, y_test), {"k": k}, compute)
    return _knn_accuracy(Z_train, y_train, Z_test, y_test, k, on_gpu)


def _knn_accuracy(Z_train, y_train, Z_test, y_test, k: int, on_gpu: bool = False) -> float:
    predicted = knn_predictions(Z_train, y_train, Z_test, k, on_gpu)
    return float(np.mean(predicted == np.asarray(y_test)))


def knn_predictions(Z_train, y_train, Z_test, k: int = 1, on_gpu: bool = False) -> np.ndarray:
    """The k-NN rule's class for each test point (ties of the vote: the smaller class, as
    scikit-learn's KNeighborsClassifier): the predictions `knn_accuracy` scores, for a page that
    shows which points are wrong."""
    y_train = np.asarray(y_train)
    return _vote(nearest_references(Z_train, Z_test, min(k, len(y_train)), on_gpu), y_train)


def nearest_references(Z_train, Z_test, k: int = 1, on_gpu: bool = False) -> np.ndarray:
    """Indices (n_test, k) of each test point's k nearest reference points, nearest first: the one
    search behind the k-NN rule's score, its predictions and its shuffled-label baseline (so that
    they agree where distances tie). The exact brute force on the GPU with `on_gpu`; SciPy's
    kd-tree in at most KD_TREE_MAX_DIMENSIONS dimensions; scikit-learn's search above."""
    Z_train, Z_test = np.asarray(Z_train), np.asarray(Z_test)
    n_train, n_test = Z_train.shape[0], Z_test.shape[0]
    dimensions = Z_train.shape[1] if Z_train.ndim > 1 else 1
    if on_gpu:
        Z_train = np.asarray(Z_train, dtype=np.float64).reshape(n_train, -1)
        Z_test = np.asarray(Z_test, dtype=np.float64).reshape(n_test, -1)
        return brute_force_neighbors(Z_train, k, query=Z_test, device="gpu")[1]
    searchable = n_train > 0 and n_test > 0 and _finite(Z_train) and _finite(Z_test)
    if dimensions <= KD_TREE_MAX_DIMENSIONS and searchable:  # (else scikit-learn's errors)
        # SciPy's kd-tree: 2-4x faster than scikit-learn's in few dimensions (bench/quality.py)
        tree = cKDTree(np.asarray(Z_train, dtype=np.float64).reshape(n_train, -1))
        query = np.asarray(Z_test, dtype=np.float64).reshape(n_test, -1)
        workers = -1 if n_test >= PARALLEL_MIN_QUERIES else 1
        return tree.query(query, k=[*range(1, k + 1)], workers=workers)[1]
    search = NearestNeighbors(n_neighbors=k).fit(Z_train)
    return search.kneighbors(Z_test, return_distance=False)


def _finite(Z: np.ndarray) -> bool:
    return np.issubdtype(Z.dtype, np.number) and bool(np.isfinite(Z).all())


def _vote(nearest: np.ndarray, y_train: np.ndarray) -> np.ndarray:
    """The class most of each row's reference points (`nearest`'s columns) have; ties: the
    smaller class."""
    classes, codes = np.unique(y_train, return_inverse=True)
    if nearest.shape[1] == 1:
        return classes[codes[nearest[:, 0]]]
    votes = np.zeros((nearest.shape[0], classes.size))
    np.add.at(votes, (np.arange(nearest.shape[0])[:, None], codes[nearest]), 1.0)
    return classes[votes.argmax(axis=1)]


@fill_doc
def nearest_mean_accuracy(
    Z_train: np.ndarray, y_train: np.ndarray, Z_test: np.ndarray, y_test: np.ndarray
) -> float:
    """Score the nearest-class-mean rule in an embedding.

    Parameters
    ----------
    Z_train : array-like of shape (n_train, n_components)
        The reference points, whose class means are the prototypes.
    %(classified_points)s

    Returns
    -------
    float
        The share of test points whose nearest class mean is their class's.

    See Also
    --------
    knn_accuracy : The k-NN rule.

    Examples
    --------
    >>> import numpy as np
    >>> from metriclab.evaluation import nearest_mean_accuracy
    >>> Z = np.array([[0.0], [2.0], [10.0], [12.0]])
    >>> nearest_mean_accuracy(Z, np.array([0, 0, 1, 1]), np.array([[4.0], [9.0]]), np.array([0, 0]))
    0.5
    """
    classes = np.unique(y_train)
    means = np.stack([Z_train[y_train == c].mean(axis=0) for c in classes])
    d2 = ((Z_test[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)
    return float(np.mean(classes[np.argmin(d2, axis=1)] == y_test))


def embedding_accuracy(Z: np.ndarray, y: np.ndarray, mask: np.ndarray, k: int = 1) -> float:
    """Score an embedding: 1-NN (k-NN) accuracy on the unlabelled points.

    The labelled points are the reference: the papers' measure of a learned embedding.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_components)
        The embedding of all points (``embedding_``, or ``transform(X)``).
    y : array-like of shape (n_samples,)
        The true classes of all points.
    mask : array-like of bool of shape (n_samples,)
        True for the labelled points (:func:`labeled_mask`).
    k : int, default=1
        Neighbours that vote.

    Returns
    -------
    float
        The share of unlabelled points classified correctly, in [0, 1].

    See Also
    --------
    knn_accuracy : The same with explicit reference and test points.
    metriclab.plotting.comparison : Accuracies of several methods over splits.

    Examples
    --------
    >>> from metriclab.datasets import load
    >>> from metriclab.evaluation import embedding_accuracy, labeled_mask
    >>> iris = load("iris")
    >>> mask = labeled_mask(iris.y, per_class=5, seed=0)
    >>> accuracy = embedding_accuracy(iris.X, iris.y, mask)  # the input space as the embedding
    >>> 0.8 <= accuracy <= 1.0
    True
    """
    return knn_accuracy(Z[mask], y[mask], Z[~mask], y[~mask], k=k)


def parse_classifier(classifier: str) -> tuple[str, int]:
    """'1nn' -> ('knn', 1); 'knn:5' -> ('knn', 5); 'knn' -> ('knn', 5); 'nearest_mean'."""
    text = str(classifier).strip().lower().replace("-", "_")
    if text in ("1nn", "1_nn", "nn"):
        return "knn", 1
    if text == "knn":
        return "knn", 5
    if text.startswith("knn:") or text.startswith("knn="):
        try:
            k = int(text[4:])
        except ValueError:
            k = 0
        if k < 1:
            raise ValueError(
                f"classifier {classifier!r}: k must be a whole number >= 1, e.g. 'knn:5'"
            )
        return "knn", k
    if text in ("nearest_mean", "nm", "nearest_class_mean"):
        return "nearest_mean", 0
    raise ValueError(
        f"unknown classifier {classifier!r}; use '1nn', 'knn:K' (e.g. 'knn:5') or 'nearest_mean'"
    )


def classifier_accuracy(Z_train, y_train, Z_test, y_test, classifier: str = "1nn") -> float:
    """Accuracy of the named classifier in an embedding (training points as the reference)."""
    rule, k = parse_classifier(classifier)
    Z_train, Z_test = np.asarray(Z_train, dtype=float), np.asarray(Z_test, dtype=float)
    if Z_train.ndim == 1:
        Z_train, Z_test = Z_train[:, None], Z_test[:, None]
    if not (np.all(np.isfinite(Z_train)) and np.all(np.isfinite(Z_test))):
        raise ValueError("the embedding contains NaN or infinite values; cannot classify")
    if rule == "nearest_mean":
        return nearest_mean_accuracy(Z_train, y_train, Z_test, y_test)
    return knn_accuracy(Z_train, y_train, Z_test, y_test, k=k)
