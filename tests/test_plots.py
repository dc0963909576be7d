"""Figure builders: pure functions of arrays, checked on small known inputs."""

import json
import re

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
from scipy.stats import ortho_group

from metriclab import plots
from metriclab.plots import panels as panel_plots


def _points(fig, name_filter=None):
    """All (x, y) points of the scatter traces of a figure."""
    xs, ys = [], []
    for trace in fig.data:
        if (
            trace.type == "scatter"
            and trace.customdata is not None
            and (name_filter is None or name_filter(trace.name))
        ):
            xs.extend(trace.x)
            ys.extend(trace.y)
    return np.array(xs), np.array(ys)


def test_align_to_undoes_a_rotation_and_reflection():
    rng = np.random.default_rng(0)
    reference = rng.standard_normal((50, 3))
    R = ortho_group.rvs(3, random_state=1)
    R[:, 0] *= -1  # include a reflection
    np.testing.assert_allclose(plots.align_to(reference @ R, reference), reference, atol=1e-10)


def test_the_same_embedding_again_is_drawn_bit_for_bit():
    """A rerun that changed nothing must send the identical figure: Streamlit ties a chart's
    click selection to the figure's content, and a last-bit Procrustes jitter dropped the click."""
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(500, 2))
    R = np.array([[0.6, -0.8], [0.8, 0.6]])
    first = plots.align_to(Z, Z @ R)  # a real rotation: aligned, not the reference
    assert not np.array_equal(first, Z)
    again = plots.align_to(Z, first)
    assert again is first or np.array_equal(again, first)
    moved = plots.align_to(Z + 0.01 * rng.normal(size=Z.shape), first)  # a real change is drawn
    assert not np.array_equal(moved, first)


def test_align_to_flips_the_sign_of_a_1d_embedding_and_keeps_shape_mismatches():
    z = np.linspace(-1, 1, 20)[:, None]
    np.testing.assert_allclose(plots.align_to(-z, z), z)
    other = np.ones((10, 2))
    assert plots.align_to(other, z) is other or np.array_equal(plots.align_to(other, z), other)
    assert np.array_equal(plots.align_to(z, None), z)


def test_normalize_embedding_centres_and_scales_to_unit_rms():
    rng = np.random.default_rng(2)
    Z = 7.0 * rng.standard_normal((40, 2)) + 3.0
    N = plots.normalize_embedding(Z)
    np.testing.assert_allclose(N.mean(axis=0), 0, atol=1e-12)
    assert np.sqrt(np.mean(np.sum(N**2, axis=1))) == pytest.approx(1.0)
    np.testing.assert_allclose(plots.normalize_embedding(5 * Z), N)  # scale invariant
    assert plots.normalize_embedding(np.zeros(5)).shape == (5, 1)


def test_ranges_pad_and_only_grow():
    assert plots.padded_range(np.array([0.0, 10.0]), pad=0.1) == pytest.approx((-1.0, 11.0))
    assert plots.padded_range(np.array([2.0, 2.0]), pad=0.5) == pytest.approx((1.5, 2.5))
    assert plots.merge_ranges(None, (0, 1)) == (0, 1)
    assert plots.merge_ranges((0, 1), (-1, 0.5)) == (-1, 1)


def test_embedding_scatter_traces_hover_and_labeled_markers():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((30, 2))
    y = np.repeat([0, 1, 2], 10)
    labeled = np.zeros(30, bool)
    labeled[[0, 10, 20, 21]] = True
    fig = plots.embedding_scatter(Z, y, labeled, ["a", "b", "c"], x_range=(-5, 5), y_range=(-4, 4))
    assert len(fig.data) == 7  # unlabeled + labeled trace per class, and the diamonds' key
    legend = [t.name for t in fig.data if t.showlegend is not False]
    assert legend == ["a", "b", "c", "labeled points"]  # each class once (was twice)
    assert fig.layout.yaxis.scaleanchor == "x" and fig.layout.yaxis.scaleratio == 1
    x, yy = _points(fig)
    assert sorted(x) == sorted(Z[:, 0]) and sorted(yy) == sorted(Z[:, 1])
    lab_x, _ = _points(fig, lambda n: "(labeled)" in n)
    assert sorted(lab_x) == sorted(Z[labeled, 0])
    # hover carries the point's index and class name
    for trace in fig.data:
        for (index, name), px in zip(trace.customdata or (), trace.x, strict=False):
            assert Z[int(index), 0] == px
            assert name == ["a", "b", "c"][y[int(index)]]
    assert list(fig.layout.xaxis.range) == [-5, 5] and list(fig.layout.yaxis.range) == [-4, 4]


def test_one_dimensional_embedding_is_a_strip_with_one_row_per_class():
    Z = np.arange(12.0)[:, None]
    y = np.repeat([0, 1], 6)
    fig = plots.embedding_scatter(Z, y, target_names=["u", "l"])
    for trace in fig.data:
        if len(trace.y):
            c = 0 if trace.name.startswith("u") else 1
            assert np.all(np.abs(np.asarray(trace.y) - c) <= 0.15)
    assert list(fig.layout.yaxis.ticktext) == ["u", "l"]


def test_animation_has_one_aligned_frame_per_value_on_fixed_axes():
    rng = np.random.default_rng(4)
    base = rng.standard_normal((25, 2))
    y = np.arange(25) % 2
    frames = [base, -base, base @ np.array([[0.0, 1.0], [-1.0, 0.0]])]  # flips and rotations
    fig = plots.embedding_animation(frames, ["1", "2", "4"], y)
    assert [f.name for f in fig.frames] == ["1", "2", "4"]
    assert len(fig.layout.sliders[0].steps) == 3
    first = np.concatenate([np.asarray(t.x) for t in fig.frames[0].data])
    for frame in fig.frames[1:]:  # aligned by Procrustes, so every frame shows the same picture
        np.testing.assert_allclose(
            np.concatenate([np.asarray(t.x) for t in frame.data]), first, atol=1e-9
        )
    lo, hi = fig.layout.xaxis.range
    assert lo <= first.min() and hi >= first.max()
    with pytest.raises(ValueError):
        plots.embedding_animation([], [], y)
    opened = plots.embedding_animation(frames, ["1", "2", "4"], y, active=2)
    assert opened.layout.sliders[0].active == 2
    shown = np.concatenate([np.asarray(t.x) for t in opened.data])
    np.testing.assert_allclose(
        shown, np.concatenate([np.asarray(t.x) for t in opened.frames[2].data])
    )


def test_pca_2d_orders_components_by_variance():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((200, 4)) * np.array([0.1, 5.0, 1.0, 0.2])
    P = plots.pca_2d(X)
    assert P.shape == (200, 2)
    assert P[:, 0].var() > P[:, 1].var() > 0.5
    np.testing.assert_allclose(np.abs(np.corrcoef(P[:, 0], X[:, 1])[0, 1]), 1.0, atol=1e-3)


def test_image_grid_tiles_images_and_signed_images_are_symmetric():
    images = np.arange(4 * 6, dtype=float).reshape(4, 6)
    fig = plots.image_grid(images, (2, 3), titles=list("abcd"), n_cols=2)
    z = np.asarray(fig.data[0].z, dtype=float)
    assert z.shape == (2 * 2 + 1, 2 * 3 + 1)
    assert np.nanmin(z) == 0 and np.nanmax(z) == 1
    assert len(fig.layout.annotations) == 4
    # one row: titles are top-axis tick labels centred on each image (plotly makes room for them)
    row = plots.image_grid(images, (2, 3), titles=["a<br>b", "c", "d", "e"], n_cols=4)
    assert list(row.layout.xaxis.ticktext) == ["a<br>b", "c", "d", "e"]
    assert (
        list(row.layout.xaxis.tickvals) == [1.0, 5.0, 9.0, 13.0] and row.layout.xaxis.side == "top"
    )
    signed = plots.image_grid(np.array([[-2.0, 1.0, 0.0, 0.5]]), (2, 2), signed=True)
    assert np.nanmin(np.asarray(signed.data[0].z, dtype=float)) == -1
    with pytest.raises(ValueError):
        plots.image_grid(np.zeros((0, 4)), (2, 2))


def test_matrix_heatmap_sorts_rows_and_columns_by_class():
    y = np.array([1, 0, 1, 0])
    M = np.arange(16.0).reshape(4, 4)
    fig = plots.matrix_heatmap(M, y)
    order = [1, 3, 0, 2]
    np.testing.assert_array_equal(np.asarray(fig.data[0].z), M[np.ix_(order, order)])
    assert len(fig.layout.shapes) == 2  # one class boundary: a horizontal and a vertical line
    with pytest.raises(ValueError, match="does not match"):
        plots.matrix_heatmap(M, y[:3])


def test_matrix_heatmap_accepts_sparse_and_subsamples_large_matrices():
    from scipy.sparse import identity

    y = np.arange(600) % 3
    fig = plots.matrix_heatmap(identity(600, format="csr"), y, max_size=100)
    assert np.asarray(fig.data[0].z).shape == (100, 100)


def test_window_map_colours_the_difference_on_a_scale_centred_at_zero():
    acc = np.array([[0.5, 0.7], [0.9, 0.6]])
    fig = plots.window_map([1, 16], [0.1, 1.0], acc, baseline_accuracy=0.65)
    heat = fig.data[0]
    np.testing.assert_allclose(np.asarray(heat.z), acc - 0.65)  # the difference, not raw accuracy
    assert heat.zmid == 0.0 and heat.zmin == -heat.zmax == pytest.approx(-0.25)
    # a baseline per cell (e.g. LE at each width)
    per_cell = np.array([[0.6, 0.6], [0.6, 0.7]])
    fig = plots.window_map([1, 16], [0.1, 1.0], acc, per_cell)
    np.testing.assert_allclose(np.asarray(fig.data[0].z), acc - per_cell)
    with pytest.raises(ValueError):
        plots.window_map([1], [0.1, 1.0], acc, 0.5)


def test_window_map_places_cells_at_their_values_on_an_honest_log_axis():
    rows = [1.0, 2.0, 16.0, 1024.0]  # unevenly spaced in log, as the grid with a shared λ is
    fig = plots.window_map(rows, [0.1, 1.0], np.full((4, 2), 0.5), 0.4)
    heat = fig.data[0]
    edges = np.asarray(heat.y, dtype=float)
    assert edges.shape == (5,)  # cell edges, so every cell spans its own stretch of the axis
    assert edges[1] == pytest.approx(np.sqrt(2.0)) and edges[2] == pytest.approx(np.sqrt(32.0))
    assert fig.layout.yaxis.type == "log" and "log" in fig.layout.yaxis.title.text
    linear = plots.window_map([1, 2, 3], [5, 10], np.zeros((3, 2)), 0.0, row_log=False)
    assert linear.layout.yaxis.type == "linear"
    np.testing.assert_allclose(np.asarray(linear.data[0].y, float), [0.5, 1.5, 2.5, 3.5])


def test_window_map_tie_line_runs_along_the_cells_where_the_method_wins():
    acc = np.array([[0.5, 0.7], [0.9, 0.6]])  # wins (baseline 0.65) at (0, 1) and (1, 0)
    fig = plots.window_map([1.0, 4.0], [1.0, 4.0], acc, 0.65)
    line = next(t for t in fig.data if t.type == "scatter" and t.mode == "lines")
    xs, ys = list(line.x), list(line.y)
    segments = [
        ((xs[i], ys[i]), (xs[i + 1], ys[i + 1])) for i in range(0, len(xs), 3)
    ]  # each side is two points and a break
    assert len(segments) == 4  # a checkerboard: every inner side separates a win from a loss
    coordinates = {round(float(p), 9) for seg in segments for pt in seg for p in pt}
    assert coordinates == {0.5, 2.0, 8.0}  # geometric midpoint 2 between 1 and 4, outer edges
    # no win anywhere: no line
    no_win = plots.window_map([1, 4], [1, 4], acc, 0.95).data
    assert not [t for t in no_win if t.type == "scatter" and t.mode == "lines"]


def test_spectrum_is_the_validated_figure_built_fast():
    """The spectrum skips plotly's validation (it is redrawn on every Embed slider move); it must
    serialise to exactly the figure the validating constructor gives."""
    import plotly.graph_objects as go
    import plotly.io as pio

    for ev, n_used, title in [
        (np.linspace(-1, 2, 30), 4, "Eigenvalue spectrum"),
        ([3.0], None, None),
    ]:
        values = np.ravel(np.asarray(ev, dtype=np.float64))
        colors = [
            "#1f77b4" if n_used is None or i < n_used else "#c7c7c7" for i in range(len(values))
        ]
        slow = go.Figure(go.Bar(x=np.arange(1, len(values) + 1), y=values, marker_color=colors))
        slow.update_xaxes(
            title="index", tickmode="linear", tick0=1, dtick=max(1, -(-len(values) // 12)),
            tickformat="d",
        )  # fmt: skip
        slow.update_yaxes(title="eigenvalue")
        slow.update_layout(
            title=plots.titled(title) or None,  # under the toolbar row
            height=280,
            margin=dict(l=40, r=20, t=plots.top_margin(title), b=40),
            legend=dict(itemsizing="constant"),
        )
        fast = plots.spectrum(ev, title=title, n_used=n_used)
        assert json.loads(pio.to_json(fast)) == json.loads(pio.to_json(slow))


def test_spectrum_and_curves_and_weights():
    fig = plots.spectrum(np.array([0.0, 0.1, 0.5, 2.0]), n_used=2)
    assert list(fig.data[0].y) == [0.0, 0.1, 0.5, 2.0]
    assert fig.data[0].marker.color[1] != fig.data[0].marker.color[2]
    assert list(plots.line_curve([3, 2, 1], "stress").data[0].y) == [3, 2, 1]
    assert list(plots.weights_bar([0.5, 1], [0.2, 0.8]).data[0].x) == ["0.5", "1"]


def test_comparison_figures_have_error_bars_and_one_trace_per_method():
    summary = pd.DataFrame(
        {
            "dataset": ["iris", "iris", "wine"],
            "method": ["a", "b", "a"],
            "mean": [0.9, 0.8, 0.7],
            "std": [0.01, 0.02, np.nan],
        }
    )
    fig = plots.comparison_chart(summary)
    assert [t.name for t in fig.data] == ["a", "b"]
    assert list(fig.data[0].error_y.array) == [0.01, 0.0]
    per_split = pd.DataFrame(
        {"dataset": ["iris"] * 4, "label": ["a", "a", "b", "b"], "accuracy": [0.9, 0.8, 0.7, 0.6]}
    )
    assert len(plots.comparison_boxes(per_split).data) == 2


def test_paper_vs_ours_puts_both_numbers_side_by_side():
    table = pd.DataFrame(
        {
            "setting": ["wine"],
            "method": ["TDL"],
            "metric": ["error %"],
            "paper": [5.0],
            "ours_mean": [4.0],
            "ours_std": [1.0],
        }
    )
    fig = plots.paper_vs_ours(table)
    assert [t.name for t in fig.data] == ["paper", "ours"]
    assert fig.data[0].y[0] == 5.0 and fig.data[1].y[0] == 4.0


# issue 36: every picture tells the truth ------------------------------------------------------------


def test_a_coordinate_held_by_a_few_points_is_found_and_a_cloud_has_none():
    rng = np.random.default_rng(0)
    assert plots.coordinate_carriers(rng.normal(size=(500, 2))) == []
    assert (
        plots.coordinate_carriers(np.r_[rng.normal(size=(250, 2)), rng.normal(size=(250, 2)) + 9])
        == []
    )
    Z = rng.normal(scale=1e-3, size=(300, 2))  # a localised eigenvector: the rest is tiny
    Z[7, 0], Z[11, 1], Z[12, 1] = 40.0, -9.0, 6.0
    found = {c.axis: c for c in plots.coordinate_carriers(Z)}
    assert list(found[0].index) == [7] and found[0].share > 0.99
    assert set(found[1].index) == {11, 12}
    # an ordinary point is never named, however small the spread of the rest
    assert not {int(i) for c in found.values() for i in c.index} - {7, 11, 12}
    lo, hi = plots.bulk_range(Z, list(found.values()), 0)
    assert lo < Z[found[0].rest, 0].min() and hi > Z[found[0].rest, 0].max() and hi < 1


def test_a_point_set_apart_carries_a_coordinate_and_a_long_tail_does_not():
    """TDL on Iris with nine in ten labelled: point 41 at 8.2, the other 149 within 0.5. It holds
    87 % of the squared spread, short of 90 %, and the picture was a band at the chart's bottom;
    it stands 16 times farther out than any other point. A lognormal sample's largest values hold
    as much, but each only a little farther out than the next."""
    rng = np.random.default_rng(2)
    Z = rng.normal(scale=0.27, size=(150, 2))
    Z[41, 1] = 8.2
    found = plots.coordinate_carriers(Z)
    assert [(c.axis, c.index.tolist()) for c in found] == [(1, [41])]
    assert 0.75 < found[0].share < 0.9
    tails = [plots.coordinate_carriers(rng.lognormal(size=(150, 2))) for _ in range(100)]
    assert sum(bool(t) for t in tails) <= 8  # as under the share rule alone (4 of 300 there)


def test_a_bulk_at_one_position_is_not_framed():
    """The others at one position (a spread under a millionth of the coordinate's, the collapse
    check's tolerance): the frame is the whole coordinate's, not a window on rounding."""
    rng = np.random.default_rng(0)
    Z = np.full((300, 2), -0.0998) + rng.normal(scale=1e-12, size=(300, 2))
    Z[:10, 0] = 5.0
    Z[10:14, 1] = 5.0
    found = {c.axis: c for c in plots.coordinate_carriers(Z)}
    assert found[0].bulk_at_one_position(Z) and found[1].bulk_at_one_position(Z)
    for axis in (0, 1):
        assert plots.bulk_range(Z, list(found.values()), axis) == plots.padded_range(Z[:, axis])
    Z[10:, 0] += rng.normal(scale=1e-3, size=290)  # a real spread: framed as before
    found = {c.axis: c for c in plots.coordinate_carriers(Z)}
    assert not found[0].bulk_at_one_position(Z)
    assert plots.bulk_range(Z, [found[0]], 0)[1] < 1


def _carriers_by_full_sort(Z, share=plots.base.CARRIED_SHARE, few=plots.base.FEW_POINTS, rounds=4):
    """`coordinate_carriers` as it was, every coordinate sorted in full: the reference."""
    n = Z.shape[0]
    limit, found = max(1, int(few * n)), []
    for axis in range(Z.shape[1]):
        z = Z[:, axis]
        rest, carried = np.arange(n), []
        for _ in range(rounds):
            d2 = (z[rest] - np.median(z[rest])) ** 2
            energy = d2.sum()
            if not energy > 0:
                break
            order = np.argsort(-d2, kind="stable")
            held = np.cumsum(d2[order]) / energy
            m = int(np.searchsorted(held, share)) + 1
            if len(carried) + m > limit:  # or the fewest that hold less and stand apart
                gap = plots.base.CARRIER_GAP**2
                apart = [
                    j + 1
                    for j in range(min(limit - len(carried), n - 1))
                    if held[j] >= plots.base.GAPPED_SHARE
                    and j + 1 < order.size
                    and d2[order[j]] >= gap * d2[order[j + 1]]
                ]
                if not apart:
                    break
                m = apart[0]
            carried += rest[order[:m]].tolist()
            rest = np.setdiff1d(rest, rest[order[:m]])
        if carried:
            found.append((axis, carried))
    return found


def test_coordinate_carriers_equal_the_full_sort_also_with_ties():
    """The carriers are found from the largest deviations only (a partial sort: 8 full sorts of
    70,000 coordinates on every λ move before), with the same points in the same order."""
    rng = np.random.default_rng(5)
    cases = [rng.normal(size=(2000, 2))]
    for outliers in (1, 3, 15, 40):
        Z = rng.normal(scale=1e-3, size=(3000, 2))
        Z[rng.choice(3000, outliers, replace=False), rng.integers(0, 2, outliers)] = rng.choice(
            [-50.0, 20.0, 20.0, 7.0], outliers
        )  # equal deviations: ties at the cut
        cases.append(Z)
    tied = np.zeros((1000, 2))
    tied[:4, 0] = [5.0, -5.0, 5.0, -5.0]  # four equal deviations, more than the room for them
    tied[:12, 1] = 3.0
    cases.append(tied)
    for Z in cases:
        ours = [(c.axis, c.index.tolist()) for c in plots.coordinate_carriers(Z)]
        assert ours == _carriers_by_full_sort(Z)
    largest = plots.base._largest_first(np.array([1.0, 3.0, 3.0, 2.0, 3.0, 0.0]), 2)
    assert largest.tolist() == [1, 2]  # ties in index order, as a stable sort of all


def test_points_drawn_on_the_edge_are_their_own_trace_with_their_count():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(40, 2))
    y = np.arange(40) % 2
    edge = np.zeros(40, bool)
    edge[[3, 8]] = True
    fig = plots.embedding_scatter(Z, y, at_edge=edge, true_coords=Z * 10)
    (marked,) = [t for t in fig.data if t.name.startswith("drawn at the chart's edge")]
    assert marked.name.endswith("(2)") and len(marked.x) == 2
    assert sum(len(t.x) for t in fig.data if t is not marked) == 38  # not drawn twice


def test_points_outside_the_frame_are_drawn_on_the_edge_plotly_draws():
    """LE on iris: one point carries axis 2 and the other 149 lie within a band 0.15 high. The frame
    of that band was widened by plotly to fill the chart at equal scales, so the point "drawn at the
    chart's edge" sat 0.02 above the bulk in a chart reaching 0.6. The frame is now widened to the
    plot area's shape before the points are clipped to it, and plotly keeps it."""
    rng = np.random.default_rng(3)
    Z = np.column_stack([rng.uniform(-1, 1, 150), rng.uniform(-0.05, 0.05, 150)])
    Z[41, 1] = 8.6  # a localised eigenvector
    carried = plots.coordinate_carriers(Z)
    bulk = [plots.bulk_range(Z, carried, axis) for axis in range(2)]
    for aspect in (0.97, 1.03, 1.53, 1.98):
        (x0, x1), (y0, y1) = frame = plots.edge_frame(Z, bulk, aspect)
        assert (x1 - x0) / (y1 - y0) == pytest.approx(aspect)  # the plot area's shape
        assert x0 <= bulk[0][0] and bulk[0][1] <= x1 and y0 <= bulk[1][0] and bulk[1][1] <= y1
        shown = np.column_stack([np.clip(Z[:, a], *frame[a]) for a in range(2)])
        edge = np.any(shown != Z, axis=1)
        assert edge.tolist() == [i == 41 for i in range(150)] and shown[41, 1] == y1
        fig = plots.embedding_scatter(
            shown, np.arange(150) % 3, x_range=frame[0], y_range=frame[1], at_edge=edge,
            true_coords=Z,
        )  # fmt: skip
        # plotly keeps both ranges (the plot area shrinks instead of the frame growing) and draws
        # the triangle whole on the edge
        assert fig.layout.xaxis.constrain == fig.layout.yaxis.constrain == "domain"
        assert list(fig.layout.yaxis.range) == [y0, y1]
        (marked,) = [t for t in fig.data if t.name.startswith("drawn at the chart's edge")]
        assert marked.cliponaxis is False and list(marked.y) == [y1]
        assert list(marked.marker.symbol) == ["triangle-up-open"]  # it lies above
    # nothing outside: the frame is the bulk's, and plotly may fill the chart as before
    inside = plots.edge_frame(Z[np.arange(150) != 41], bulk, 1.03)
    assert inside == [tuple(r) for r in bulk]
    plain = plots.embedding_scatter(Z[:10], np.arange(10) % 2)
    assert plain.layout.xaxis.constrain is None


def test_a_point_drawn_on_the_edge_points_the_way_it_lies():
    shown = np.array([[0.0, 1.0], [0.0, -1.0], [1.0, 0.2], [-1.0, 0.0], [1.0, 1.0]])
    true = np.array([[0.1, 9.0], [0.0, -5.0], [7.0, 0.2], [-3.0, 0.5], [2.0, 8.0]])
    assert plots.embedding.edge_symbols(shown, true) == [
        "triangle-up-open",
        "triangle-down-open",
        "triangle-right-open",
        "triangle-left-open",
        "triangle-up-open",  # furthest out along y
    ]
    strip = np.array([[1.0, 0.1], [-1.0, 1.05]])  # a 1-D strip: x and the class row
    assert plots.embedding.edge_symbols(strip, np.array([[4.0], [-2.0]])) == [
        "triangle-right-open",
        "triangle-left-open",
    ]


def test_a_dense_sets_labelled_points_lie_beneath_small_and_in_one_legend_group():
    rng = np.random.default_rng(2)
    n = 3000
    labeled = np.zeros(n, bool)
    labeled[::10] = True
    fig = plots.embedding_scatter(rng.normal(size=(n, 2)), np.arange(n) % 3, labeled)
    names = [t.name for t in fig.data]
    first_unlabelled = min(i for i, name in enumerate(names) if "labeled" not in name)
    assert all("(labeled)" in name for name in names[:first_unlabelled])
    groups = {t.legendgroup for t in fig.data if "labeled" in t.name}
    assert len(groups) == 1
    sizes = {("(labeled)" in t.name): t.marker.size for t in fig.data if t.name != "labeled points"}
    assert sizes[True] <= sizes[False] + 1


def test_each_scrub_frame_is_framed_on_its_unlabelled_points_and_says_its_scale():
    rng = np.random.default_rng(3)
    labeled = np.zeros(60, bool)
    labeled[:6] = True
    wide = rng.normal(size=(60, 2))
    crowded = wide.copy()
    crowded[~labeled] *= 1e-4  # the unlabeled points on one spot, the labeled ones spread
    fig = plots.embedding_animation([wide, crowded], ["a", "b"], np.arange(60) % 2, labeled)
    for frame in fig.frames:
        lo, hi = frame.layout.xaxis.range
        xs = np.concatenate(
            [
                np.asarray(t.x)
                for t in frame.data
                if "labeled" not in t.name and "edge" not in t.name
            ]
        )
        assert np.ptp(xs) > 0.5 * (hi - lo)
        assert "axis 1 from" in frame.layout.title.text


def test_a_scrub_frame_frames_the_bulk_and_draws_a_carrier_on_the_drawn_edge():
    """LE on iris scrubbed through its graph neighbours: one unlabelled point carries axis 2 (at
    -8.6, the others within 0.15), so a frame of every unlabelled point put the other 134 in two
    dots; and plotly widened the frame at equal scales, so the title's scale was not the one
    drawn. Each frame is now the bulk's, in the plot area's shape, kept as it is."""
    rng = np.random.default_rng(4)
    labeled = np.zeros(150, bool)
    labeled[::10] = True
    Z = np.column_stack([rng.choice([-1.0, 1.0], 150) + rng.normal(0, 0.05, 150),
                         rng.normal(0, 0.05, 150)])  # fmt: skip
    Z[41] = [0.3, -8.6]  # unlabelled
    fig = plots.embedding_animation([Z, Z * 1.1], ["a", "b"], np.arange(150) % 3, labeled,
                                    aspect=1.3)  # fmt: skip
    assert fig.layout.xaxis.constrain == fig.layout.yaxis.constrain == "domain"
    for frame in fig.frames:
        (x0, x1), (y0, y1) = frame.layout.xaxis.range, frame.layout.yaxis.range
        assert (x1 - x0) / (y1 - y0) == pytest.approx(1.3)
        (edge,) = [t for t in frame.data if t.name.startswith("drawn at the chart's edge")]
        assert list(edge.customdata[0][:1]) == [41] and list(edge.y) == [y0]  # on the edge
        assert list(edge.marker.symbol) == ["triangle-down-open"]  # pointing where it lies
        assert "less 1 that carry a coordinate, 1 point(s) on the edge" in frame.layout.title.text
        assert f"axis 2 from {y0:.3g} to {y1:.3g}" in frame.layout.title.text
        xs = np.concatenate([np.asarray(t.x, dtype=float) for t in frame.data if t is not edge])
        assert np.ptp(xs[np.isfinite(xs)]) > 0.6 * (x1 - x0)  # the bulk fills the frame


def test_the_window_map_marks_settings_and_names_its_grid():
    fig = plots.window_map(
        [1.0, 16.0], [0.25, 1.0], np.zeros((2, 2)), 0.0,
        marks=[("the paper's setting", 0.25, 16.0, "star")],
    )  # fmt: skip
    names = [t.name for t in fig.data]
    assert "grid values" in names
    (paper,) = [t for t in fig.data if (t.name or "").startswith("the paper's setting")]
    assert (list(paper.x), list(paper.y)) == ([0.25], [16.0])


def test_image_grid_captions_are_level_and_readable():
    fig = plots.image_grid(
        np.random.default_rng(0).random((6, 4)), (2, 2), list("abcdef"), n_cols=6
    )
    assert fig.layout.xaxis.tickangle == 0 and fig.layout.xaxis.tickfont.size >= 12


def test_figure_titles_sit_under_the_toolbar_row():
    fig = plots.spectrum([1.0, 2.0], title="spectrum")
    assert fig.layout.title.yref == "container" and fig.layout.title.pad.t == plots.base.TOOLBAR_PX
    assert fig.layout.margin.t >= plots.base.TOOLBAR_PX + 20


def test_a_dense_sets_compact_class_is_drawn_last_and_named_as_crowded():
    rng = np.random.default_rng(5)
    Z = np.r_[rng.normal(size=(3000, 2)), rng.normal(scale=0.005, size=(1000, 2))]
    y = np.r_[np.arange(3000) % 2, np.full(1000, 2)]
    fig = plots.embedding_scatter(Z, y, target_names=["a", "b", "tight"])
    assert fig.data[-1].name == "tight"  # on top of the others
    assert fig.data[-1].legendrank == 1002  # the legend stays in class order
    found = plots.crowded_classes(Z, y, ["a", "b", "tight"], (-4, 4), (-4, 4))
    assert [name for name, *_ in found] == ["tight"] and found[0][1] == 1000


def _many_classes_figure(n_classes, names=None, title="an embedding"):
    rng = np.random.default_rng(0)
    y = np.arange(20 * n_classes) % n_classes
    Z = rng.normal(size=(y.size, 2)) + y[:, None]
    labeled = np.arange(y.size) % 7 == 0
    return plots.embedding_scatter(Z, y, labeled=labeled, target_names=names, title=title)


def _plot_height(fig):
    return fig.layout.height - fig.layout.margin.t - fig.layout.margin.b


def test_a_legend_that_does_not_fit_beside_the_plot_goes_under_it_in_rows():
    """Plotly scrolls a legend taller than the plot and hides its last entries: 15 soybean classes
    (and 10 digits with the labelled points' key at a projector's font) showed colours that nothing
    explained. Such a legend goes under the plot in rows, the figure taller by them, the plot the
    same size; a legend that fits stays beside the plot, untouched."""
    few = _many_classes_figure(3)
    assert few.layout.legend.orientation is None and few.layout.height == 460
    names = [f"a-longish-class-name-{c}" for c in range(15)]
    many = _many_classes_figure(15, names)
    assert many.layout.legend.orientation == "h" and many.layout.legend.yanchor == "top"
    assert many.layout.height > 460 and many.layout.legend.y < 0  # under the x axis
    base = plots.fit_legend(_many_classes_figure(3))  # again: nothing changes
    assert base.layout.height == 460
    again = plots.fit_legend(go.Figure(many))  # idempotent: the rows are not added twice
    assert again.layout.height == many.layout.height
    assert _plot_height(again) == _plot_height(few)  # the plot keeps its size
    # a projector's font: the digits' 11 entries no longer fit beside the plot, in rows there
    digits = _many_classes_figure(10)
    assert digits.layout.legend.orientation is None  # 12 px: they fit
    assert digits.layout.legend.maxheight > 11 * (1.25 * 12 + 14)  # beside, unscrolled
    big = plots.fit_legend(go.Figure(digits), font_size=20, width=1150, height=560)
    assert big.layout.legend.orientation == "h" and big.layout.height > 560
    assert big.layout.legend.font.size == 16  # smaller in rows, so that the screen holds them
    back = plots.fit_legend(go.Figure(big), font_size=12, width=560, height=460)
    assert back.layout.legend.orientation is None and back.layout.height == 460
    # rows as Plotly packs the entries: the ten digits and the key in one row on a projector
    one_row = plots.fit_legend(go.Figure(digits), font_size=20, width=1150, height=560)
    assert one_row.layout.height - 560 < 2 * (1.25 * 16 + 14) + 95


def test_under_puts_even_a_short_legend_in_rows_and_reserves_no_axis_room_an_axis_lacks():
    """A linked view's column is too narrow for a legend beside its plot: `under` puts even three
    classes in rows under it, the plot keeping its height; with the x axis's ticks and title off,
    no room is kept for them (the rows start under the plot)."""
    few = _many_classes_figure(3)
    few.update_layout(xaxis_showticklabels=False, xaxis_title_text=None, margin_b=10)
    plot = _plot_height(few)
    rows = plots.fit_legend(go.Figure(few), width=280, under=True)
    assert rows.layout.legend.orientation == "h" and rows.layout.legend.maxheight == 1
    assert _plot_height(rows) == plot and rows.layout.height > few.layout.height
    added = rows.layout.height - few.layout.height  # rows only: no 69 px for an axis's labels
    assert added < 3 * (1.25 * 12 + 14) + 11
    assert plots.height_without_rows(rows) == few.layout.height
    again = plots.fit_legend(go.Figure(rows), width=280, under=True)
    assert again.layout.height == rows.layout.height  # idempotent


def test_fifteen_classes_have_fifteen_colours():
    """Soybean's 15 classes: with ten colours five pairs of classes were drawn alike."""
    assert len({plots.class_color(c) for c in range(15)}) == 15
    assert len(set(plots.PALETTE)) == len(plots.PALETTE) == 18
    many = [plots.class_color(c) for c in range(60)]  # an upload's 60 classes: 60 colours
    assert len(set(many)) == 60 and all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in many)


def test_class_counts_are_horizontal_bars_with_wrapped_names_and_room_for_them():
    """Glass's class names as rotated x labels took two thirds of a 300-px chart and ran off it
    (the bars 60 px tall). The names are on the y axis now, wrapped, the chart taller per line."""
    counts = {"1 building windows, float processed": 70, "2 building windows, non-float": 76}
    fig = plots.class_counts_bar(counts)
    (bar,) = fig.data
    assert bar.orientation == "h" and list(bar.x) == [70, 76]
    assert [label.replace("<br>", " ") for label in bar.y] == list(counts)
    assert bar.y[0].count("<br>") == 2
    assert all(len(line) <= 18 for label in bar.y for line in label.split("<br>"))
    many = plots.class_counts_bar({f"class {i}": i + 1 for i in range(15)})
    assert many.layout.height > fig.layout.height >= 300  # room for every name
    assert list(many.data[0].marker.color) == [plots.class_color(i) for i in range(15)]


def test_a_class_whose_points_are_all_on_the_edge_keeps_its_legend_entry():
    """Plotly gives an empty trace no legend entry: a class whose points were all drawn on the
    chart's edge (or held out) lost its name while its colour was drawn."""
    rng = np.random.default_rng(0)
    y = np.arange(60) % 3
    Z = rng.normal(size=(60, 2))
    for labelled in (None, np.arange(60) % 5 == 0):
        fig = plots.embedding_scatter(Z, y, labelled, ["a", "b", "c"], at_edge=y == 2)
        (c,) = [t for t in fig.data if t.name == "c"]
        assert list(c.x) == [None] and c.showlegend is not False  # its entry, no point
        (a,) = [t for t in fig.data if t.name == "a"]
        assert len(a.x) > 1


def test_an_animations_legend_in_rows_lies_under_its_slider():
    """Soybean's scrub: the 15 classes' legend rows were drawn over the animation's slider and play
    button. The rows now start under the slider's band; few classes keep the legend beside."""
    rng = np.random.default_rng(0)
    y = np.arange(150) % 15
    frames = [rng.normal(size=(150, 2)) for _ in range(3)]
    names = [f"a-longish-class-name-{c}" for c in range(15)]
    fig = plots.embedding_animation(frames, ["1", "2", "4"], y, target_names=names, title="scrub")
    plot = 560 - fig.layout.margin.t - (fig.layout.margin.b - fig.layout.meta["legend_rows_px"])
    assert fig.layout.legend.orientation == "h" and fig.layout.height > 560
    assert -fig.layout.legend.y * plot >= 120  # px under the plot: the slider's band
    few = plots.embedding_animation(frames, ["1", "2", "4"], y % 3)
    assert few.layout.height == 560 and few.layout.legend.orientation is None


def test_a_views_frames_grow_with_the_bulk_and_are_kept_apart_from_every_points():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 2))
    Z[7] = [0.0, 50.0]  # carries axis 2
    kept = {}
    carried = plots.coordinate_carriers(Z)
    first = plots.grown_bulk_ranges(Z, carried, kept)
    assert first[1][1] < 10  # the bulk's frame, not 50
    assert first == [plots.bulk_range(Z, carried, a) for a in (0, 1)]
    wider = Z * [2.0, 1.0]
    wider[7] = [0.0, 50.0]
    again = plots.grown_bulk_ranges(wider, plots.coordinate_carriers(wider), kept)
    assert again[0][0] <= first[0][0] and again[0][1] >= first[0][1]  # grown, never shrunk
    assert again[0] == plots.merge_ranges(
        first[0], plots.padded_range(wider[np.arange(200) != 7, 0])
    )
    every = plots.grown_bulk_ranges(Z, [], kept)  # zoom off: every point, a frame of its own
    assert every[1][1] >= 50 and set(kept) == {(0, False), (1, True), (1, False)}
    shown, moved = plots.clipped_to(Z, first)
    assert moved.tolist() == [i == 7 for i in range(200)]
    assert shown[7, 1] == first[1][1] and np.array_equal(shown[~moved], Z[~moved])


def test_many_labelled_points_are_drawn_beneath_the_others():
    """The Tangent lesson's chart: 750 training digits (labelled) and 751 predicted ones. As large
    outlined diamonds on top, the labelled points hid the predictions the chart is about."""
    rng = np.random.default_rng(0)
    Z, y = rng.normal(size=(1501, 2)), rng.integers(0, 10, 1501)
    labeled = np.arange(1501) < 750
    data = plots.embedding_scatter(Z, y, labeled).to_plotly_json()["data"]
    marked = [
        i for i, t in enumerate(data) if "(labeled)" in t.get("name", "") and t["x"] is not None
    ]
    others = [i for i, t in enumerate(data) if t.get("name", "").isdigit()]
    assert marked and others and max(marked) < min(others)  # beneath
    assert all(
        data[i]["marker"]["size"] <= data[j]["marker"]["size"] + 1 for i in marked for j in others
    )
    few = plots.embedding_scatter(Z[:150], y[:150], np.arange(150) < 15).to_plotly_json()["data"]
    first = [t for t in few if "(labeled)" in t.get("name", "")]
    assert all(t["marker"]["size"] == 12 for t in first)  # a few labels: large diamonds on top
    assert few.index(first[0]) > min(i for i, t in enumerate(few) if t.get("name", "").isdigit())
    # iris with nine in ten labelled: large diamonds still, but beneath the 15 predicted points
    most = plots.embedding_scatter(Z[:150], y[:150], np.arange(150) < 135).to_plotly_json()
    most = most["data"]
    marked = [i for i, t in enumerate(most) if "(labeled)" in t.get("name", "")]
    others = [i for i, t in enumerate(most) if t.get("name", "").isdigit()]
    assert max(marked) < min(others) and all(most[i]["marker"]["size"] == 12 for i in marked)
    assert all(most[i]["marker"]["line"] == {"width": 1, "color": "white"} for i in others)


def test_many_labelled_points_are_drawn_beneath_in_every_figure_that_draws_them():
    """Panels, a learning view's frames and a scrubbed animation draw many labelled points as the
    scatter does (small, beneath, one legend group headed by the key), and alike in every panel
    and frame, though each panel or frame puts different points on its edge."""
    rng = np.random.default_rng(1)
    Z, y = rng.normal(size=(600, 2)), rng.integers(0, 3, 600)
    labeled = np.arange(600) < 400
    far = Z.copy()
    far[:3] *= 60  # three points the second panel draws on its edge

    def order(data, axis=None):
        named = [
            t
            for t in data
            if t.get("name", "").startswith("c") and (axis is None or t.get("xaxis") == axis)
        ]
        return [("(labeled)" in t["name"], t["marker"]["size"]) for t in named]

    names = ["c0", "c1", "c2"]
    panels = [
        panel_plots.Panel(Z, "a"),
        panel_plots.Panel(far, "b", at_edge=np.arange(600) < 3, x_range=(-4, 4), y_range=(-4, 4)),
    ]
    data = panel_plots.panel_figure(panels, y, labeled, names).to_plotly_json()["data"]
    first, second = order(data, "x"), order(data, "x2")
    assert first == second and first[0][0] and not first[-1][0]  # labelled first: beneath
    assert max(s for lab, s in first if lab) <= min(s for lab, s in first if not lab) + 1
    key = [t for t in data if t.get("name") == "labeled points"]
    assert key and key[0]["legendgroup"] == plots.embedding.LABELED_GROUP
    frames = [Z, far, Z * 2]
    fig = plots.embedding_animation(frames, ["1", "2", "3"], y, labeled, names)
    fig = fig.to_plotly_json()
    every = [order(f["data"]) for f in fig["frames"]]
    assert every[0][0][0] and all(o == every[0] for o in every)
    learning = panel_plots.learning_figure(frames, [3.0, 2.0, 1.0], y, labeled, names)
    learning = learning.to_plotly_json()
    assert all(order(f["data"]) == every[0] for f in learning["frames"])


def test_labelled_points_a_quarter_of_all_or_more_are_drawn_beneath():
    """The KPCA lesson's circles: half of 300 labelled, their large diamonds on top hid the 150
    points the 1-NN score is computed on. From a quarter of the points on, they go beneath."""
    drawing = plots.embedding.labelled_drawing
    assert drawing(300, 150) == drawing(150, 135) == drawing(200, 50) == "beneath"
    assert drawing(200, 20) == drawing(150, 37) == "on top"  # a tenth labelled: the Embed default
    assert drawing(1000, 300) == drawing(3000, 10) == "dense"
