"""Feature scaling before a method sees the data: none, z-scores, or each feature in [0, 1].

Every paper here scales its data (TDL: features renormalised to [0, 1]; the KPCA trick: z-scores;
the tangent-distance thesis: pixel ranges), and on raw UCI features one large-valued column (wine's
proline, in the hundreds) decides every Euclidean distance. So the scaling is a visible choice,
carried by `CompareRequest(..., preprocess=...)`, the command line's `--preprocess` and the app's pages.

Which points the scaler is fitted on (`scaler_fit_rows`): the labelled/training points, so under
the inductive protocol a test point never reaches the scaler's `fit`, and the Euclidean baseline is
scaled exactly like the learner beside it. The exception is a transductive method (TDL, Laplacian
Eigenmaps) run transductively: it is fitted on every point's features and builds its neighbourhood
graph from them, and its scaler sees the same points. That uses no label (the mean, standard
deviation or range of the features is as unsupervised as the graph itself), it is what the TDL
paper does (all points renormalised to [0, 1]), and a [0, 1] range estimated from the 10 % labelled
points alone would put most points outside [0, 1].

Kernel and graph widths are in the scaled units: the method is fitted on the scaled features, so
an "auto" width (None) is computed from them.
"""

from __future__ import annotations

import numpy as np
from sklearn.preprocessing import MinMaxScaler, StandardScaler

# key -> what a person reads in the app and in the tables
PREPROCESS = {
    "none": "none (raw features)",
    "standardise": "standardise (z-score)",
    "minmax": "[0, 1] range",
}
# Other spellings accepted from the command line, the URL and Python.
ALIASES = {
    "raw": "none",
    "standardize": "standardise",
    "zscore": "standardise",
    "z-score": "standardise",
    "z_score": "standardise",
    "standard": "standardise",
    "range": "minmax",
    "min-max": "minmax",
    "min_max": "minmax",
    "[0,1]": "minmax",
    "[0, 1]": "minmax",
    "01": "minmax",
}
AUTO = "auto"  # the data set's own default (`metriclab.datasets.default_preprocess`)


def resolve_preprocess(preprocess, dataset=None) -> str:
    """The canonical key ('none', 'standardise' or 'minmax') of a preprocess choice.

    'auto' (or None) stands for the data set's default and needs `dataset` (a Dataset or a name).
    """
    text = AUTO if preprocess is None else str(preprocess).strip().lower()
    if text == AUTO:
        if dataset is None:
            raise ValueError("preprocess='auto' needs the data set it is the default of")
        from metriclab.datasets import default_preprocess

        return default_preprocess(dataset)
    key = ALIASES.get(text, text)
    if key not in PREPROCESS:
        raise ValueError(
            f"unknown preprocess {preprocess!r}; use 'auto', 'none', 'standardise' (z-score) "
            "or 'minmax' ([0, 1] range)"
        )
    return key


def make_scaler(preprocess: str):
    """An unfitted scikit-learn scaler for the choice, or None for 'none'.

    A constant column gets scale 1 in both scalers (scikit-learn's zero-scale handling), so it
    maps to 0 and never to NaN.
    """
    key = resolve_preprocess(preprocess)
    if key == "standardise":
        return StandardScaler()
    if key == "minmax":
        return MinMaxScaler(feature_range=(0.0, 1.0))
    return None


def scaler_fit_rows(spec, protocol: str, mask: np.ndarray) -> np.ndarray:
    """Rows the scaler is fitted on: the labelled/training rows, except for a transductive method
    under the transductive protocol, which is fitted on every row's features (its graph is built
    on them) and whose scaler sees the same rows; no label is used by either.

    So the Euclidean baseline, PCA and every label-using learner are scaled by one scaler fitted
    on the labelled points, whatever the protocol: the baseline beside a learner is scaled the
    same way, and a held-out point never reaches `fit` under the inductive protocol.
    """
    mask = np.asarray(mask, dtype=bool)
    if protocol == "transductive" and spec.transductive and spec.output != "classifier":
        return np.ones_like(mask)
    return mask


def scale_features(preprocess: str, X: np.ndarray, fit_rows: np.ndarray | None = None):
    """X with every row mapped by a scaler fitted on the rows `fit_rows` (all rows when None)."""
    scaler = make_scaler(preprocess)
    X = np.asarray(X, dtype=np.float64)
    if scaler is None:
        return X
    fitted = scaler.fit(X if fit_rows is None else X[np.asarray(fit_rows, dtype=bool)])
    return np.asarray(fitted.transform(X), dtype=np.float64)


def scale_train_test(preprocess: str, X_train: np.ndarray, X_test: np.ndarray):
    """(X_train, X_test) mapped by a scaler fitted on X_train only."""
    scaler = make_scaler(preprocess)
    X_train = np.asarray(X_train, dtype=np.float64)
    X_test = np.asarray(X_test, dtype=np.float64)
    if scaler is None:
        return X_train, X_test
    scaler.fit(X_train)
    return np.asarray(scaler.transform(X_train)), np.asarray(scaler.transform(X_test))
