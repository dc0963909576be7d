"""What every figure shares: the class palette, the layout, the fast figure constructor, and the
embedding geometry for display (normalisation, Procrustes alignment, fixed axis ranges)."""

from __future__ import annotations

import colorsys
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from scipy.linalg import orthogonal_procrustes

from metriclab.positions import SAME_POSITION

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#7f7f7f",
    "#bcbd22",
    "#17becf",
    # classes 11-18 (soybean's 15 drew five pairs of classes in one colour with ten): Plotly's
    # Dark24 colours that stand apart from the ten above
    "#00a08b",
    "#750d86",
    "#b68100",
    "#fb00d1",
    "#1616a7",
    "#862a16",
    "#6c7c32",
    "#222a2a",
)


def class_color(c: int) -> str:
    """Class `c`'s colour: the palette's 18, then hues a golden angle apart (an upload with more
    classes: the palette repeated would draw two classes alike)."""
    c = int(c)
    if c < len(PALETTE):
        return PALETTE[c]
    hue = (c * 137.508) % 360 / 360  # the golden angle: each new hue far from the last ones
    light = (0.38, 0.55)[c % 2]
    return "#" + "".join(f"{round(255 * v):02x}" for v in colorsys.hls_to_rgb(hue, light, 0.7))


TOOLBAR_PX = 40  # the chart toolbar's row at the top of a figure (shown on hover), and a gap


def titled(text: str | None) -> dict:
    """A figure title in its own row under the toolbar's, so that the toolbar shown on hover
    never covers it (plotly puts the toolbar in the figure's top right corner)."""
    if not text:
        return {}
    return dict(text=text, yref="container", y=1, yanchor="top", pad=dict(t=TOOLBAR_PX))


def top_margin(title: str | None, lines: int = 1) -> int:
    """The top margin that holds the toolbar's row and `lines` lines of title."""
    return TOOLBAR_PX + 30 * lines + 6 if title else 10


# a legend entry's height in px for a font of f px: 1.25 f + 14 (12 px: 29, 20 px: 39 in Chromium),
# and the x axis's ticks and title under the plot: 3.25 f + 30 (12 px: 69, 20 px: 95)
LEGEND_ENTRY_PX = (1.25, 14.0)
AXIS_BELOW_PX = (3.25, 30.0)
_LEGEND_ADDED = "legend_rows_px"  # layout.meta: the height fit_legend added under the plot
_LEGEND_ROWS = ("orientation", "x", "xanchor", "y", "yanchor", "maxheight")


def fit_legend(
    fig: go.Figure,
    font_size: float = 12,
    width: float = 560,
    height: float | None = None,
    under: bool = False,
    taken_below: float = 0.0,
) -> go.Figure:
    """The legend in rows under the plot when its entries do not fit beside it, the figure that
    much taller (the plot keeps its size): Plotly scrolls a legend taller than the plot and hides
    its last entries, so 15 soybean classes, or 10 digits and the labelled points' key at a
    projector's font, showed classes whose colour nothing explained. In rows the legend's font is
    at most 0.8 × `font_size` (at least 12 px), so that a projector's screen holds them.
    `font_size`: the chart's font in px; `width`: about the width the chart is drawn at; `height`:
    the figure's height without rows (default: its height less what an earlier call added);
    `under`: in rows under the plot however few the entries (a column's chart, too narrow for a
    legend beside its plot); `taken_below`: px under the plot that something else holds (an
    animation's slider), the rows under it. Returns `fig`, changed in place."""
    layout = fig.layout
    meta = layout.meta if isinstance(layout.meta, dict) else {}
    added = float(meta.get(_LEGEND_ADDED, 0.0))
    height = float(height if height is not None else height_without_rows(fig))
    bottom = float(layout.margin.b if layout.margin.b is not None else 40) - added
    top = float(layout.margin.t if layout.margin.t is not None else 40)
    names = (
        [  # none where the layout hides the legend: it takes no room
            str(t.name or "")
            for t in fig.data
            if t.type in ("scatter", "scattergl") and t.showlegend is not False
        ]
        if layout.showlegend is not False
        else []
    )
    slope, offset = LEGEND_ENTRY_PX
    axis = layout.xaxis
    axis_shown = axis.showticklabels is not False or bool(axis.title.text)
    below = max(bottom, AXIS_BELOW_PX[0] * font_size + AXIS_BELOW_PX[1]) if axis_shown else bottom
    below = max(below, taken_below)
    area = height - top - below  # the plot's height once its axis labels are placed
    entry = slope * font_size + offset
    fits = not under and len(names) * entry <= area + entry / 2  # (half an entry: the padding)
    if not names or fits:
        if added:  # rows an earlier call made (another font): back beside the plot
            fig.update_layout(height=height, margin_b=bottom, meta={**meta, _LEGEND_ADDED: 0.0})
            for key in _LEGEND_ROWS:
                fig.layout.legend[key] = None
        if names and len(names) * entry > area:  # fits within the slack: the legend may run into
            # the x axis's band beside the plot rather than scroll (Plotly caps a legend beside the
            # plot at the plot's height: the digits' 11 entries scrolled by a few px)
            fig.layout.legend.maxheight = len(names) * entry + entry
        return fig
    font = max(12.0, 0.8 * font_size)
    entry = slope * font + offset
    rows = _rows(names, font, width)
    extra = below - bottom + rows * entry + 10
    fig.update_layout(
        height=height + extra,
        margin_b=bottom + extra,
        meta={**meta, _LEGEND_ADDED: extra},
        legend=dict(
            orientation="h",
            x=0,
            xanchor="left",
            y=-below / (height - top - bottom),  # under the x axis's ticks and title
            yanchor="top",
            font=dict(size=font),
            maxheight=1,  # the whole figure's height: Plotly scrolls a row legend past half of it
        ),
    )
    return fig


def height_without_rows(fig: go.Figure) -> float:
    """The figure's height less the legend's rows that `fit_legend` added under its plot."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    return float(fig.layout.height or 450) - float(meta.get(_LEGEND_ADDED, 0.0))


def _rows(names: list[str], font: float, width: float) -> int:
    """The rows a horizontal legend of `names` takes in `width` px, its entries packed in order as
    Plotly packs them (an entry: its marker, a gap and about 0.6 × font px a character)."""
    rows, used = 1, 0.0
    for name in names:
        size = 0.6 * font * len(name) + 40
        if used and used + size > width:
            rows, used = rows + 1, 0.0
        used += size
    return rows


def _layout(fig: go.Figure, title: str | None, height: int = 420) -> go.Figure:
    # No template: Streamlit themes the chart, and applying a plotly template costs ~40 ms a figure.
    fig.update_layout(
        title=titled(title),
        height=height,
        margin=dict(l=40, r=20, t=top_margin(title), b=40),
        legend=dict(itemsizing="constant"),
    )
    return fig


def _diverging(top: float) -> dict:
    """A heat map's colour settings: red-white-blue centred at 0, from -top to top."""
    return dict(colorscale="RdBu", zmid=0.0, zmin=-top, zmax=top)


def _fast_figure(data: list[dict], layout: dict, frames: list[dict] | None = None) -> go.Figure:
    """A figure from plain dicts without plotly's property validation (10-50× faster to build;
    the live Embed view rebuilds its figures on every slider move). Callers pass known keys only."""
    spec = {"data": data, "layout": layout}
    if frames is not None:
        spec["frames"] = frames
    return go.Figure(spec, _validate=False)


# Embedding geometry for display: normalisation, alignment, fixed ranges
# --------------------------------------------------------------------------------------------------


def normalize_embedding(Z: np.ndarray) -> np.ndarray:
    """Centre the embedding and scale it to unit root-mean-square radius (eigenvectors have arbitrary
    scale, so this makes successive embeddings comparable on fixed axes)."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    Z = Z - Z.mean(axis=0)
    rms = float(np.sqrt(np.mean(np.sum(Z**2, axis=1))))
    return Z / rms if rms > 0 and np.isfinite(rms) else Z


def align_to(Z: np.ndarray, reference: np.ndarray | None) -> np.ndarray:
    """Rotate/reflect `Z` onto `reference` by orthogonal Procrustes (min ||Z R - reference||, RᵀR = I).

    Eigenvectors have arbitrary sign and rotation; aligning each new embedding to the previous one
    makes a slider move morph the picture instead of flipping it. Returns Z unchanged when the shapes
    differ (different data or dimension). The same embedding again returns `reference` itself, bit
    for bit: a rerun that changed nothing draws the identical figure (which keeps a chart's click
    selection, tied to the figure's content)."""
    Z = np.asarray(Z, dtype=np.float64)
    if reference is None or np.shape(reference) != Z.shape or Z.size == 0:
        return Z
    reference = np.asarray(reference, dtype=np.float64)
    R, _ = orthogonal_procrustes(Z, reference)
    aligned = Z @ R
    if np.allclose(aligned, reference, rtol=0.0, atol=1e-9 * (1.0 + np.abs(reference).max())):
        return reference
    return aligned


def padded_range(values: np.ndarray, pad: float = 0.08) -> tuple[float, float]:
    """[min, max] of `values` widened by `pad` of the span (a unit span around a constant)."""
    values = np.asarray(values, dtype=np.float64)
    values = values[np.isfinite(values)]
    if values.size == 0:
        return (-1.0, 1.0)
    lo, hi = float(values.min()), float(values.max())
    span = hi - lo if hi > lo else 1.0
    return (lo - pad * span, hi + pad * span)


def merge_ranges(old: tuple[float, float] | None, new: tuple[float, float]) -> tuple[float, float]:
    """Axis range that only grows: the picture keeps its frame while a slider moves."""
    if old is None:
        return tuple(new)
    return (min(old[0], new[0]), max(old[1], new[1]))


# Coordinates carried by a few points (localised eigenvectors)
# --------------------------------------------------------------------------------------------------

CARRIED_SHARE = 0.9  # a coordinate is carried by the fewest points that hold this share of it...
FEW_POINTS = 0.05  # ...when they are at most this share of the points (at least one point)
# ...or by the fewest that hold this lesser share and stand apart from the others, each at least
# CARRIER_GAP times farther from the median than any other point: TDL on Iris with nine in ten
# labelled put point 41 at 8.2 and the other 149 within 0.5 (87 % of the squared spread), and the
# picture was a band at the bottom of the chart. A long tail (a lognormal sample) has no such gap.
GAPPED_SHARE = 0.75
CARRIER_GAP = 4.0


@dataclass(frozen=True)
class Carried:
    """One coordinate of an embedding whose squared spread about the median sits on a few points
    (a localised eigenvector): those points, largest first, and the share of it they hold."""

    axis: int
    index: np.ndarray
    share: float
    n_points: int  # of the whole embedding

    @property
    def rest(self) -> np.ndarray:
        """Whether each point is one of the others (the bulk of this coordinate)."""
        keep = np.ones(self.n_points, dtype=bool)
        keep[self.index] = False
        return keep

    def bulk_at_one_position(self, Z: np.ndarray) -> bool:
        """Whether the others sit at one position of this coordinate of `Z`: their spread under
        SAME_POSITION of the whole coordinate's (the collapse check's tolerance)."""
        z = np.asarray(Z, dtype=np.float64)[:, self.axis]
        return bool(np.ptp(z[self.rest]) <= SAME_POSITION * np.ptp(z))


def coordinate_carriers(
    Z: np.ndarray, share: float = CARRIED_SHARE, few: float = FEW_POINTS, rounds: int = 4
) -> list[Carried]:
    """The coordinates of `Z` carried by a few points: along each axis the fewest points holding
    `share` of the squared spread about the median, when they are at most `few` of all points
    (repeated on the others up to `rounds` times, so that a second tier of such points is found
    too). A coordinate spread over its points (a cloud, a curve, clusters) has none: its squared
    spread needs most of the points. Unlike a distance rule in robust spreads, an ordinary point is
    never called out when the spread of the rest is tiny, because a point is named only for the
    share of the coordinate it holds."""
    Z = np.asarray(Z, dtype=np.float64)
    if Z.ndim == 1:
        Z = Z[:, None]
    n = Z.shape[0]
    found = []
    if n < 10:
        return found
    limit = max(1, int(few * n))
    for axis in range(Z.shape[1]):
        z = Z[:, axis]
        total = float(np.sum((z - np.median(z)) ** 2))
        if not total > 0:
            continue
        rest = np.arange(n)
        carried: list[int] = []
        for _ in range(rounds):
            d2 = (z[rest] - np.median(z[rest])) ** 2
            energy = d2.sum()
            room = limit - len(carried)
            if not energy > 0 or room < 1:
                break
            order = _largest_first(d2, room + 1)  # one more: the largest deviation beside them
            held = np.cumsum(d2[order[:room]]) / energy
            m = int(np.searchsorted(held, share)) + 1
            if m > room:  # `share` not reached within the points there is room for
                m = _set_apart(d2[order], held)
                if not m:
                    break
            carried += rest[order[:m]].tolist()
            rest = np.setdiff1d(rest, rest[order[:m]])
        if carried:
            index = np.asarray(carried)
            held = float(np.sum((z[index] - np.median(z)) ** 2) / total)
            found.append(Carried(axis, index, held, n))
    return found


def _set_apart(largest: np.ndarray, held: np.ndarray) -> int:
    """The fewest of the largest squared deviations (`largest`, largest first; `held`: the shares
    of the squared spread the first 1, 2, ... of them hold) that hold GAPPED_SHARE and stand
    CARRIER_GAP times farther out than the next one; 0 where none do."""
    gap = CARRIER_GAP**2
    for m in range(1, min(held.size, largest.size - 1) + 1):
        if held[m - 1] >= GAPPED_SHARE and largest[m - 1] >= gap * largest[m]:
            return m
    return 0


def _largest_first(values: np.ndarray, count: int) -> np.ndarray:
    """The indices of the `count` largest values, largest first, ties in index order: the first
    `count` of `np.argsort(-values, kind="stable")`, without sorting them all (MNIST's 70,000
    coordinates: 8 sorts on every λ move)."""
    if count >= values.size:
        return np.argsort(-values, kind="stable")
    threshold = np.partition(values, values.size - count)[values.size - count]
    candidates = np.flatnonzero(values >= threshold)  # every tie of the count-th value, in order
    return candidates[np.argsort(-values[candidates], kind="stable")][:count]


def bulk_framed(Z: np.ndarray, carried: list[Carried], axis: int) -> bool:
    """Whether `bulk_range` frames the bulk on `axis` (a few points carry it and the others do
    not sit at one position) rather than every point."""
    return any(c.axis == axis and not c.bulk_at_one_position(Z) for c in carried)


# The plot area's width / height in the app's layouts, measured at 1280×800 (`_fullLayout._size`):
# the live view 325 × 317, in presentation mode 799 × 404; linked views in three columns
# 243 × 250, in two (two or four views) 382 × 250.
# A scrub's plot area: 325–403 × 288 (its legend's width varies), 650 × 280 in presentation mode.
AREA_ASPECT = {
    "view": 1.03,
    "presentation": 1.98,
    # a lesson's view on a projector, in the right two thirds beside the step's texts, its legend
    # beside it: 379×404 px at 1280×800 (the frame at 1.98 left it 379×191, at 1.03 379×368)
    "lesson, presentation": 0.94,
    "three columns": 0.97,
    "two columns": 1.53,
    # the linked views on a projector, 360 px tall (ui/embed/linked.py): 367×274 px, 570×274
    "three columns, presentation": 1.34,
    "two columns, presentation": 2.08,
    "scrub": 1.3,
    "scrub, presentation": 2.3,
}


def grown_bulk_ranges(
    Z: np.ndarray, carried: list[Carried], kept: dict
) -> list[tuple[float, float]]:
    """Per axis of `Z` the frame of its bulk (`bulk_range`; of every point where `carried` is
    empty) merged with the one `kept` from the view's earlier pictures, which it updates: the
    frame grows while a slider moves, but a frame of the bulk and a frame of every point are kept
    apart (`kept[(axis, framed)]`): one that held every point (a bulk at one position, nothing to
    frame) squeezed the bulk into a dot once the bulk could be framed."""
    ranges = []
    for axis in range(np.asarray(Z).shape[1]):
        framed = bulk_framed(Z, carried, axis)
        merged = merge_ranges(kept.get((axis, framed)), bulk_range(Z, carried, axis))
        kept[(axis, framed)] = merged
        ranges.append(merged)
    return ranges


def clipped_to(Z: np.ndarray, ranges: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(where each point is drawn, which are moved): `Z` clipped to the frame of `ranges`, the
    points outside it on its edge."""
    Z = np.asarray(Z, dtype=np.float64)
    shown = np.column_stack([np.clip(Z[:, a], *r) for a, r in enumerate(ranges)])
    return shown, np.any(shown != Z, axis=1)


def edge_frame(
    Z: np.ndarray, ranges: list[tuple[float, float]], aspect: float = AREA_ASPECT["view"]
) -> list[tuple[float, float]]:
    """The frame of `ranges` (one per column of `Z`) whose edge is the chart's edge: where points lie
    outside it, it is widened (the narrower way, about its centre) to the plot area's width /
    height `aspect`, and `embedding_scatter` keeps both ranges at equal scales (axis
    ``constrain="domain"``: in an area of another shape the area shrinks, never the frame grows).
    Plotly widened the frame to fill the area instead, so a point clipped to it, "drawn at the
    chart's edge", was drawn inside the picture (LE on iris: 0.02 above the bulk in a chart that
    reached 0.6). Unchanged where no point lies outside, or for a 1-D strip."""
    Z = np.asarray(Z, dtype=np.float64)
    ranges = [tuple(r) for r in ranges]
    if Z.ndim != 2 or Z.shape[1] != 2:
        return ranges
    (x0, x1), (y0, y1) = ranges
    outside = (Z[:, 0] < x0) | (Z[:, 0] > x1) | (Z[:, 1] < y0) | (Z[:, 1] > y1)
    return to_aspect(ranges, aspect) if outside.any() else ranges


def to_aspect(ranges: list[tuple[float, float]], aspect: float) -> list[tuple[float, float]]:
    """Two ranges (x, y), the narrower way widened about its centre so that x span / y span is
    `aspect`: a frame of the plot area's shape, which equal scales draw as it is."""
    (x0, x1), (y0, y1) = ranges
    if (x1 - x0) > aspect * (y1 - y0):
        return [(x0, x1), _widened((y0, y1), (x1 - x0) / aspect)]
    return [_widened((x0, x1), aspect * (y1 - y0)), (y0, y1)]


def _widened(bounds: tuple[float, float], span: float) -> tuple[float, float]:
    """`bounds` widened about its centre to `span`."""
    centre = (bounds[0] + bounds[1]) / 2
    return (centre - span / 2, centre + span / 2)


def bulk_range(Z: np.ndarray, carried: list[Carried], axis: int) -> tuple[float, float]:
    """The padded range of the points that do not carry coordinate `axis` (all of them when none
    does): the view that shows the bulk. The whole coordinate's range where the bulk sits at one
    position (`Carried.bulk_at_one_position`): a frame that narrow drew rounding as if it were
    structure (LE on yeast: 1,451 points framed within 1e-11, on ticks no one could read)."""
    z = np.asarray(Z, dtype=np.float64)[:, axis]
    for c in carried:
        if c.axis == axis and not c.bulk_at_one_position(Z):
            return padded_range(z[c.rest])
    return padded_range(z)
