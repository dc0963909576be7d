"""Chatpatanasiri et al. (2009): measured causes of two differences from the paper (issue 29).

- ``kpca-lmnn-cap``   Table 2: our KLMNN (cross-validated Gaussian width) is below LMNN on breast
  cancer, glass, pima and yeast (4 / 1 / 4 over the nine sets at the paper's precision, the paper
9 / 0 / 0) [claim kpca-table2: no], and it keeps
  only the 100 leading kernel-PCA directions (of 199 with 200 training points) for speed. Is the
  cap the cause? The same protocol on those four sets with the cap at 100, 200 and none (every
  non-null direction).
- ``kpca-curves-kdne`` Figure 2: KDNE with the 2nd-order polynomial kernel separates the curves
  in 1-D on 59 / 82 / 59 % where KNCA reaches 100 %. Which is the cause: the output dimension, the
  scaling (of the inputs, or of the kernel-PCA coordinates DNE works on), or the neighbour sets
  (kernel-PCA space or input space)? Each changed alone, on the same curves and splits.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd

from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, splits
from metriclab.methods.kpca_trick import KernelPCATrick
from metriclab.methods.mahalanobis import DNE
from metriclab.preprocess import scale_train_test
from metriclab.reproduce import RESULT_COLUMNS, SPLITS_COLUMN, Experiment, split_row
from metriclab.reproduce.kpca_trick import (
    CURVE_POINTS,
    CURVES,
    DATA,
    FAST,
    FULL,
    N_TRAIN,
    PAPER,
    TABLES,
    split_scores,
)

LOSING_SETS = ("Breast Cancer", "Glass", "Pima", "Yeast")  # KLMNN below LMNN in our Table 2
CAPS = (100, 200, None)  # kernel-PCA directions given to LMNN (None: every non-null one)
CAP_SPLITS = 10  # all directions make KLMNN ~10x slower: 10 splits (paper 40) keep it < 1.5 h


def _cap_name(cap) -> str:
    return "all non-null directions" if cap is None else f"{cap} leading directions"


def run_lmnn_cap(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    # fast: the smallest losing set and two of the caps (rows the full table also has)
    rows = ("Glass",) if fast else LOSING_SETS
    caps = (100, None) if fast else CAPS
    base = replace(
        FAST if fast else FULL, rows=rows, n_splits=n_splits or (2 if fast else CAP_SPLITS)
    )
    scores: dict[tuple, list[float]] = {}
    tasks = [
        (row, index, mask, split_seed)
        for row in rows
        for index, (split_seed, mask) in enumerate(
            splits(load(DATA[row]).y, base.n_splits, n_train=N_TRAIN[row], seed=seed)
        )
    ]
    done, total = 0, len(tasks) * len(caps)
    for row, index, mask, split_seed in tasks:
        ds = load(DATA[row])
        for position, cap in enumerate(caps):
            variants = ("linear", "cv") if position == 0 else ("cv",)  # LMNN has no cap
            settings = replace(base, kpca_components=cap)
            out = split_scores(ds.X, ds.y, mask, ("lmnn",), variants, split_seed, settings)
            if position == 0:
                scores.setdefault((row, "LMNN"), []).append(out["lmnn", "linear"])
            scores.setdefault((row, cap), []).append(out["lmnn", "cv"])
            done += 1
            if progress is not None:
                progress(done, total, f"{row}, split {index + 1}, {_cap_name(cap)}")
    protocol = (
        f"Table 2's protocol (z-scored, {N_TRAIN[rows[0]]} training points (Glass: 100), "
        f"width by {base.cv_folds}-fold CV over σ in {list(base.cv_sigmas)}); "
        f"{base.n_splits} splits (paper 40: every direction makes KLMNN ~10x slower)"
    )
    records = []
    for row in rows:
        paper_linear, paper_cv = TABLES["lmnn"][row][0][0], TABLES["lmnn"][row][1][0]
        lmnn = np.array(scores[row, "LMNN"])
        records.append(split_row(row, "LMNN", "1-NN accuracy", paper_linear, lmnn, protocol, ""))
        for cap in caps:
            values = np.array(scores[row, cap])
            gap = values.mean() - lmnn.mean()
            records.append(
                split_row(
                    row,
                    f"KLMNN, {_cap_name(cap)}",
                    "1-NN accuracy",
                    paper_cv,
                    values,
                    protocol,
                    f"KLMNN − LMNN {gap:+.3f} on the same splits",
                )  # fmt: skip
            )
    return pd.DataFrame.from_records(records, columns=[*RESULT_COLUMNS, SPLITS_COLUMN])


# ---- KDNE on the curves ---------------------------------------------------------------------------

KDNE_VARIANTS = (
    ("KDNE 1-D, as in Figure 2", {}),
    ("neighbours in the input space", {"neighbor_space": "input"}),
    ("inputs z-scored", {"scale": True}),
    ("k = 10 neighbours", {"k": 10}),
    ("2-D instead of 1-D", {"n_components": 2}),
    ("kernel-PCA coordinates whitened, 1-D", {"whiten": True}),
)


def kdne_accuracy(X_train, y_train, X_test, y_test, variant: dict) -> float:
    """1-NN test accuracy of KDNE with the polynomial kernel (x'y + 1)², changed by `variant`."""
    variant = dict(variant)
    if variant.pop("scale", False):
        X_train, X_test = scale_train_test("standardise", X_train, X_test)
    whiten = variant.pop("whiten", False)
    n_components = variant.pop("n_components", 1)
    model = KernelPCATrick(
        learner="dne", kernel="polynomial", degree=2, coef0=1.0, n_components=n_components,
        **variant,
    ).fit(X_train, y_train)  # fmt: skip
    if not whiten:
        return knn_accuracy(model.transform(X_train), y_train, model.transform(X_test), y_test)
    # DNE on kernel-PCA coordinates scaled to unit variance: its eigenproblem is not invariant to
    # the √eigenvalue scales the trick's coordinates carry (Eq. 9)
    Z_train, Z_test = model.kpca_transform(X_train), model.kpca_transform(X_test)
    spread = Z_train.std(axis=0)
    spread[spread == 0] = 1.0
    dne = DNE(n_components=n_components, k=3).fit(Z_train / spread, y_train)
    return knn_accuracy(
        dne.transform(Z_train / spread), y_train, dne.transform(Z_test / spread), y_test
    )


def run_curves_kdne(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    n_splits = n_splits or (2 if fast else 10)
    variants = KDNE_VARIANTS[::5] if fast else KDNE_VARIANTS
    scores = {(shape, label): [] for shape in CURVES for label, _ in variants}
    done, total = 0, len(CURVES) * n_splits
    for shape in CURVES:
        for index in range(n_splits):
            ds = load(f"curves_{shape}", n_samples=CURVE_POINTS, seed=seed + index)
            _, mask = splits(ds.y, 1, fraction=0.5, seed=seed + index)[0]
            for label, variant in variants:
                scores[shape, label].append(
                    kdne_accuracy(ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask], variant)
                )
            done += 1
            if progress is not None:
                progress(done, total, f"{shape}, seed {index + 1}")
    protocol = (
        f"the kpca-curves protocol: {CURVE_POINTS} points, half labelled, fresh curves per seed; "
        "KDNE with (x'y + 1)², k = 3, 1-D, 1-NN; one setting changed per row"
    )
    return pd.DataFrame.from_records(
        [
            split_row(
                f"curves_{shape}",
                label,
                "1-NN accuracy",
                math.nan,
                scores[shape, label],
                protocol,
                "Figure 2 shows pictures only: the claim is that KDNE succeeds",
            )  # fmt: skip
            for shape in CURVES
            for label, _ in variants
        ],
        columns=[*RESULT_COLUMNS, SPLITS_COLUMN],
    )


EXPERIMENTS = [
    Experiment(
        "kpca-lmnn-cap",
        "Table 2: is the cap on kernel-PCA directions why KLMNN loses to LMNN on four sets?",
        PAPER,
        run_lmnn_cap,
        "KLMNN with 100, 200 and all kernel-PCA directions beside LMNN, on breast cancer, glass, "
        "pima and yeast, the sets where our KLMNN loses.",
    ),
    Experiment(
        "kpca-curves-kdne",
        "Figure 2: why KDNE with the polynomial kernel fails on the curves",
        PAPER,
        run_curves_kdne,
        "One setting changed at a time: neighbour space, input scaling, k, output dimension, "
        "whitened kernel-PCA coordinates.",
    ),
]
