"""What every figure shares: the class palette, the layout, the fast figure constructor, and the
embedding geometry for display (normalisation, Procrustes alignment, fixed axis ranges)."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from scipy.linalg import orthogonal_procrustes

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
)


def class_color(c: int) -> str:
    return PALETTE[int(c) % len(PALETTE)]


def _layout(fig: go.Figure, title: str | None, height: int = 420) -> go.Figure:
    # No template: Streamlit themes the chart, and applying a plotly template costs ~40 ms a figure.
    fig.update_layout(
        title=title,
        height=height,
        margin=dict(l=40, r=20, t=40 if title else 10, b=40),
        legend=dict(itemsizing="constant"),
    )
    return fig


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
