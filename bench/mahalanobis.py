"""Bench: metriclab's NCA, LMNN and DNE against scikit-learn's NCA and metric-learn's NCA and LMNN.

Fit time and 1-NN test accuracy on iris, wine, WDBC and digits: standardised features (scaler fitted
on the training part), stratified 70/30 splits (seeds 0..2), n_components = d (full rank; DNE uses
d as well), medians over the runs; ratios = peer time / our time, measured in the same process.
Both wall-clock and CPU time (process_time) are reported: on a shared, overloaded machine the CPU
time is the steadier measure of work. All learners run with the same BLAS thread limit
(`--threads`, default 1, which was faster for every learner on the 2 shared cores here).

    python bench/mahalanobis.py [--quick] [--runs 3] [--datasets iris,wine] [--threads 1]

metric-learn 0.7.0 passes `force_all_finite=` to scikit-learn's validation functions, which
scikit-learn >= 1.8 rejects: we wrap the functions metric-learn imported (translating the keyword to
`ensure_all_finite`) instead of pinning an old scikit-learn. metric-learn is the optional extra
`bench` of pyproject.toml.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier, NeighborhoodComponentsAnalysis
from sklearn.preprocessing import StandardScaler

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the checkout: tests/peers.py

from metriclab.methods.mahalanobis import DNE, LMNN, NCA  # noqa: E402
from tests.peers import import_metric_learn  # noqa: E402 (the shim shared with the tests)

DATASETS = ("iris", "wine", "wdbc", "digits")


def load_data(name):
    """(X, y) of a bench data set: metriclab's shipped copy if present, else scikit-learn's."""
    try:
        from metriclab.datasets import load, names

        key = {"wdbc": "wdbc"}.get(name, name)
        if key in names():
            data = load(key)
            return data.X, data.y
    except Exception:  # noqa: BLE001 - fall back to scikit-learn's copies below
        pass
    from sklearn import datasets

    loader = {
        "iris": datasets.load_iris,
        "wine": datasets.load_wine,
        "wdbc": datasets.load_breast_cancer,
        "digits": datasets.load_digits,
    }[name]
    return loader(return_X_y=True)


def split(X, y, seed):
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=0.3, stratify=y, random_state=seed
    )
    scaler = StandardScaler().fit(X_train)
    return scaler.transform(X_train), scaler.transform(X_test), y_train, y_test


def one_nn_accuracy(Z_train, y_train, Z_test, y_test):
    return float(KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train).score(Z_test, y_test))


def learners(d, metric_learn, quick):
    """name -> factory of an unfitted learner with n_components = d, matched settings."""
    out = {
        "euclidean": None,
        "metriclab NCA": lambda: NCA(n_components=d, max_iter=100, tol=1e-5, init="identity"),
        "sklearn NCA": lambda: NeighborhoodComponentsAnalysis(
            n_components=d, max_iter=100, tol=1e-5, init="identity", random_state=0
        ),
        "metriclab LMNN": lambda: LMNN(n_components=d, k=3, mu=0.5),
        "metriclab DNE": lambda: DNE(n_components=d, k=3),
    }
    if metric_learn is not None:
        out["metric-learn NCA"] = lambda: metric_learn.NCA(
            n_components=d, max_iter=100, init="identity", random_state=0
        )
        out["metric-learn LMNN"] = lambda: metric_learn.LMNN(
            n_components=d, n_neighbors=3, regularization=0.5, init="pca", random_state=0
        )
    return out


def bench(datasets, runs, quick, progress=print, threads=1):
    from threadpoolctl import threadpool_limits

    metric_learn = import_metric_learn()
    rows = []
    for name in datasets:
        X, y = load_data(name)
        d = X.shape[1]
        factories = learners(d, metric_learn, quick)
        times = {key: [] for key in factories}
        cpus = {key: [] for key in factories}
        accs = {key: [] for key in factories}
        for seed in range(runs):
            X_train, X_test, y_train, y_test = split(X, y, seed)
            for key, factory in factories.items():
                if factory is None:
                    accs[key].append(one_nn_accuracy(X_train, y_train, X_test, y_test))
                    times[key].append(0.0)
                    cpus[key].append(0.0)
                    continue
                est = factory()
                with warnings.catch_warnings(), threadpool_limits(limits=threads):
                    warnings.simplefilter("ignore")
                    start, cpu_start = time.perf_counter(), time.process_time()
                    est.fit(X_train, y_train)
                    elapsed = time.perf_counter() - start
                    cpu = time.process_time() - cpu_start
                acc = one_nn_accuracy(
                    est.transform(X_train), y_train, est.transform(X_test), y_test
                )
                times[key].append(elapsed)
                cpus[key].append(cpu)
                accs[key].append(acc)
                progress(
                    f"{name} seed {seed} {key}: wall {elapsed:.3f} s, cpu {cpu:.3f} s, 1-NN {acc:.3f}"
                )
        for key in factories:
            rows.append(
                {
                    "dataset": name,
                    "n×d": f"{X.shape[0]}×{d}",
                    "method": key,
                    "time": statistics.median(times[key]),
                    "cpu": statistics.median(cpus[key]),
                    "acc": statistics.median(accs[key]),
                    "acc_mean": statistics.fmean(accs[key]),
                }
            )
    return rows


def ratio_table(rows):
    """Markdown table; the ratio columns divide the peer's median time by ours."""
    ours = {
        "sklearn NCA": "metriclab NCA",
        "metric-learn NCA": "metriclab NCA",
        "metric-learn LMNN": "metriclab LMNN",
    }
    by_key = {(r["dataset"], r["method"]): r for r in rows}
    lines = [
        "| data | n×d | method | wall (s) | CPU (s) | 1-NN acc median (mean) | peer / ours: wall, CPU |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        ratio = ""
        if r["method"] in ours:
            mine = by_key[(r["dataset"], ours[r["method"]])]
            ratio = (
                f"{r['time'] / max(mine['time'], 1e-9):.1f}×, "
                f"{r['cpu'] / max(mine['cpu'], 1e-9):.1f}× (vs {ours[r['method']]})"
            )
        if r["method"] == "euclidean":
            wall = cpu = "—"
        else:
            wall, cpu = f"{r['time']:.3f}", f"{r['cpu']:.3f}"
        lines.append(
            f"| {r['dataset']} | {r['n×d']} | {r['method']} | {wall} | {cpu} | "
            f"{r['acc']:.3f} ({r['acc_mean']:.3f}) | {ratio} |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="iris and wine only, one run")
    parser.add_argument("--runs", type=int, default=None, help="splits per data set (default 3)")
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads for every learner")
    parser.add_argument(
        "--datasets", default=None, help="comma-separated subset of " + ",".join(DATASETS)
    )
    args = parser.parse_args(argv)
    datasets = (
        args.datasets.split(",")
        if args.datasets
        else (["iris", "wine"] if args.quick else list(DATASETS))
    )
    runs = args.runs or (1 if args.quick else 3)
    if import_metric_learn() is None:
        print("metric-learn is not installed (pip install -e '.[bench]'): its columns are skipped")
    rows = bench(
        datasets,
        runs,
        args.quick,
        progress=lambda m: print(m, file=sys.stderr),
        threads=args.threads,
    )
    print(
        f"\nmedians of {runs} stratified 70/30 split(s), standardised features, n_components = d, "
        f"BLAS threads = {args.threads}\n"
    )
    print(ratio_table(rows))
    return 0


if __name__ == "__main__":
    np.seterr(all="ignore")
    sys.exit(main())
