"""Mody (2009): the causes and choices behind Table 4.1, measured (issues 29.5 and 32).

Table 4.1: why our LMNN on point-to-point vectors is worse than the Euclidean
distance on USPS (3.54 against 3.24 % test error; the thesis: 5.58 against 5.63), issue 29.5.

``tangent-usps-lmnn``: the thesis states only that LMNN starts from the identity (full rank, no
PCA) and that 1-NN classifies; k, μ and the iterations are not given (Weinberger's code defaults
are k = 3, μ = 0.5). Two candidate causes, each measured:

- our settings: LMNN over a grid of target neighbours k and L-BFGS iterations (μ = 0.5, identity
  start), every cell's test error beside the Euclidean one, and the cell a validation fifth of the
  training images picks (never the test images);
- our split (writers mixed between train and test, where the original split keeps them apart):
  the original 7291 / 2007 division is not available (sample_data/PROVENANCE.md), so the
  reversal is tested on further seeded stratified splits of the same size.

``tangent-usps-choices``: the thesis' stated choices, each changed alone on the shipped split:
k = 1 ("we found k = 1 to work the best", section 2.1), the 100-image Euclidean pre-filter ("rarely
affected classification accuracy", section 4.1) against 500 and every training image, and line
thickness ("no effect on performance", section 2.2.3).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier

from metriclab.methods.tangent import DEFAULT_SIGMA, TangentDistanceKNN, TangentMetricKNN
from metriclab.reproduce import RESULT_COLUMNS, SPLITS_COLUMN, Experiment
from metriclab.reproduce.tangent import METRIC, PAPER, SPLIT_NOTE, TABLE_TEST, _usps, wrong
from metriclab.reproduce.tangent import _row as tangent_row

GRID_K = (1, 3)
GRID_ITER = (25, 100, 400)
EXTRA_SPLITS = 3  # seeded stratified 7291 / 2007 splits beside the shipped one


def lmnn_error(shape, X_train, y_train, X_test, y_test, k: int, max_iter: int) -> np.ndarray:
    """Per test image, the error of 1-NN under LMNN learned on point-to-point vectors (the solver
    of the tangent-usps table, identity start)."""
    model = TangentMetricKNN(shape, "none", metric="lmnn", k=k, max_iter=max_iter)
    return wrong(model.fit(X_train, y_train), X_test, y_test)


def euclidean_error(X_train, y_train, X_test, y_test) -> np.ndarray:
    return wrong(KNeighborsClassifier(n_neighbors=1).fit(X_train, y_train), X_test, y_test)


def _row(setting, method, error, paper, protocol, note, metric=METRIC) -> dict:
    """`error`: per-image errors of one split (an array of 0/1), or one error rate per split (a
    list of floats)."""
    if isinstance(error, np.ndarray):  # one split, image by image
        row = tangent_row(setting, method, error, paper, protocol, note)
        return {**row, "metric": metric}
    errors = 100.0 * np.asarray(error, dtype=float)
    return {
        "setting": setting,
        "method": method,
        "metric": metric,
        "paper": np.nan if paper is None else paper,
        "ours_mean": float(errors.mean()),
        "ours_std": float(errors.std(ddof=1)) if errors.size > 1 else np.nan,
        "n_splits": int(errors.size),
        SPLITS_COLUMN: errors.tolist(),
        "protocol": protocol,
        "note": note,
    }


def run_lmnn_causes(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    X, y, shape, train, test = _usps(fast, seed)
    grid = [(k, it) for k in GRID_K for it in (GRID_ITER[:1] if fast else GRID_ITER)]  # full's rows
    n_extra = 1 if fast else (n_splits or EXTRA_SPLITS)
    steps, done = len(grid) * 2 + 2 + n_extra, 0

    def tick(message):
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, steps, message)

    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    protocol = (
        f"USPS in [-1, 1], {len(train)} train / {len(test)} test"
        + (" (a random subsample; fast mode)" if fast else "")
        + "; LMNN on point-to-point vectors, μ = 0.5, identity start; 1-NN"
    )
    rows = [_row("USPS test, the shipped split", "Euclidean", euclidean_error(Xtr, ytr, Xte, yte),
                 TABLE_TEST["Euclidean"], protocol, SPLIT_NOTE)]  # fmt: skip
    tick("Euclidean")
    for k, it in grid:
        error = lmnn_error(shape, Xtr, ytr, Xte, yte, k, it)
        rows.append(_row("USPS test, the shipped split", f"LMNN, k = {k}, {it} iterations", error,
                         TABLE_TEST["LMNN"], protocol, SPLIT_NOTE))  # fmt: skip
        tick(f"LMNN k={k}, {it} iterations")
    # the setting a validation fifth of the training images picks (test images unseen)
    fit, val = train_test_split(np.arange(len(ytr)), test_size=0.2, stratify=ytr, random_state=seed)
    val_errors = {}
    for k, it in grid:
        val_errors[k, it] = lmnn_error(shape, Xtr[fit], ytr[fit], Xtr[val], ytr[val], k, it)
        tick(f"validation: k={k}, {it} iterations")
    val_euclid = euclidean_error(Xtr[fit], ytr[fit], Xtr[val], ytr[val])
    k, it = min(val_errors, key=lambda c: (val_errors[c].mean(), c[1], c[0]))
    listed = ", ".join(f"k={a}/{b}: {100 * e.mean():.2f}%" for (a, b), e in val_errors.items())
    rows.append(
        _row(
            "USPS test, the shipped split",
            "LMNN, setting chosen on validation",
            lmnn_error(shape, Xtr, ytr, Xte, yte, k, it),
            TABLE_TEST["LMNN"],
            protocol,
            f"k = {k}, {it} iterations chosen on a validation fifth of the training images "
            f"(validation errors {listed}; Euclidean {100 * val_euclid.mean():.2f}%); {SPLIT_NOTE}",
        )  # fmt: skip
    )
    tick("the chosen setting")
    # other random splits of the same size: does the reversal hold on each?
    euclid, lmnn = [], []
    extra_iter = 100  # the full table's row (fast: on 500 training images)
    for index in range(n_extra):
        tr, te = train_test_split(
            np.arange(len(y)), test_size=len(test), stratify=y, random_state=seed + 100 + index
        )
        if fast:
            tr, te = tr[:500], te[:200]
        euclid.append(float(euclidean_error(X[tr], y[tr], X[te], y[te]).mean()))
        lmnn.append(float(lmnn_error(shape, X[tr], y[tr], X[te], y[te], 3, extra_iter).mean()))
        tick(f"split {index + 1}")
    note = (
        f"{n_extra} further seeded stratified splits of the same sizes; LMNN worse than Euclidean "
        f"on {sum(b > a for a, b in zip(euclid, lmnn, strict=True))} of {n_extra}"
    )
    rows.append(_row("USPS test, other random splits", "Euclidean", euclid,
                     TABLE_TEST["Euclidean"], protocol, note))  # fmt: skip
    rows.append(_row("USPS test, other random splits", f"LMNN, k = 3, {extra_iter} iterations", lmnn,
                     TABLE_TEST["LMNN"], protocol, note))  # fmt: skip
    return pd.DataFrame(rows, columns=[*RESULT_COLUMNS, SPLITS_COLUMN])


# ---- the thesis' other choices: k = 1, the pre-filter, thickness ------------------------------

CHOICE_K = (1, 3, 5)
CHOICE_PREFILTERS = (100, 500, None)  # None: every training image (no pre-filter)


def tangent_error(shape, X_train, y_train, X_test, y_test, **params) -> np.ndarray:
    model = TangentDistanceKNN(shape, **{"transforms": "affine6", "sigma": DEFAULT_SIGMA, **params})
    return wrong(model.fit(X_train, y_train), X_test, y_test)


def run_choices(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    """Section 2.1 "we found k = 1 to work the best"; section 4.1 the 100-image Euclidean
    pre-filter "rarely affected classification accuracy"; section 2.2.3 line thickness "has no
    effect on performance". Each measured on the shipped split, one setting changed at a time."""
    X, y, shape, train, test = _usps(fast, seed)
    Xtr, ytr, Xte, yte = X[train], y[train], X[test], y[test]
    n_train = len(train)
    steps, done = len(CHOICE_K) * 2 + len(CHOICE_PREFILTERS) + 1, 0
    protocol = (
        f"USPS in [-1, 1], {n_train} train / {len(test)} test"
        + (" (a random subsample; fast mode)" if fast else "")
        + f"; two-sided tangent distance, six transformations, σ = {DEFAULT_SIGMA} (tangent-usps' "
        "choice), 100 Euclidean pre-filter, 1-NN, unless the row says otherwise"
    )
    rows = []

    def add(setting, method, error, paper=None, note=SPLIT_NOTE):
        nonlocal done
        rows.append(_row(setting, method, error, paper, protocol, note, "k-NN error %"))
        done += 1
        if progress is not None:
            progress(done, steps, f"{setting}: {method}")

    for k in CHOICE_K:
        euclid = KNeighborsClassifier(n_neighbors=k).fit(Xtr, ytr)
        add("k nearest neighbours", f"Euclidean, k = {k}", wrong(euclid, Xte, yte),
            TABLE_TEST["Euclidean"] if k == 1 else None)  # fmt: skip
        add("k nearest neighbours", f"tangent distance, k = {k}",
            tangent_error(shape, Xtr, ytr, Xte, yte, n_neighbors=k),
            TABLE_TEST["tangent distance"] if k == 1 else None)  # fmt: skip
    for prefilter in CHOICE_PREFILTERS:
        size = n_train if prefilter is None else prefilter
        name = "every training image" if prefilter is None else f"{prefilter} Euclidean nearest"
        add("pre-filter", f"tangent distance, {name}",
            tangent_error(shape, Xtr, ytr, Xte, yte, prefilter=size),
            TABLE_TEST["tangent distance"] if prefilter == 100 else None)  # fmt: skip
    add("transformations", "tangent distance, six + line thickness",
        tangent_error(shape, Xtr, ytr, Xte, yte, transforms="all7"))  # fmt: skip
    return pd.DataFrame(rows, columns=[*RESULT_COLUMNS, SPLITS_COLUMN])


EXPERIMENTS = [
    Experiment(
        "tangent-usps-lmnn",
        "Table 4.1: why LMNN on raw pixels loses to Euclidean here (settings or split?)",
        PAPER,
        run_lmnn_causes,
        "LMNN over target neighbours and iterations, the setting a validation fifth picks, and "
        "the comparison on further random splits.",
    ),
    Experiment(
        "tangent-usps-choices",
        "The thesis' choices measured: k = 1, the 100-image pre-filter, line thickness",
        PAPER,
        run_choices,
        "Euclidean and tangent-distance k-NN for k = 1, 3, 5; the pre-filter at 100, 500 and every "
        "training image; six transformations against six plus line thickness.",
    ),
]
