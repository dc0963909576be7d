"""Results: comparisons over splits and the papers' numbers beside ours."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from metriclab.plots.base import PALETTE, _layout


def comparison_chart(summary, title: str | None = "Accuracy over splits") -> go.Figure:
    """Bar chart of mean accuracy with ±std error bars, one colour per method, grouped by data set.

    `summary` is a DataFrame with columns dataset, method (label), mean, std, and optionally
    collapsed (the splits on which the embedding collapsed): such a bar is hatched, its accuracy
    mostly the tie-breaking of equal distances."""
    fig = go.Figure()
    hatched = False
    for i, (method, part) in enumerate(summary.groupby("method", sort=False)):
        collapsed = part["collapsed"] if "collapsed" in part else [0] * len(part)
        shapes = ["x" if c else "" for c in collapsed]
        hatched = hatched or any(shapes)
        fig.add_trace(
            go.Bar(
                x=part["dataset"],
                y=part["mean"],
                error_y=dict(type="data", array=part["std"].fillna(0.0), visible=True),
                name=str(method),
                marker_color=PALETTE[i % len(PALETTE)],
                marker_pattern=dict(
                    shape=shapes, fgcolor="black", size=6, solidity=0.2, fillmode="overlay"
                ),
                customdata=list(collapsed),
                hovertemplate="%{x}: %{y:.3f}<br>collapsed on %{customdata} split(s)"
                "<extra>%{fullData.name}</extra>",
            )
        )
    if hatched:  # what the hatching means, in the legend
        fig.add_trace(
            go.Bar(
                x=[None],
                y=[None],
                name="hatched: collapsed on some splits",
                marker=dict(color="white", line=dict(color="black", width=1)),
                marker_pattern=dict(shape="x", fgcolor="black", size=6, solidity=0.2),
                hoverinfo="skip",
            )
        )
    fig.update_layout(barmode="group")
    fig.update_yaxes(title="accuracy", rangemode="tozero")
    return _layout(fig, title, height=420)


def comparison_boxes(results, title: str | None = "Accuracy per split") -> go.Figure:
    """Box plot of per-split accuracies (DataFrame with dataset, label, accuracy)."""
    fig = go.Figure()
    for i, (label, part) in enumerate(results.groupby("label", sort=False)):
        fig.add_trace(
            go.Box(
                x=part["dataset"],
                y=part["accuracy"],
                name=str(label),
                boxpoints="all",
                marker_color=PALETTE[i % len(PALETTE)],
            )
        )
    fig.update_layout(boxmode="group")
    fig.update_yaxes(title="accuracy")
    return _layout(fig, title, height=420)


def paper_vs_ours(table, title: str | None = None) -> go.Figure:
    """Grouped bars: the paper's number beside ours (mean ± std) per setting and method."""
    t = table.copy()
    t["where"] = t["setting"].astype(str) + " · " + t["method"].astype(str)
    fig = go.Figure(
        [
            go.Bar(x=t["where"], y=t["paper"], name="paper", marker_color="#7f7f7f"),
            go.Bar(
                x=t["where"],
                y=t["ours_mean"],
                error_y=dict(type="data", array=t["ours_std"].fillna(0.0), visible=True),
                name="ours",
                marker_color="#1f77b4",
            ),
        ]
    )
    fig.update_layout(barmode="group")
    metric = ", ".join(sorted(set(map(str, t["metric"])))) if "metric" in t else ""
    fig.update_yaxes(title=metric)
    return _layout(fig, title, height=420)


SWEEP_TOKEN = r"(?P<name>[^\s,=]+)=(?P<value>[-+0-9.eE]+)"


def sweep_axis(settings) -> tuple[str, dict[str, tuple[str, float]]] | None:
    """A parameter the settings sweep, e.g. "λ" in "two moons, knn graph, t=0.25, λ=16": the name
    and, per setting, (the rest of the setting, the value). None unless some rest has three or
    more values of the same name."""
    import re

    parsed: dict[str, dict[str, tuple[str, float]]] = {}
    for setting in dict.fromkeys(map(str, settings)):
        for match in re.finditer(SWEEP_TOKEN, setting):
            rest = (setting[: match.start()] + "·" + setting[match.end() :]).strip(", ")
            parsed.setdefault(match["name"], {})[setting] = (rest, float(match["value"]))
    best = None
    for name, rows in parsed.items():
        by_rest: dict[str, int] = {}
        for rest, _ in rows.values():
            by_rest[rest] = by_rest.get(rest, 0) + 1
        longest = max(by_rest.values())
        if longest >= 3 and (best is None or longest > best[2]):
            best = (name, rows, longest)
    return None if best is None else (best[0], best[1])


def sweep_lines(table, title: str | None = None) -> go.Figure | None:
    """A sweep table (tdl-moons: accuracy over λ for several readings) as lines over the swept
    parameter, one line per method and fixed rest of the setting, ± std as a band; None when the
    table sweeps nothing."""
    found = sweep_axis(table["setting"])
    if found is None:
        return None
    name, rows = found
    t = table[table["setting"].astype(str).isin(rows)].copy()
    t["rest"] = [rows[s][0] for s in t["setting"].astype(str)]
    t["x"] = [rows[s][1] for s in t["setting"].astype(str)]
    counts = t.groupby("rest")["x"].nunique()
    t = t[t["rest"].isin(counts[counts >= 3].index)]
    fig = go.Figure()
    for i, ((rest, method), part) in enumerate(t.groupby(["rest", "method"], sort=False)):
        part = part.sort_values("x")
        colour = PALETTE[i % len(PALETTE)]
        label = (
            f"{method} ({rest.replace('·', '').strip(', ')})" if t["rest"].nunique() > 1 else method
        )
        fig.add_trace(
            go.Scatter(
                x=part["x"],
                y=part["ours_mean"],
                error_y=dict(type="data", array=part["ours_std"].fillna(0.0), visible=True),
                mode="lines+markers",
                name=str(label),
                line=dict(color=colour),
            )
        )
    positive = (t["x"] > 0).all() and t["x"].max() / max(t["x"].min(), 1e-300) >= 100
    fig.update_xaxes(title=name, type="log" if positive else "linear")
    metric = ", ".join(sorted(set(map(str, t["metric"])))) if "metric" in t else ""
    fig.update_yaxes(title=metric)
    return _layout(fig, title or f"ours over {name} (mean ± std over the splits)", height=480)


def results_heatmap(table, title: str | None = None) -> go.Figure:
    """Many rows of one metric as a heat map: settings down, methods across, our mean in the cell
    (readable where a bar chart's rotated labels are not)."""
    pivot = table.pivot_table(index="setting", columns="method", values="ours_mean", sort=False)
    text = [[("" if np.isnan(v) else f"{v:.3g}") for v in row] for row in pivot.to_numpy()]
    fig = go.Figure(
        go.Heatmap(
            z=pivot.to_numpy(),
            x=[str(c) for c in pivot.columns],
            y=[str(i) for i in pivot.index],
            text=text,
            texttemplate="%{text}",
            colorscale="Viridis",
            colorbar=dict(title="ours"),
            hovertemplate="%{y}<br>%{x}: %{z:.4g}<extra></extra>",
        )
    )
    fig.update_yaxes(autorange="reversed")
    height = max(360, 28 * len(pivot.index) + 160)
    return _layout(fig, title, height=height)
