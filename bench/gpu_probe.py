"""One-off probe on a GPU machine (issue 42): the 10^6-point graph by cupyx's KDTree against brute
force, and a full-size MNIST fit end to end with device="gpu" (the app's first view without the
drawing). Prints one line per measurement."""

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from sklearn.datasets import make_blobs  # noqa: E402

from metriclab.datasets import load  # noqa: E402
from metriclab.evaluation import labeled_mask, partial_labels  # noqa: E402
from metriclab.graphs import brute_force_neighbors  # noqa: E402
from metriclab.methods.spectral import TDL, LaplacianEigenmaps  # noqa: E402


def t(step):
    s = time.perf_counter()
    v = step()
    return time.perf_counter() - s, v


def lambda_part():
    """A λ move on all of MNIST on the GPU, its parts timed: S rebuilt on the host, the solve
    warm-started at the default tolerance and at tol = 1e-10 (the issue's prototype: 3e-10)."""
    from metriclab.eigen import smallest_eigenpairs
    from metriclab.graphs import degrees, neighbour_graph
    from metriclab.methods.spectral import (
        cost_laplacian,
        cost_lower_bound,
        cost_matrix,
        penalized_problem,
    )

    digits = load("mnist")
    X, y = digits.X, digits.y
    distances, indices = brute_force_neighbors(X, 20, device="gpu")
    W, _ = neighbour_graph(distances, indices)
    labels = partial_labels(y, labeled_mask(y, fraction=0.05, seed=0))
    C = cost_matrix(X, labels, 20)
    C_prime, d = cost_laplacian(C), degrees(W)

    def problem(lam):
        S, scale, trivial = penalized_problem(C_prime, W, d, lam, "unnormalized")
        return S, trivial, cost_lower_bound(C, scale)

    tb, (S, trivial, lower) = t(lambda: problem(128.0))
    tc, cold = t(lambda: smallest_eigenpairs(S, 60, trivial, "subspace", lower=lower, device="gpu"))
    print(f"lambda 128 cold: build S {tb:.2f} s, solve {tc:.2f} s, residual {cold.residual:.0e}")
    previous = cold
    for lam in (64.0, 32.0):
        tb, (S, trivial, lower) = t(lambda lam=lam: problem(lam))
        for tol in (0.0, 1e-10):
            ts, found = t(
                lambda S=S, tr=trivial, lo=lower, tol=tol, v=previous.vectors: smallest_eigenpairs(
                    S, 60, tr, "subspace", tol=tol, lower=lo, start=v, device="gpu"
                )
            )
            ref = smallest_eigenpairs(S, 60, trivial, "subspace", lower=lower, device="gpu")
            gap = float(np.abs(found.values - ref.values).max())
            print(
                f"move to {lam:g}: build S {tb:.2f} s, warm solve tol={tol:g} {ts:.2f} s "
                f"(residual {found.residual:.0e}, max dlambda vs cold {gap:.0e})"
            )
        previous = found


def main():
    if "--lambda-move" in sys.argv:
        lambda_part()
        return
    for part in (graph_part, mnist_part):
        try:
            part()
        except Exception as e:  # noqa: BLE001
            print(part.__name__, "failed:", type(e).__name__, e)


def graph_part():
    import cupy

    try:
        import torch  # noqa: F401

        print("torch", torch.__version__, torch.cuda.is_available())
    except Exception as e:  # noqa: BLE001
        print("torch: not available", type(e).__name__)
    X, _ = make_blobs(
        1_000_000, n_features=10, centers=6, cluster_std=1.0, center_box=(-4.0, 4.0), random_state=0
    )
    q = np.random.default_rng(0).choice(X.shape[0], 2000, replace=False)
    _, exact = brute_force_neighbors(X, 11, query=X[q], device="gpu")  # includes self
    from cupyx.scipy.spatial import KDTree

    Xg = cupy.asarray(X)
    KDTree(Xg[:20000]).query(Xg[:100], k=11)
    cupy.cuda.Device().synchronize()
    tb, tree = t(lambda: KDTree(Xg))

    def query():
        d, i = tree.query(Xg, k=11)
        cupy.cuda.Device().synchronize()
        return cupy.asnumpy(i)

    tq, idx = t(query)
    rec = np.mean([np.intersect1d(idx[q[r]], exact[r]).size / 11 for r in range(len(q))])
    print(f"KDTree 10^6 x 10-D k=10: build {tb:.2f} s, query {tq:.2f} s, recall vs exact {rec:.4f}")
    Xf = X.astype(np.float32)
    tf, _ = t(lambda: brute_force_neighbors(Xf[:200_000], 10, device="gpu"))
    print(f"brute force float32, 2e5 points: {tf:.2f} s")


def mnist_part():
    digits = load("mnist")
    Xm, ym = digits.X, digits.y
    mask = labeled_mask(ym, fraction=0.05, seed=0)
    yp = partial_labels(ym, mask)
    for dev in ("gpu", "cpu"):
        est = TDL(n_components=60, lam=128, k=20, n_neighbors=20, device=dev)
        tt, _ = t(lambda e=est: e.fit(Xm, yp))
        print(f"TDL MNIST 70,000 end to end device={dev}: {tt:.2f} s (device_={est.device_})")
        est.set_params(lam=64)
        tl, _ = t(lambda e=est: e.fit(Xm, yp))
        print(f"  refit lam=64 (no stored graph): {tl:.2f} s")
        if dev == "cpu":
            break
    le = LaplacianEigenmaps(n_components=60, n_neighbors=20, device="gpu")
    tle, _ = t(lambda: le.fit(Xm))
    print(f"LE MNIST device=gpu end to end: {tle:.2f} s")


if __name__ == "__main__":
    main()
