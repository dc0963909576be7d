"""Bench: metriclab's classical MDS and majorization (Zhang 2003) against scikit-learn's MDS.

Same dissimilarities for every peer: the distances sqrt(delta2) of the labelled Swiss roll (4
classes, 3-D) at n = 500 / 2,000 / 5,000, beta by the paper's class-mean rule. In one process:

- classical MDS: ours (`classical_mds`, ARPACK `eigsh` past 1,000 points) vs scikit-learn's
  `ClassicalMDS(metric="precomputed")`;
- stress majorization: our RBF expansion (`fit_expansion`, p = min(200, n/4) centres, W(0) from
  classical MDS, <= 300 iterations, relative tolerance 1e-6) vs scikit-learn's SMACOF
  `MDS(metric="precomputed", metric_mds=True, n_init=1, max_iter=300, eps=1e-6)` started at random
  and at classical MDS (scikit-learn 1.9: `dissimilarity=` is deprecated for `metric=`, `init=`
  is new);
- end to end, "MDS + expansion" = ours classical MDS followed by the expansion (what
  `DiscriminantKernelMDS.fit` does after building the kernel) vs scikit-learn's MDS.

Times are medians over --repeats runs (1 at n = 5,000); ratio = peer time / our time. The normalised
stress sum (d - q)^2 / sum d^2 of each result is printed beside its time, so speed is not bought with
a worse fit. BLAS runs single-threaded (--threads) so that the machine's other jobs disturb less.

    python bench/zhang.py [--sizes 500 2000 5000] [--repeats 3] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings

import numpy as np
from sklearn.manifold import MDS, ClassicalMDS
from threadpoolctl import threadpool_limits

from metriclab.datasets import load
from metriclab.kernels import delta_dissimilarity
from metriclab.methods.zhang import (
    _stratified_centres,
    classical_mds,
    fit_expansion,
    majorization_stress,
    rbf_basis,
)


def dissimilarities(n: int, seed: int = 0):
    ds = load("swiss_roll", n_samples=n, n_classes=4, seed=seed)
    D = np.sqrt(delta_dissimilarity(ds.X, ds.y, "delta2"))
    return ds.X, ds.y, D


def normalised_stress(D, Y) -> float:
    return majorization_stress(D, Y) / float((D**2).sum())


def timed(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def ours_mds(D):
    return classical_mds(D, 2)[0]


def ours_expansion(X, y, D, Y0, seed=0):
    n = len(y)
    centres = X[_stratified_centres(y, min(200, max(2, n // 4)), np.random.default_rng(seed))]
    beta = float(np.mean(np.linalg.norm(X - X.mean(0), axis=1)))
    Phi = rbf_basis(X, centres, beta)
    Phi_c = Phi - Phi.mean(0)
    W0 = np.linalg.lstsq(Phi_c, Y0 - Y0.mean(0), rcond=None)[0]
    W, stress = fit_expansion(D, Phi, W0, max_iter=300, tol=1e-6)
    return Phi @ W, len(stress) - 1


def sklearn_smacof(D, init, seed=0):
    model = MDS(
        n_components=2,
        metric="precomputed",
        metric_mds=True,
        n_init=1,
        init=init,
        max_iter=300,
        eps=1e-6,
        random_state=seed,
        normalized_stress=False,
    )
    Y = model.fit_transform(D)
    return Y, model.n_iter_


def bench(sizes, repeats, progress=print):
    rows = []
    for n in sizes:
        X, y, D = dissimilarities(n)
        r = 1 if n >= 5000 else repeats
        t_mds, Y_mds = timed(lambda D=D: ours_mds(D), r)
        t_skc, Y_skc = timed(
            lambda D=D: ClassicalMDS(n_components=2, metric="precomputed").fit_transform(D), r
        )
        t_exp, (Y_exp, it_exp) = timed(
            lambda X=X, y=y, D=D, Y0=Y_mds: ours_expansion(X, y, D, Y0), r
        )
        t_skr, (Y_skr, it_skr) = timed(lambda D=D: sklearn_smacof(D, "random"), r)
        t_skm, (Y_skm, it_skm) = timed(lambda D=D: sklearn_smacof(D, "classical_mds"), r)
        row = dict(
            n=n,
            ours_mds=(t_mds, normalised_stress(D, Y_mds)),
            sk_classical=(t_skc, normalised_stress(D, Y_skc)),
            ours_expansion=(t_exp, normalised_stress(D, Y_exp), it_exp),
            ours_total=(t_mds + t_exp, normalised_stress(D, Y_exp)),
            sk_smacof_random=(t_skr, normalised_stress(D, Y_skr), it_skr),
            sk_smacof_cmds=(t_skm, normalised_stress(D, Y_skm), it_skm),
        )
        rows.append(row)
        progress(f"n={n}: done ({r} run{'s' if r > 1 else ''})")
    return rows


def markdown(rows) -> str:
    lines = [
        "| n | ours classical MDS s (stress) | sklearn ClassicalMDS s (stress) | ratio | "
        "ours MDS + expansion s (stress, it.) | sklearn MDS random init s (stress, it.) | ratio | "
        "sklearn MDS cMDS init s (stress, it.) | ratio |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        t_mds, s_mds = row["ours_mds"]
        t_skc, s_skc = row["sk_classical"]
        t_tot, s_tot = row["ours_total"]
        it_exp = row["ours_expansion"][2]
        t_skr, s_skr, it_skr = row["sk_smacof_random"]
        t_skm, s_skm, it_skm = row["sk_smacof_cmds"]
        lines.append(
            f"| {row['n']:,} | {t_mds:.3f} ({s_mds:.3f}) | {t_skc:.3f} ({s_skc:.3f}) | "
            f"{t_skc / t_mds:.1f}x | {t_tot:.2f} ({s_tot:.3f}, {it_exp}) | "
            f"{t_skr:.2f} ({s_skr:.3f}, {it_skr}) | {t_skr / t_tot:.1f}x | "
            f"{t_skm:.2f} ({s_skm:.3f}, {it_skm}) | {t_skm / t_tot:.1f}x |"
        )
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2000, 5000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="BLAS threads (0 = library default)")
    args = parser.parse_args(argv)
    progress = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        if args.threads > 0:
            with threadpool_limits(args.threads):
                rows = bench(args.sizes, args.repeats, progress)
        else:
            rows = bench(args.sizes, args.repeats, progress)
    print(markdown(rows))
    return rows


if __name__ == "__main__":
    main()
