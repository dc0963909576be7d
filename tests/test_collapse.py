"""An embedding that collapses says why and what undoes it, measured (glass, wdbc, soybean and yeast
collapsed under the Embed page's defaults with a general "widen the kernel / basis" advice: on
glass a wider heat width undoes it, on soybean more graph neighbours, on yeast both)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from metriclab import datasets
from metriclab.ui.shared import collapse, compute, memo
from tests.apptest_helpers import figures, fit_request, run_page


def _default(name: str, method: str, **params):
    request = fit_request(
        name, method, tuple(params.items()), scaling=datasets.default_preprocess(name)
    )
    return request, memo.fit(request)


def _collapsed(result) -> bool:
    return compute.collapse_warning(result.Z, result.mask) is not None


def test_a_graph_in_pieces_is_named_and_more_neighbours_undo_it():
    request, result = _default("soybean", "le")
    assert _collapsed(result)
    check = result.graph
    assert (check.kind, check.n_neighbors, check.pieces, check.unlinked) == ("knn", 10, 3, 64)
    cause = compute.graph_cause(check, request.spec.short_label)
    assert "10-NN graph falls into 3 pieces (64 points" in cause
    found = collapse.remedy(request, result)
    assert found is not None and [name for name, _ in found.changes] == ["n_neighbors"]
    after = memo.fit(request.with_params(**dict(found.changes)))
    assert after.graph.pieces == 1 and not _collapsed(after)
    assert found.positions == compute.distinct_positions(after.Z[~after.mask])
    # the first step up the slider that makes the graph whole: one step fewer leaves it in pieces
    value = dict(found.changes)["n_neighbors"]
    steps = compute._steps_up(
        10, collapse._options(request, "n_neighbors"), compute.NEIGHBOUR_STEPS
    )
    earlier = steps[: steps.index(value)]
    assert all(memo.fit(request.with_params(n_neighbors=v)).graph.unlinked for v in earlier)


def test_points_cut_off_by_light_edges_are_named_and_a_wider_heat_width_undoes_it():
    request, result = _default("glass", "tdl")
    assert _collapsed(result)
    check = result.graph
    assert check.pieces == 1 and check.unlinked == 0 and check.cut_off == 3 and check.auto_width
    cause = compute.graph_cause(check, request.spec.short_label)
    assert cause.startswith("Cause: 3 point(s) are linked to the rest only by edges lighter")
    assert f"t = {check.width:.3g} (the default" in cause
    found = collapse.remedy(request, result)
    assert [name for name, _ in found.changes] == ["width"]
    width = dict(found.changes)["width"]
    assert width > check.width and width in collapse._options(request, "width")
    after = memo.fit(request.with_params(width=width))
    assert after.graph.cut_off == 0 and not _collapsed(after)
    message = compute.collapse_warning(result.Z, result.mask, cause=cause + " " + found.sentence())
    assert "Widen the kernel" not in message and f"t = {width:g} the unlabeled points" in message


def test_a_graph_that_needs_both_gets_both():
    request, result = _default("yeast", "le")
    found = collapse.remedy(request, result)
    assert found is not None and [name for name, _ in found.changes] == ["n_neighbors", "width"]
    after = memo.fit(request.with_params(**dict(found.changes)))
    assert after.graph.unlinked == 0 and after.graph.cut_off == 0 and not _collapsed(after)


def test_no_cause_no_remedy():
    request, result = _default("two_moons", "le")
    assert result.graph.cut_off == 0 and result.graph.pieces == 1
    assert compute.graph_cause(result.graph, "LE") is None
    assert collapse.remedy(request, result) is None
    # a method without a graph has no check: the general advice stays
    request, result = _default("wine", "pca")
    assert result.graph is None and compute.graph_cause(None, "PCA") is None
    few = np.repeat(np.eye(2), 50, axis=0)
    assert "Widen the kernel" in compute.collapse_warning(few, np.zeros(100, dtype=bool))


@pytest.mark.parametrize("name", ["soybean"])
def test_the_embed_page_names_the_cause_and_its_button_sets_the_measured_value(name):
    at = run_page("embed", {"ds": name, "method": "le"})
    assert not at.exception
    warned = [w.value for w in at.warning if "collapsed" in w.value]
    assert len(warned) == 1 and "falls into 3 pieces" in warned[0]
    assert "Measured: with 20 graph neighbours" in warned[0]
    # the chart's title says it too: the warning is under the chart, below the first screen
    title = figures(at)[0]["layout"]["title"]["text"]
    assert re.search(r"<br>collapsed: its [\d,]+ unlabeled points on \d+ position\(s\)", title)
    button = at.button(key="collapse_remedy")
    assert button.label == "Set Graph neighbours to 20"
    button.click().run()
    assert not at.exception
    assert at.main.slider(key="p.le.n_neighbors").value == 20
    assert not [w for w in at.warning if "collapsed" in w.value]
    assert "collapsed" not in figures(at)[0]["layout"]["title"]["text"]


def test_a_frame_that_held_every_point_does_not_squeeze_a_bulk_that_can_be_framed():
    """The frame only grows while a slider moves; but glass's collapsed TDL (the bulk at one
    position: nothing to frame, every point drawn) kept its frame of [-0.7, 7.9] × [-0.5, 10.8]
    after the heat width moved to 16, where 212 points spread over 0.15: a dot, and a note saying
    they "sit at one position". A frame of the bulk and a frame of every point are kept apart."""
    from tests.apptest_helpers import figures

    at = run_page("embed", {"ds": "glass", "method": "tdl"})
    assert "sit at one position" in " ".join(i.value for i in at.info)
    at.button(key="collapse_remedy").click().run()
    assert not at.exception
    layout = figures(at)[0]["layout"]
    for axis in ("xaxis", "yaxis"):
        low, high = layout[axis]["range"]
        assert high - low < 1.0, (axis, low, high)  # the bulk's frame, not the carriers'
    notes = " ".join(i.value for i in at.info)
    assert "sit at one position" not in notes and "drawn on the chart's edge" in notes


def test_a_linked_view_that_collapsed_offers_its_remedy_and_only_its_method_changes():
    at = run_page("embed", {"ds": "soybean", "mode": "linked", "methods": "tdl,le"})
    assert not at.exception
    warned = [w.value for w in at.warning if "collapsed" in w.value]
    assert len(warned) == 1 and "falls into 3 pieces" in warned[0]  # LE's view; TDL's is whole
    at.button(key="collapse_remedy_2").click().run()
    assert not at.exception
    assert at.slider(key="p.le.n_neighbors").value == 20
    assert at.slider(key="p.tdl.n_neighbors").value == 10
    assert not [w for w in at.warning if "collapsed" in w.value]


# --- a comparison counts the splits on which an embedding collapsed ------------------------------


def test_compare_records_each_splits_positions_and_summarize_counts_the_collapsed():
    from metriclab.evaluation import CompareRequest, compare, summarize
    from metriclab.positions import collapsed, distinct_positions

    request = CompareRequest(
        "soybean", ["le", "pca"], n_splits=2, fraction=0.1, preprocess="standardise"
    )
    results = compare(request)
    assert results["positions"].notna().all()
    le = results[results["method"] == "le"]
    assert all(
        collapsed(int(p), int(n)) for p, n in zip(le["positions"], le["n_scored"], strict=True)
    )
    summary = summarize(results).set_index("method")
    assert summary.loc["le", "collapsed"] == 2 and summary.loc["pca", "collapsed"] == 0
    # the count is the page's own: the Embed page's split 0 draws the same 3 positions
    request_0, result_0 = _default("soybean", "le")
    assert distinct_positions(result_0.Z[~result_0.mask]) == int(le["positions"].iloc[0])
    # results without the column (an older table) count none, and say so by 0
    assert summarize(results.drop(columns=["positions"]))["collapsed"].eq(0).all()


def test_the_compare_page_says_which_embeddings_collapsed_on_how_many_splits():
    at = run_page("compare", {"cds": "soybean", "cm": "le,nca", "splits": "2"})
    at.button[0].click().run()
    assert not at.exception
    notes = [w.value for w in at.warning if w.value.startswith("Collapsed embeddings")]
    assert len(notes) == 1 and "**Laplacian Eigenmaps** on soybean (2 of 2 splits)" in notes[0]
    assert "NCA" not in notes[0]
    table = at.dataframe[0].value.set_index("method")
    assert table.loc["le", "collapsed"] == 2 and table.loc["nca", "collapsed"] == 0


def test_the_command_line_comparison_counts_collapsed_splits(capsys):
    from metriclab.__main__ import main

    code = main(["compare", "--dataset", "soybean", "--method", "le", "--splits", "2", "--quiet",
                 "--no-cache", "--preprocess", "standardise"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    header, *rows = [line for line in out.splitlines() if line.startswith(("dataset", "soybean"))]
    assert header.split()[-2:] == ["collapsed", "status"]
    le = next(row for row in rows if "Laplacian" in row)
    assert le.split()[-2:] == ["2", "ok"] and "collapsed: splits on which" in out


def test_the_window_map_marks_the_cells_where_an_embedding_collapsed():
    """Over soybean's default λ × t grid every cell had TDL's or LE's embedding collapsed, and the
    map coloured their differences as if they were comparisons of what each learned."""
    from metriclab import plots
    from metriclab.ui.embed.window import collapse_caption

    request, _ = _default("glass", "tdl")
    grid = (("lam", (16.0,)), ("width", (4.0, 16.0)))  # glass: collapsed at t = 4, not at 16
    computed = compute.window_map(*memo.resolve(request), request, grid)
    assert computed.collapsed.tolist() == [[True, False]]
    assert computed.baseline_collapsed.tolist() == [[True, False]]
    fig = plots.window_map((16.0,), (4.0, 16.0), computed.grid, computed.baseline,
                           collapsed=computed.collapsed | computed.baseline_collapsed)  # fmt: skip
    marked = [t for t in fig.data if str(t.name).startswith("collapsed")]
    assert len(marked) == 1 and list(marked[0].x) == [4.0] and list(marked[0].y) == [16.0]
    caption = collapse_caption(computed, "TDL")
    assert (
        "× marks the 1 of 2 cells" in caption
        and "(1 for TDL, 1 for Laplacian Eigenmaps:" in caption
    )


def test_the_compare_chart_hatches_a_bar_whose_embedding_collapsed():
    from metriclab.ui.compare import ComparisonRequest, comparison_figures, run_comparison

    results = run_comparison(ComparisonRequest(("soybean",), ("le", "nca"), 2, 0.1))
    bars, _ = comparison_figures(results)
    shapes = {t.name: list(t.marker.pattern.shape) for t in bars.data if t.x[0] is not None}
    assert shapes["Laplacian Eigenmaps"] == ["x"] and shapes["NCA"] == [""]
    assert [t.name for t in bars.data][-1] == "hatched: collapsed on some splits"
