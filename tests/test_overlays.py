"""What the input view draws: the projection, the kNN graph's edges, the balls of a learned metric
(exact for a linear map), LMNN's impostors, nearest neighbours, and a fit on hand-made labels."""

import numpy as np
import pytest
import scipy.sparse as sp

from metriclab import datasets
from metriclab.methods import REGISTRY
from metriclab.ui.embed import overlays
from tests.apptest_helpers import fit_request


def test_projection_keeps_2d_data_and_projects_on_principal_components():
    rng = np.random.default_rng(0)
    X2 = rng.normal(size=(50, 2)) + 5
    p = overlays.input_projection(X2)
    assert not p.projected
    np.testing.assert_array_equal(p.coords(X2), X2)  # as they are
    X = rng.normal(size=(80, 5)) * [5, 3, 1, 0.1, 0.1]
    p = overlays.input_projection(X)
    assert p.projected
    U = p.coords(X)
    np.testing.assert_allclose(p.basis.T @ p.basis, np.eye(2), atol=1e-12)
    assert U[:, 0].var() >= U[:, 1].var() >= np.var(X @ np.linalg.svd(X - X.mean(0))[2][2])
    np.testing.assert_allclose(p.coords(p.lift(U)), U, atol=1e-10)  # lift stays on the plane


def test_graph_edges_are_the_upper_triangle_binned_by_weight():
    W = sp.csr_matrix(np.array([[0, 1.0, 0.1], [1.0, 0, 0.6], [0.1, 0.6, 0]]))
    coords = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    edges = overlays.graph_edges(W, coords, levels=4)
    n_segments = sum(int(np.isnan(xs).sum()) for _, xs, _ in edges)
    assert n_segments == 3  # each undirected edge once
    opacities = [o for o, _, _ in edges]
    assert opacities == sorted(opacities)  # heavier weight, darker
    heaviest = edges[-1]
    assert list(heaviest[1][:2]) == [0.0, 1.0] and list(heaviest[2][:2]) == [0.0, 0.0]


def test_balls_of_a_linear_metric_are_its_exact_unit_balls():
    L = np.array([[2.0, 0.5], [0.0, 0.5]])
    rng = np.random.default_rng(1)
    coords = rng.normal(size=(40, 2))
    projection = overlays.input_projection(coords)
    balls = overlays.metric_balls(lambda X: X @ L.T, projection, coords, n_grid=3)
    xs, ys = balls.xs, balls.ys
    assert balls.cut_xs.size == 0 and not balls.degenerate
    pts = np.column_stack([xs, ys])
    starts = np.concatenate([[0], np.flatnonzero(np.isnan(xs))[:-1] + 1])
    for start, centre in zip(starts, balls.centres, strict=True):
        ring = pts[start : start + overlays.ELLIPSE_POINTS]
        distances = np.linalg.norm((ring - centre) @ L.T, axis=1)
        np.testing.assert_allclose(distances, balls.radius, rtol=1e-6)  # d_M(c, u) = r exactly


def test_balls_in_a_projected_view_are_sections_by_the_plane():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 4)) * [3, 2, 1, 1]
    L = rng.normal(size=(2, 4))
    projection = overlays.input_projection(X)
    coords = projection.coords(X)
    balls = overlays.metric_balls(lambda Z: Z @ L.T, projection, coords, n_grid=2)
    assert balls.cut_xs.size == 0  # a linear metric: one shape everywhere, none cut
    ring = np.column_stack([balls.xs, balls.ys])[: overlays.ELLIPSE_POINTS]
    lifted = projection.lift(ring) - projection.lift(balls.centres[:1])
    np.testing.assert_allclose(np.linalg.norm(lifted @ L.T, axis=1), balls.radius, rtol=1e-6)


def test_a_rank_one_metric_is_degenerate_and_its_balls_are_cut():
    L = np.array([[1.0, 1.0]])
    coords = np.random.default_rng(3).normal(size=(30, 2))
    balls = overlays.metric_balls(
        lambda X: X @ L.T, overlays.input_projection(coords), coords, n_grid=2
    )
    assert balls.degenerate and balls.cut_xs.size > 0 and balls.xs.size == 0


def test_lmnn_impostors_follow_the_hinge():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.5], [5.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    targets = np.array([[1], [0], [3], [2]])
    # before (L = I): point 0's target is at distance² 1, so the margin reaches distance² 2:
    # point 2 (distance² 2.25) is outside, with L shrinking y by 0.5 it is inside (0.5625 < 2)
    found = overlays.lmnn_neighbourhoods(X, y, targets, np.diag([1.0, 0.5]))
    t, before, after = found[0]
    assert list(t) == [1] and list(before) == [] and list(after) == [2]
    found = overlays.lmnn_neighbourhoods(X, y, targets, np.eye(2))
    assert list(found[0][2]) == []


def test_nearest_neighbours_leave_the_point_out():
    Z = np.array([[0.0], [1.0], [3.0], [0.5]])
    idx, dist = overlays.nearest_neighbours(Z, 0, 2)
    assert list(idx) == [3, 1] and list(dist) == [0.5, 1.0]


@pytest.mark.parametrize("method", ["tdl", "le", "nca", "lmnn", "dne"])
def test_fit_on_hand_labels(method):
    ds = datasets.load("two_moons")
    labels = np.full(ds.n_samples, -1)
    first = [int(np.flatnonzero(ds.y == c)[i]) for c in (0, 1) for i in range(5)]
    labels[first] = ds.y[first]
    overlay = {"tdl": "graph", "le": "graph", "lmnn": "impostors"}.get(method, "balls")
    view = overlays.fit_on_labels(ds, labels, fit_request("two_moons", method), overlay)
    assert view.error is None and view.Z.shape[0] == ds.n_samples
    assert 0.5 <= view.accuracy <= 1.0
    if overlay == "graph":
        assert view.edges
    if overlay == "balls":
        assert view.balls is not None and view.balls.centres.shape == (36, 2)
    if overlay == "impostors":
        assert set(view.lmnn) == set(first)  # neighbourhoods of the labeled points
    # a wrong class on a labeled point changes what a label-using method is given
    flipped = labels.copy()
    flipped[first[:3]] = 1
    other = overlays.fit_on_labels(ds, flipped, fit_request("two_moons", method), "none")
    if REGISTRY[method].needs_labels:
        assert not np.allclose(np.abs(other.Z), np.abs(view.Z))
    else:
        np.testing.assert_allclose(other.Z, view.Z)


def test_tdl_with_one_class_reports_why_instead_of_raising():
    ds = datasets.load("two_moons")
    labels = np.full(ds.n_samples, -1)
    labels[:3] = 0
    view = overlays.fit_on_labels(ds, labels, fit_request("two_moons", "tdl"), "graph")
    assert view.Z is None and "class" in view.error


def test_neighbour_distances_are_told_apart():
    from metriclab.ui.embed.overlays import distance_labels

    assert distance_labels([1093.41, 1097.2, 1101.5, 1101.9]) == [
        "1,093.4",
        "1,097.2",
        "1,101.5",
        "1,101.9",
    ]
    assert distance_labels([0.5, 0.5, 0.7]) == ["0.5", "0.5", "0.7"]
