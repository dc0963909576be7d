"""Zhang (2003), "Learning metrics via discriminant kernels and multidimensional scaling": Section 5.

Experiments (each `run(fast, n_splits, seed, progress)` returns a DataFrame with RESULT_COLUMNS):

- ``zhang-rings``  Section 5.1 / Figure 3: two rings, 300 points, 20 labelled per ring, 10 RBF centres
  (5 per ring), delta1..delta4; the figure as numbers: NM / 1-NN accuracy of the 260 other points
  in the 2-D feature space, and whether the mapped points are Fisher separable.
- ``zhang-iris``   Section 5.2 / Figures 4-7: Iris, 10 labelled per class, 6 centres (2 per class),
  delta2 and delta4: accuracy of the 120 others, iterations of the majorization (paper: < 20);
  all 150 labelled: classical MDS is Fisher separable (paper: yes, Figure 6), the 24-centre
  expansion is not (paper: no, Figure 7).
- ``zhang-uci``    Section 5.3 / Table 1: pima, soybean, wine, breast, ionosphere; NM and NN in the
  input space and in the feature space of delta2 with l = p = d and phi(x) = x, beta = average
  distance of the labelled points to their class means; counts "correct of n_test", paper beside
  ours, on raw features (the paper's setting, as its input-space numbers show) and z-scored ones.

For the app: ``figure_data(name, seed=0)`` with name in FIGURES ("two_rings", "iris_partial",
"iris_full") returns a dict of DataFrames:
  "points":      panel, x, y, label (class name), role ("labelled" / "unlabelled" / "centre");
                 one panel per sub-figure (e.g. "input", "delta2", "delta2 classical MDS").
  "stress":      panel, iteration, stress (e^2 of Eq. (18) per majorization iteration; Figure 4).
  "eigenvalues": panel, index, eigenvalue (classical MDS spectrum of the labelled points).
Plot "points" as one scatter per panel coloured by label with the symbol by role.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist, squareform
from scipy.stats import rankdata
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from metriclab.datasets import load
from metriclab.evaluation import knn_accuracy, labeled_mask, nearest_mean_accuracy
from metriclab.kernels import class_mean_width
from metriclab.methods.zhang import DiscriminantKernelMDS, is_fisher_separable
from metriclab.preprocess import scale_train_test
from metriclab.reproduce import RESULT_COLUMNS, SPLITS_COLUMN, Experiment

PAPER = "zhang-2003-discriminant-kernels-MDS"
FIGURES = ("two_rings", "iris_partial", "iris_full")
DELTAS = ("delta1", "delta2", "delta3", "delta4")

# Table 1: points correctly classified, of n_test test points (transcribed exactly).
TABLE1 = {
    #               n_test, input NM, input NN, feature NM, feature NN
    "pima": (638, 463, 432, 477, 428),
    "soybean": (37, 36, 35, 37, 37),
    "wine": (118, 86, 77, 113, 115),
    "breast": (469, 430, 420, 448, 451),
    "ionosphere": (251, 159, 212, 201, 224),
}
TABLE1_METHODS = ("input space NM", "input space NN", "feature space NM", "feature space NN")
# our data set behind each row of Table 1, and what it is
UCI_DATA = {
    "pima": "pima",
    "soybean": "soybean",
    "wine": "wine",
    "breast": "breast_cancer_wisconsin",
    "ionosphere": "ionosphere",
}
# The paper's soybean (36/37 ...) is the small soybean set (47 rows, 4 classes, so 10 labelled).
# We ship the large one; its rows of the same four diseases stand in for it.
SMALL_SOYBEAN_CLASSES = (
    "diaporthe-stem-canker",
    "charcoal-rot",
    "rhizoctonia-root-rot",
    "phytophthora-rot",
)
DATA_NOTES = {
    "pima": "768 rows, zeros meaning 'not measured' kept as in the UCI file; 130 labelled. We find "
    "the paper's input-space NM/NN (463/432) between our raw and z-scored results (z-scoring lifts "
    "NM by about 50 points); the feature space gives about 466-470 NM either way.",
    "soybean": "paper: small soybean (47 rows, 4 classes: 10 labelled, 37 test). Not shipped: we "
    "use the large soybean's rows of the same 4 diseases (80 complete rows), 10 labelled, 37 test, "
    "so the counts are comparable in size only.",
    "wine": "178 rows, 60 labelled. On raw features proline (hundreds) dominates the Euclidean "
    "distance: our raw input-space NN is near the paper's 77/118 while z-scored NN is about 110, so "
    "the paper used raw features; the delta2 feature space reaches about 112-113 on raw features "
    "(paper 113/115), i.e. the learned metric undoes the bad scaling.",
    "breast": "683 complete rows (16 with missing bare nuclei dropped), so 214 labelled; the paper "
    "does not say whether it used 699 (230 labelled) or 683. Our input-space counts are about 20 "
    "above the paper's on raw and z-scored features alike (cause unknown).",
    "ionosphere": "351 rows, constant column dropped (distances unchanged), 100 labelled. The "
    "paper's input NM (159/251, near the majority share) is far below ours (about 190-200).",
}


def _rows_frame(rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows)
    return frame[[*RESULT_COLUMNS, *[c for c in frame.columns if c not in RESULT_COLUMNS]]]


def _std(values) -> float:
    """Split-to-split standard deviation (ddof = 1, as in every other table; 0 for one split)."""
    values = np.asarray(values, dtype=float)
    return float(values.std(ddof=1)) if values.size > 1 else 0.0


def _tick(progress, done, total, message):
    if progress is not None:
        progress(done, total, message)


def pair_order_score(D: np.ndarray, y: np.ndarray) -> float:
    """Share of (within-class pair, between-class pair) comparisons where the within-class
    dissimilarity is the smaller (ties count 1/2): 1 exactly when D is Fisher separable
    (Definition 2), a graded version of it otherwise (Mann-Whitney statistic)."""
    iu = np.triu_indices(len(y), k=1)
    d = D[iu]
    same = (y[:, None] == y[None, :])[iu]
    ranks = rankdata(d)
    n_w, n_b = same.sum(), (~same).sum()
    u_between = ranks[~same].sum() - n_b * (n_b + 1) / 2  # between pairs ranked above within
    return float(u_between / (n_w * n_b))


def iterations_to_settle(stress: np.ndarray, share: float = 0.01) -> int:
    """First iteration whose e^2 is within `share` of the total decrease from its final value."""
    stress = np.asarray(stress)
    drop = stress[0] - stress[-1]
    if drop <= 0:
        return 0
    return int(np.argmax(stress - stress[-1] <= share * drop))


def _expansion(X_lab, y_lab, which, n_centres_per_class, seed, max_iter, init="random"):
    """Section 5.1/5.2 expansion: RBF centres sampled among the labelled points, the same number
    from every class (the estimator shares its centres among balanced classes equally)."""
    model = DiscriminantKernelMDS(
        dissimilarity=which,
        n_basis=n_centres_per_class * len(np.unique(y_lab)),
        basis_width=class_mean_width(X_lab, y_lab),  # the paper's beta for the basis too (Sect. 5)
        init=init,
        max_iter=max_iter,
        tol=1e-6,
        random_state=seed,
    )
    return model.fit(X_lab, y_lab)


# --- Section 5.1: two rings -------------------------------------------------------------------


def run_rings(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    n_splits = n_splits or (2 if fast else 10)
    max_iter = 60 if fast else 300
    ds = load("two_rings", n_samples=300)
    results: dict[tuple, list] = {}
    total, done = n_splits * (len(DELTAS) + 1), 0
    with threadpool_limits(1):
        for split in range(n_splits):
            mask = labeled_mask(ds.y, per_class=20, seed=seed + split)
            Xl, yl, Xu, yu = ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]
            results.setdefault(("input space", "NM"), []).append(
                nearest_mean_accuracy(Xl, yl, Xu, yu)
            )
            results.setdefault(("input space", "NN"), []).append(knn_accuracy(Xl, yl, Xu, yu))
            results.setdefault(("input space", "sep"), []).append(
                pair_order_score(squareform(pdist(ds.X)), ds.y)
            )
            done += 1
            for which in DELTAS:
                model = _expansion(Xl, yl, which, 5, seed + split, max_iter)
                Zl, Zu = model.transform(Xl), model.transform(Xu)
                results.setdefault((which, "NM"), []).append(nearest_mean_accuracy(Zl, yl, Zu, yu))
                results.setdefault((which, "NN"), []).append(knn_accuracy(Zl, yl, Zu, yu))
                score = pair_order_score(squareform(pdist(model.transform(ds.X))), ds.y)
                results.setdefault((which, "sep"), []).append(score)
                done += 1
                _tick(progress, done, total, f"two rings: split {split + 1}, {which}")
    protocol = (
        "300 points (2 rings of 150), 20 labelled per ring, 10 RBF centres (5 per ring) among them, "
        f"l = 2, beta = class-mean rule, random W(0), majorization <= {max_iter} it.; 260 test points"
    )
    rows = []
    for (method, kind), values in results.items():
        if kind == "sep":
            metric, scale = "Fisher pair order of all 300 points (1 = separable)", 1.0
        else:
            metric, scale = f"{'nearest-mean' if kind == 'NM' else '1-NN'} accuracy %", 100.0
        label = method if method == "input space" else f"feature space ({method})"
        note = "paper shows Figure 3 only: delta2 and delta4 give the expected feature vectors"
        rows.append(
            dict(
                setting="two rings",
                method=f"{label} {kind}" if kind != "sep" else label,
                metric=metric,
                paper=np.nan,
                ours_mean=scale * float(np.mean(values)),
                ours_std=scale * _std(values),
                n_splits=len(values),
                **{SPLITS_COLUMN: [scale * float(v) for v in values]},
                protocol=protocol,
                note=note,
            )
        )
    return _rows_frame(rows + _initialization_rows(ds, seed, n_splits, max_iter))


def _initialization_rows(ds, seed: int, n_inits: int, max_iter: int) -> list[dict]:
    """Sect. 5.1: results "almost the same with respect to different initializations": the first
    split's labels kept, the expansion refitted from n_inits seeds (each a new random W(0) and new
    RBF centres, so the spread bounds W(0)'s alone from above); nearest-mean accuracy."""
    mask = labeled_mask(ds.y, per_class=20, seed=seed)
    Xl, yl, Xu, yu = ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]
    protocol = (
        f"two rings, the first split's 40 labels; {n_inits} seeds of W(0) and the 10 RBF centres; "
        f"majorization <= {max_iter} it.; nearest mean on the 260 other points"
    )
    rows = []
    with threadpool_limits(1):
        for which in DELTAS:
            values = []
            for init in range(n_inits):
                model = _expansion(Xl, yl, which, 5, seed + 1000 + init, max_iter)
                values.append(
                    100.0 * nearest_mean_accuracy(model.transform(Xl), yl, model.transform(Xu), yu)
                )
            rows.append(
                dict(
                    setting="two rings, one split, several initializations",
                    method=f"feature space ({which}) NM",
                    metric="nearest-mean accuracy %",
                    paper=np.nan,
                    ours_mean=float(np.mean(values)),
                    ours_std=_std(values),
                    n_splits=len(values),
                    **{SPLITS_COLUMN: values},
                    protocol=protocol,
                    note="the paper: 'almost the same with respect to different initializations'",
                )
            )
    return rows


# --- Section 5.2: Iris --------------------------------------------------------------------------


IRIS_NOTE = (
    "paper (Figure 5): the 2-D feature vectors look more separable than the 4-D inputs, a visual "
    "claim with no number; we find the 2-D expansion classifies the 120 others worse than the 4-D "
    "input space (compare the input-space rows), delta4 better than delta2"
)


def run_iris(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    n_splits = n_splits or (2 if fast else 10)
    max_iter = 60 if fast else 300
    ds = load("iris")
    stats: dict[tuple, list] = {}
    total, done = n_splits * 4, 0
    with threadpool_limits(1):
        for split in range(n_splits):
            mask = labeled_mask(ds.y, per_class=10, seed=seed + split)
            Xl, yl, Xu, yu = ds.X[mask], ds.y[mask], ds.X[~mask], ds.y[~mask]
            stats.setdefault(("input space", "input NM"), []).append(
                100 * nearest_mean_accuracy(Xl, yl, Xu, yu)
            )
            stats.setdefault(("input space", "input NN"), []).append(
                100 * knn_accuracy(Xl, yl, Xu, yu)
            )
            for which in ("delta2", "delta4"):
                model = _expansion(Xl, yl, which, 2, seed + split, max_iter)
                Zl, Zu = model.transform(Xl), model.transform(Xu)
                stats.setdefault((which, "partial NM"), []).append(
                    100 * nearest_mean_accuracy(Zl, yl, Zu, yu)
                )
                stats.setdefault((which, "partial NN"), []).append(
                    100 * knn_accuracy(Zl, yl, Zu, yu)
                )
                stats.setdefault((which, "iterations"), []).append(
                    iterations_to_settle(model.stress_)
                )
                done += 1
                _tick(progress, done, total, f"iris: split {split + 1}, {which}, 30 labelled")
                full = _expansion(ds.X, ds.y, which, 8, seed + split, max_iter)  # 24 centres
                mds_sep = is_fisher_separable(squareform(pdist(full.embedding_)), ds.y)
                exp_sep = is_fisher_separable(squareform(pdist(full.transform(ds.X))), ds.y)
                stats.setdefault((which, "full MDS"), []).append(float(mds_sep.separable))
                stats.setdefault((which, "full expansion"), []).append(float(exp_sep.separable))
                done += 1
                _tick(progress, done, total, f"iris: split {split + 1}, {which}, all labelled")
    partial = (
        "10 labelled per class, 6 RBF centres (2 per class), l = 2, random W(0); 120 test points"
    )
    full_protocol = "all 150 labelled; classical MDS, and the expansion with 24 RBF centres"
    spec = {
        "input NM": ("input space NM (4-D)", "nearest-mean accuracy %", np.nan, partial, ""),
        "input NN": ("input space NN (4-D)", "1-NN accuracy %", np.nan, partial, ""),
        "partial NM": ("feature space NM", "nearest-mean accuracy %", np.nan, partial, IRIS_NOTE),
        "partial NN": ("feature space NN", "1-NN accuracy %", np.nan, partial, IRIS_NOTE),
        "iterations": (
            "iterative majorization",
            "iterations until e^2 is within 1% of its final decrease",
            np.nan,
            partial,
            "paper (Figure 4): converges in less than 20 iterations. Ours: most random W(0) "
            "settle in 5-40 iterations, but some sit on a plateau for 100+ iterations before a "
            "further drop (e.g. e^2 180 -> 120), which the mean and std show",
        ),
        "full MDS": (
            "classical MDS",
            "Fisher separable (share of runs)",
            1.0,
            full_protocol,
            "paper (Figure 6): classical MDS gives the idealized feature vectors",
        ),
        "full expansion": (
            "expansion (24 centres)",
            "Fisher separable (share of runs)",
            0.0,
            full_protocol,
            "paper (Figure 7): the expansion does not reach the idealized vectors",
        ),
    }
    rows = []
    for (which, kind), values in stats.items():
        method, metric, paper, protocol, note = spec[kind]
        rows.append(
            dict(
                setting="iris" if which == "input space" else f"iris, {which}",
                method=method,
                metric=metric,
                paper=paper,
                ours_mean=float(np.mean(values)),
                ours_std=_std(values),
                n_splits=len(values),
                **{SPLITS_COLUMN: [float(v) for v in values]},
                protocol=protocol,
                note=note,
            )
        )
    return _rows_frame(rows)


# --- Section 5.3: Table 1 -------------------------------------------------------------------------


# The readings of Table 1's "breast" (469 test points) the paper leaves open: the original Wisconsin
# data with its 16 incomplete rows dropped (683: 214 labelled) or kept (699: 230 labelled), or the
# diagnostic WDBC set (569: 100 labelled, as round as ionosphere's 100 and pima's 130).
BREAST_VARIANTS = {
    "breast": "breast_cancer_wisconsin",
    "breast (699 rows)": "breast_cancer_wisconsin_699",
    "breast (WDBC, 569 rows)": "wdbc",
}
PREPROCESSINGS = ("raw", "zscore", "minmax")  # metriclab.preprocess: none, standardise, minmax
SHOWN_PREPROCESSING = {"raw": "", "zscore": " (z-scored)", "minmax": " ([0, 1])"}


def uci_data(row: str) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels behind one row of Table 1 (soybean: the four small-soybean diseases;
    a breast variant of BREAST_VARIANTS by its name)."""
    ds = load(BREAST_VARIANTS.get(row, UCI_DATA.get(row)))
    X, y = ds.X, ds.y
    if row == "soybean" and ds.n_samples != 47:
        names = np.asarray(ds.target_names)[y]
        keep = np.isin(names, SMALL_SOYBEAN_CLASSES)
        X, y = X[keep], np.unique(y[keep], return_inverse=True)[1]
    return X, y


def uci_split(y: np.ndarray, n_test: int, seed: int, n_labelled: int | None = None):
    """Stratified labelled set of n - n_test points (soybean: 10), the test points the rest."""
    n = len(y)
    n_labelled = n - n_test if n_labelled is None else n_labelled
    lab, rest = train_test_split(np.arange(n), train_size=n_labelled, stratify=y, random_state=seed)
    return lab, np.sort(rest)[:n_test] if len(rest) > n_test else rest


def uci_scores(X, y, lab, test, seed, preprocessing="raw", max_iter=100) -> dict[str, int]:
    """Correct test points of NM and NN in the input space and in the delta2 feature space."""
    # "raw" or "zscore" (metriclab.preprocess: none / standardise, fitted on the labelled points)
    Xl, Xt = scale_train_test(preprocessing, X[lab], X[test])
    yl, yt = y[lab], y[test]
    model = DiscriminantKernelMDS(
        n_components=X.shape[1],  # l = p = d
        dissimilarity="delta2",
        basis="linear",  # phi(x) = x
        init="random",
        max_iter=max_iter,
        tol=1e-6,
        random_state=seed,
    ).fit(Xl, yl)
    Zl, Zt = model.transform(Xl), model.transform(Xt)
    n = len(yt)
    return {
        "input space NM": round(n * nearest_mean_accuracy(Xl, yl, Xt, yt)),
        "input space NN": round(n * knn_accuracy(Xl, yl, Xt, yt)),
        "feature space NM": round(n * nearest_mean_accuracy(Zl, yl, Zt, yt)),
        "feature space NN": round(n * knn_accuracy(Zl, yl, Zt, yt)),
    }


def _uci_note(row: str, method: str, preprocessing: str, paper: float, mean: float, std: float):
    parts = []
    gap = mean - paper
    if abs(gap) > max(2 * std, 0.02 * TABLE1[row][0]):
        parts.append(f"ours {'above' if gap > 0 else 'below'} the paper by {abs(gap):.0f} points")
    else:
        parts.append("within the split-to-split spread of the paper")
    if preprocessing != "raw":
        parts.append(
            f"{'z-scored' if preprocessing == 'zscore' else '[0, 1]'} features (the paper "
            "does not say)"
        )
    parts.append(DATA_NOTES[row])
    return "; ".join(parts)


def _missing_rows(row, n_test, paper_counts, exc) -> list[dict]:
    return [
        dict(setting=row, method=method, metric=f"correct of {n_test} test points",
             paper=float(paper), ours_mean=np.nan, ours_std=np.nan, n_splits=0, protocol="",
             note=f"data set not available: {exc}")
        for method, paper in zip(TABLE1_METHODS, paper_counts, strict=True)
    ]  # fmt: skip


def variant_fit(counts: dict, paper_counts) -> float:
    """How far a variant's mean counts are from the paper's four cells: the mean absolute gap
    in test points."""
    means = [float(np.mean(counts[m])) for m in TABLE1_METHODS]
    return float(np.mean(np.abs(np.subtract(means, paper_counts))))


def _fit_rows(row: str, n_test: int, fits: dict[str, float], protocol: str) -> dict:
    """One row per Table-1 row: the variant whose counts come nearest the paper's (named in the
    method, with the others' gaps in the note; the method column stays the same in every mode)."""
    best = min(fits, key=fits.get)
    listed = "; ".join(
        f"{name}: {value:.1f}" for name, value in sorted(fits.items(), key=lambda kv: kv[1])
    )
    return dict(
        setting=f"{row}: which preprocessing fits the paper",
        method="nearest reading",
        metric=f"mean |ours − paper| over the 4 cells (of {n_test} test points)",
        paper=0.0,
        ours_mean=fits[best],
        ours_std=0.0,
        n_splits=0,
        protocol=protocol,
        note=f"nearest: {best}; every variant, nearest first: {listed}",
    )


def run_uci(fast=False, n_splits=None, seed=0, progress=None) -> pd.DataFrame:
    n_splits = n_splits or (2 if fast else 10)
    preprocessings = ("raw",) if fast else PREPROCESSINGS
    max_iter = 30 if fast else 100
    rows, fit_rows = [], []
    variants = [(row, row) for row in TABLE1] + [
        (name, "breast") for name in BREAST_VARIANTS if name != "breast"
    ]
    total = len(variants) * len(preprocessings) * n_splits
    done = 0
    fits: dict[str, dict[str, float]] = {row: {} for row in TABLE1}
    with threadpool_limits(1):
        for setting, row in variants:
            n_test, *paper_counts = TABLE1[row]
            try:
                X, y = uci_data(setting)
            except (KeyError, ValueError, FileNotFoundError) as exc:  # data set not shipped
                rows += _missing_rows(setting, n_test, paper_counts, exc)
                done += len(preprocessings) * n_splits
                continue
            n_labelled = 10 if row == "soybean" else len(y) - n_test
            for preprocessing in preprocessings:
                counts = {m: [] for m in TABLE1_METHODS}
                for split in range(n_splits):
                    lab, test = uci_split(y, n_test, seed + split, n_labelled)
                    scores = uci_scores(X, y, lab, test, seed + split, preprocessing, max_iter)
                    for method, value in scores.items():
                        counts[method].append(value)
                    done += 1
                    _tick(progress, done, total, f"{setting} ({preprocessing}): split {split + 1}")
                protocol = (
                    f"{n_labelled} labelled (stratified random), {n_test} test; {preprocessing} "
                    f"features; delta2, l = p = d = {X.shape[1]}, phi(x) = x, beta = class-mean "
                    f"rule, random W(0), majorization <= {max_iter} it.; {n_splits} random splits "
                    "(paper: one split, 10 initializations)"
                )
                shown = setting + SHOWN_PREPROCESSING[preprocessing]
                fits[row][shown] = variant_fit(counts, paper_counts)
                for method, paper in zip(TABLE1_METHODS, paper_counts, strict=True):
                    mean = float(np.mean(counts[method]))
                    std = _std(counts[method])
                    rows.append(
                        dict(
                            setting=shown,
                            method=method,
                            metric=f"correct of {n_test} test points",
                            paper=float(paper),
                            ours_mean=mean,
                            ours_std=std,
                            n_splits=n_splits,
                            **{SPLITS_COLUMN: [float(v) for v in counts[method]]},
                            protocol=protocol,
                            note=_uci_note(row, method, preprocessing, paper, mean, std),
                        )
                    )
    for row, row_fits in fits.items():
        if row_fits:
            fit_rows.append(
                _fit_rows(row, TABLE1[row][0], row_fits, "the variants above, same splits")
            )
    return _rows_frame(rows + fit_rows)


# --- figure data for the app ------------------------------------------------------------------------


def _points(panel, Z, y, target_names, roles) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "panel": panel,
            "x": Z[:, 0],
            "y": Z[:, 1] if Z.shape[1] > 1 else np.zeros(len(Z)),
            "label": np.asarray(target_names)[y],
            "role": roles,
        }
    )


def figure_data(name: str, seed: int = 0, max_iter: int = 300) -> dict[str, pd.DataFrame]:
    """Data of the paper's figures for plotting (see the module docstring for the columns)."""
    if name not in FIGURES:
        raise ValueError(f"figure must be one of {list(FIGURES)}, got {name!r}")
    points, stress, spectra = [], [], []

    def record(panel, model, Z, y, target_names, roles):
        points.append(_points(panel, Z, y, target_names, roles))
        stress.append(
            pd.DataFrame(
                {
                    "panel": panel,
                    "iteration": np.arange(len(model.stress_)),
                    "stress": model.stress_,
                }
            )
        )
        spectra.append(
            pd.DataFrame(
                {
                    "panel": panel,
                    "index": np.arange(1, len(model.eigenvalues_) + 1),
                    "eigenvalue": model.eigenvalues_,
                }
            )
        )

    with threadpool_limits(1):
        if name in ("two_rings", "iris_partial"):
            ds = load("two_rings", n_samples=300) if name == "two_rings" else load("iris")
            per_class, per_centre = (20, 5) if name == "two_rings" else (10, 2)
            deltas = DELTAS if name == "two_rings" else ("delta2", "delta4")
            mask = labeled_mask(ds.y, per_class=per_class, seed=seed)
            roles = np.where(mask, "labelled", "unlabelled")
            points.append(_points("input", ds.X[:, :2], ds.y, ds.target_names, roles))
            for which in deltas:
                model = _expansion(ds.X[mask], ds.y[mask], which, per_centre, seed, max_iter)
                record(which, model, model.transform(ds.X), ds.y, ds.target_names, roles)
                centres = model.transform(model.centres_)
                points.append(
                    pd.DataFrame(
                        {
                            "panel": which,
                            "x": centres[:, 0],
                            "y": centres[:, 1],
                            "label": "centre",
                            "role": "centre",
                        }
                    )
                )
        else:  # iris_full: classical MDS (Figure 6) and the 24-centre expansion (Figure 7)
            ds = load("iris")
            roles = np.full(len(ds.y), "labelled")
            for which in ("delta2", "delta4"):
                model = _expansion(ds.X, ds.y, which, 8, seed, max_iter)
                points.append(
                    _points(
                        f"{which} classical MDS", model.embedding_, ds.y, ds.target_names, roles
                    )
                )
                record(
                    f"{which} expansion", model, model.transform(ds.X), ds.y, ds.target_names, roles
                )
    return {
        "points": pd.concat(points, ignore_index=True),
        "stress": pd.concat(stress, ignore_index=True),
        "eigenvalues": pd.concat(spectra, ignore_index=True),
    }


EXPERIMENTS = [
    Experiment(
        name="zhang-rings",
        title="Two rings: delta1-delta4 feature vectors (Zhang 2003, Figure 3)",
        paper=PAPER,
        run=run_rings,
        description="Figure 3 as numbers: NM / 1-NN accuracy of the 260 unlabelled points in the "
        "2-D feature space of each dissimilarity; figure_data('two_rings') has the scatter data.",
    ),
    Experiment(
        name="zhang-iris",
        title="Iris: majorization, classical MDS and expansion (Zhang 2003, Figures 4-7)",
        paper=PAPER,
        run=run_iris,
        description="Partially labelled Iris mapped by the RBF expansion; fully labelled Iris by "
        "classical MDS and by the expansion; figure_data('iris_partial' / 'iris_full').",
    ),
    Experiment(
        name="zhang-uci",
        title="UCI table: NM and NN in the input and feature spaces (Zhang 2003, Table 1)",
        paper=PAPER,
        run=run_uci,
        description="Correct test points of the nearest-mean and nearest-neighbour classifiers, "
        "paper beside ours, raw and z-scored features.",
    ),
]
