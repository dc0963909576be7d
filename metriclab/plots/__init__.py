"""Plotly figure builders: pure functions of arrays (no streamlit), so they are testable without a
browser. One module per kind of figure; every builder is importable from here (`plots.<name>`).

Conventions: every scatter has one trace per class (colour by class, same colour order
everywhere), labeled points are drawn as larger outlined markers in a separate trace per class,
and the hover text gives the point's index and its class name.
"""

from metriclab.plots.base import (
    AREA_ASPECT,
    PALETTE,
    Carried,
    _fast_figure,
    _layout,
    align_to,
    bulk_framed,
    bulk_range,
    class_color,
    coordinate_carriers,
    edge_frame,
    fit_legend,
    height_without_rows,
    merge_ranges,
    normalize_embedding,
    padded_range,
    titled,
    to_aspect,
    top_margin,
)
from metriclab.plots.embedding import (
    _class_names,
    _scatter_traces,
    animation_controls,
    crowded_classes,
    embedding_animation,
    embedding_scatter,
    labeled_key,
    labeled_only_legend,
    pca_2d,
)
from metriclab.plots.matrices import (
    class_order,
    line_curve,
    matrix_heatmap,
    spectrum,
    weights_bar,
)
from metriclab.plots.overview import class_counts_bar, image_grid
from metriclab.plots.results import (
    comparison_boxes,
    comparison_chart,
    paper_vs_ours,
    results_heatmap,
    sweep_lines,
)
from metriclab.plots.window import cell_edges, win_boundary, window_map

__all__ = [
    "AREA_ASPECT",
    "PALETTE",
    "Carried",
    "_class_names",
    "_fast_figure",
    "_layout",
    "_scatter_traces",
    "align_to",
    "animation_controls",
    "bulk_framed",
    "bulk_range",
    "cell_edges",
    "class_color",
    "class_counts_bar",
    "class_order",
    "comparison_boxes",
    "comparison_chart",
    "coordinate_carriers",
    "edge_frame",
    "fit_legend",
    "height_without_rows",
    "crowded_classes",
    "embedding_animation",
    "embedding_scatter",
    "image_grid",
    "labeled_key",
    "labeled_only_legend",
    "line_curve",
    "matrix_heatmap",
    "merge_ranges",
    "normalize_embedding",
    "padded_range",
    "paper_vs_ours",
    "pca_2d",
    "results_heatmap",
    "spectrum",
    "sweep_lines",
    "titled",
    "to_aspect",
    "top_margin",
    "weights_bar",
    "win_boundary",
    "window_map",
]
