"""Zhang's out-of-sample expansion at its defaults does not collapse unseen points, on every shipped
data set, and classifies them about as well as classical MDS of the inputs does."""

import numpy as np
import pytest
from sklearn.metrics import pairwise_distances

from metriclab import datasets
from metriclab.evaluation import embedding_accuracy, labeled_mask
from metriclab.kernels import class_mean_width
from metriclab.methods.zhang import DiscriminantKernelMDS, classical_mds
from metriclab.ui.shared.compute import distinct_positions, subsample_indices


def _split(name):
    ds = datasets.load(name)
    keep = subsample_indices(ds.y, 1000, seed=0)  # what the Embed page uses on large sets
    X, y = ds.X[keep], ds.y[keep]
    return X, y, labeled_mask(y, fraction=0.1, seed=0)


@pytest.fixture(scope="module")
def scores():
    """(expansion accuracy, classical-MDS accuracy, distinct share) per shipped data set: fit on
    10 % labeled, map every point with transform (as the pages do), 1-NN on the unlabeled."""
    out = {}
    for name in datasets.names():
        X, y, mask = _split(name)
        model = DiscriminantKernelMDS(n_components=2, random_state=0).fit(X[mask], y[mask])
        Z = model.transform(X)
        reference, _ = classical_mds(pairwise_distances(X), 2)  # same points, same dimension
        out[name] = (
            embedding_accuracy(Z, y, mask),
            embedding_accuracy(reference, y, mask),
            distinct_positions(Z[~mask]) / distinct_positions(X[~mask]),  # inputs may repeat
        )
    return out


def test_unseen_points_do_not_collapse_on_any_shipped_data_set(scores):
    collapsed = {n: s[2] for n, s in scores.items() if s[2] < 0.9}
    assert not collapsed, collapsed  # before: usps 5 positions for 899 points, mnist 1


def test_expansion_accuracy_is_near_classical_mds_on_the_same_points(scores):
    gaps = {n: round(acc - ref, 3) for n, (acc, ref, _) in scores.items()}
    assert min(gaps.values()) >= -0.15, gaps  # before: usps -0.31, satellite -0.35, digits -0.37
    assert np.mean(list(gaps.values())) >= -0.03, gaps


def test_basis_width_scales_with_the_data_and_the_papers_beta_stays_available():
    X, y, mask = _split("usps")
    model = DiscriminantKernelMDS(n_components=2, random_state=0).fit(X[mask], y[mask])
    d2 = ((X[mask][:, None, :] - model.centres_[None, :, :]) ** 2).sum(-1)
    assert model.basis_width_ == pytest.approx(np.median(d2))
    # the paper's width (a distance, Sect. 5) against squared distances in 256-D: the collapse
    beta = class_mean_width(X[mask], y[mask])
    paper = DiscriminantKernelMDS(n_components=2, random_state=0, basis_width=beta)
    Z = paper.fit(X[mask], y[mask]).transform(X[~mask])
    assert distinct_positions(Z) < 0.1 * Z.shape[0]
