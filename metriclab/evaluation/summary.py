"""Summaries of `compare`'s rows: mean ± std per data set and method, and the paired difference
against the Euclidean baseline on the same splits (wins/ties/losses, Wilcoxon signed-rank p)."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

from metriclab.positions import collapsed


def method_label(spec, params: dict) -> str:
    """The method's label with the parameters that differ from its defaults, e.g. 'LMNN (k=5)'."""
    defaults = spec.defaults()
    changed = {k: v for k, v in params.items() if k in defaults and defaults[k] != v}
    if not changed:
        return spec.label
    return f"{spec.label} ({', '.join(f'{k}={v}' for k, v in sorted(changed.items()))})"


def input_space_key() -> str | None:
    """The key of the Euclidean baseline that every comparison adds (the "input_space" tag)."""
    from metriclab.methods import input_space

    spec = input_space()
    return None if spec is None else spec.key


SUMMARY_GROUP = ("dataset", "method", "label", "params", "protocol", "classifier", "preprocess")


ALPHA = 0.05  # the level of the paired test behind every "beats" / "loses" the app writes


def paired_verdict(differences, alpha: float = ALPHA) -> tuple[str, float]:
    """("beats" | "loses" | "ties", p): the sign of the mean paired difference when the two-sided
    Wilcoxon signed-rank test rejects equality at `alpha`, else "ties" (no clear difference;
    also when every difference is zero). `p` is NaN where the test is undefined."""
    d = np.asarray(differences, dtype=float)
    p = paired_test(d)
    if not math.isfinite(p) or p >= alpha:
        return "ties", p
    return ("beats" if float(np.nanmean(d)) > 0 else "loses"), p


def paired_test(differences: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired differences.

    The test :func:`summarize` puts beside each method against the Euclidean baseline (exact, a
    permutation test, with zero or tied differences).

    Parameters
    ----------
    differences : array-like of shape (n_splits,)
        A method's score minus the baseline's on each split; non-finite values are left out.

    Returns
    -------
    float
        The p-value; NaN where it is undefined (fewer than two differences, or all zero).

    See Also
    --------
    summarize : Mean, spread and this test per method.

    Examples
    --------
    >>> from metriclab.evaluation import paired_test
    >>> paired_test([0.02, 0.03, 0.01, 0.04, 0.05, 0.02])  # six wins: 2 / 2**6
    0.03125
    >>> paired_test([0.0, 0.0, 0.0])
    nan
    """
    d = np.asarray(differences, dtype=float)
    d = d[np.isfinite(d)]
    if d.size < 2 or np.all(d == 0):
        return math.nan
    from metriclab.evaluation.signed_rank import signed_rank_p

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = signed_rank_p(d)  # scipy.stats.wilcoxon(d)'s p
    except ValueError:
        return math.nan
    return p if math.isfinite(p) else math.nan


def adjusted_p_values(p_values) -> np.ndarray:
    """p-values adjusted together for the number of tests (Benjamini-Hochberg, scipy's
    `false_discovery_control`): among the differences with a value below 0.05, about 5 % are
    expected to be false; NaN where there is no test."""
    from scipy.stats import false_discovery_control

    p = np.asarray(p_values, dtype=float)
    q = np.full(p.shape, np.nan)
    tested = np.isfinite(p)
    if tested.any():
        q[tested] = false_discovery_control(p[tested], method="bh")
    return q


def collapsed_splits(good: pd.DataFrame) -> int:
    """Splits on which the embedding collapsed: its scored points on fewer distinct positions
    than `metriclab.positions.COLLAPSED_SHARE` of them (0 where the results do not say); `good`
    holds one method's successful splits (compare's `positions` and `n_scored`)."""
    if not {"positions", "n_scored"} <= set(good.columns):
        return 0
    known = good.dropna(subset=["positions"])
    pairs = zip(known["positions"], known["n_scored"], strict=True)
    return int(sum(collapsed(int(p), int(n)) for p, n in pairs))


def summarize(results: pd.DataFrame, baseline: str | None = None) -> pd.DataFrame:
    """Summarize a comparison per data set and method, paired against a baseline.

    Parameters
    ----------
    results : pandas.DataFrame
        The table of :func:`compare` (one row per data set, method and split).
    baseline : str, optional
        The method key the others are paired with on the same splits; None: the Euclidean
        input space every comparison adds.

    Returns
    -------
    pandas.DataFrame
        One row per data set and method: mean ± std accuracy over the splits
        (``accuracy_mean``, ``accuracy_std``), the mean fit time, and the paired difference
        against the baseline (``diff_vs_baseline``, ``wins``, ``ties``, ``losses`` and the
        Wilcoxon ``p_value``), and on how many splits the embedding collapsed (``collapsed``:
        its scored points on fewer than a tenth as many distinct positions, so that its score is
        mostly the tie-breaking of equal distances).

    See Also
    --------
    compare : The table it summarizes.
    metriclab.plotting.comparison : Draw either table.

    Examples
    --------
    >>> from metriclab.evaluation import CompareRequest, compare, summarize
    >>> request = CompareRequest("iris", {"nca": {"max_iter": 10}}, n_splits=3, per_class=5)
    >>> results = compare(request)
    >>> summary = summarize(results)
    >>> summary["method"].tolist()
    ['euclidean', 'nca']
    >>> int(summary.loc[1, ["wins", "ties", "losses"]].sum())
    3
    """
    if baseline is None:
        baseline = input_space_key()
    missing = {"dataset", "method", "split", "accuracy", "status"} - set(results.columns)
    if missing:
        raise ValueError(f"results lack the column(s) {sorted(missing)}; pass compare()'s output")
    group = [c for c in SUMMARY_GROUP if c in results.columns]
    ok = results[results["status"] == "ok"]
    pair_on = ["dataset", "split", *(["preprocess"] if "preprocess" in results.columns else [])]
    base = (
        ok[ok["method"] == baseline]
        .groupby(pair_on, sort=False)["accuracy"]
        .mean()
        .rename("baseline_accuracy")
    )
    rows = []
    for keys, frame in results.groupby(group, sort=False, dropna=False):
        row = dict(zip(group, keys if isinstance(keys, tuple) else (keys,), strict=True))
        good = frame[frame["status"] == "ok"]
        acc = good["accuracy"].to_numpy(dtype=float)
        row["n_splits"] = int(len(good))
        row["n_failed"] = int(len(frame) - len(good))
        row["accuracy_mean"] = float(acc.mean()) if acc.size else math.nan
        row["accuracy_std"] = (
            float(acc.std(ddof=1)) if acc.size > 1 else (0.0 if acc.size else math.nan)
        )
        row["error_pct_mean"] = 100.0 * (1.0 - row["accuracy_mean"])
        row["error_pct_std"] = 100.0 * row["accuracy_std"]
        row["fit_time_s"] = (
            float(good["fit_time_s"].mean()) if len(good) and "fit_time_s" in good else math.nan
        )
        paired = good.join(base, on=pair_on, how="inner")
        diff = (paired["accuracy"] - paired["baseline_accuracy"]).to_numpy(dtype=float)
        row["diff_vs_baseline"] = float(diff.mean()) if diff.size else math.nan
        row["wins"] = int((diff > 1e-12).sum())
        row["ties"] = int((np.abs(diff) <= 1e-12).sum())
        row["losses"] = int((diff < -1e-12).sum())
        row["p_value"] = paired_test(diff)
        row["collapsed"] = collapsed_splits(good)
        failed = frame.loc[frame["status"] != "ok", "status"]
        row["status"] = "ok" if failed.empty else str(failed.iloc[0])
        rows.append(row)
    return pd.DataFrame(rows)
