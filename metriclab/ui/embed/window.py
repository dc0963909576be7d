"""The Embed page's window map: the accuracy difference to the method's baseline over a grid of
two parameters, with a line around the cells where the method wins."""

from __future__ import annotations

import numpy as np
import streamlit as st

from metriclab import plots
from metriclab.ui.embed.context import EmbedPage, numeric_params
from metriclab.ui.shared import code_snippets, downloads, memo
from metriclab.ui.shared.charts import draw_chart
from metriclab.ui.shared.errors import guarded
from metriclab.ui.shared.state import Rule, announce, seed_from_url, validate_rule, view_value
from metriclab.ui.shared.widgets import param_values

GRID_SIZES = [3, 5, 7, 9, 11]


def paper_setting(spec, dataset: str) -> tuple[str, dict] | None:
    """(where in the paper, {parameter: value}) of the setting the method's paper reports on
    `dataset`, from the reproduction's own constants (metriclab.reproduce), or None."""
    from metriclab.reproduce import tdl

    if spec.paper != tdl.PAPER:
        return None

    if dataset in ("two_moons", "harder_moons"):
        return "Li et al. 2007, Sect. 5.1", {k: tdl.MOONS[k] for k in ("lam", "width")}
    if dataset in tdl.TABLE1_DATA.values():
        return "Li et al. 2007, Table 1", {k: tdl.UCI[k] for k in ("lam", "width")}
    return None


def _axes(page: EmbedPage) -> tuple[list[str], str, str] | None:
    """The sweepable parameters and the default rows and columns (λ × width where there are)."""
    names = [p.name for p in numeric_params(page)]
    if len(names) < 2:
        return None
    row = "lam" if "lam" in names else names[0]
    col = "width" if "width" in names and row != "width" else names[1 if names[0] == row else 0]
    return names, row, col


class _Current:
    """The value each parameter has in the live view (session or shared URL, validated)."""

    def __init__(self, page: EmbedPage):
        self.page = page
        self.from_link: dict = {}

    def __call__(self, pname: str):
        key = self.page.prefix + pname
        current = view_value(key)  # a widget not drawn on this view keeps its value in the view
        if current is None and key in st.query_params:
            if pname not in self.from_link:
                p = self.page.page_param(pname)
                rule = Rule(None, param_values(p) or None, float, label=p.label)
                self.from_link[pname], notice = validate_rule(st.query_params[key], rule)
                if notice:
                    announce(f"Link: **{p.label}** — {notice}.")
            current = self.from_link[pname]
        return current


def _grid(page: EmbedPage, pname: str, size: int, *wanted) -> tuple:
    """`size` values spread over the slider's range, among them each of `wanted` (the current
    value, the paper's; None: none) that the slider offers: each takes the place of the nearest
    spread value not already taken."""
    values = param_values(page.page_param(pname))
    idx = np.linspace(0, len(values) - 1, min(size, len(values))).round().astype(int)
    kept: list[int] = []
    for value in wanted:
        if value is None:
            continue
        here = int(np.argmin([abs(v - value) for v in values]))
        if here in kept:
            continue
        free = [j for j in range(len(idx)) if idx[j] not in kept]
        if not free:
            break
        spot = min(free, key=lambda j: abs(int(idx[j]) - here))
        idx[spot] = here
        kept.append(here)
    return tuple(dict.fromkeys(values[i] for i in sorted(idx)))


def collapse_caption(computed, label: str) -> str:
    """Which cells of the map compare tie-breaking (an embedding there collapsed), or ''."""
    cells = computed.collapsed_cells
    if cells is None or not cells.any():
        return ""
    own, base = int(computed.collapsed.sum()), int(computed.baseline_collapsed.sum())
    return (
        f" × marks the {int(cells.sum())} of {cells.size} cells where an embedding collapsed "
        f"({own} for {label}, {base} for {computed.baseline_label}: the unlabelled points on "
        "fewer than a tenth as many positions), so that their colour compares tie-breaking."
    )


def _show(page: EmbedPage, computed, rows: tuple, cols: tuple, names: tuple[str, str], marks: list):
    """Draw the map and its caption; returns the figure."""
    spec = page.spec
    if computed.failures:
        shown = "; ".join(computed.failures[:3])
        more = f" (and {len(computed.failures) - 3} more)" if len(computed.failures) > 3 else ""
        st.error(
            f"{len(computed.failures)} fit(s) of the grid failed and show as gaps: {shown}{more}",
            icon=":material/error:",
        )
    grid, base_grid, base_label = computed.grid, computed.baseline, computed.baseline_label
    row_p, col_p = spec.param(names[0]), spec.param(names[1])
    fig = plots.window_map(
        rows,
        cols,
        grid,
        base_grid,
        row_name=row_p.label,
        col_name=col_p.label,
        title=f"{spec.label} minus {base_label}: 1-NN accuracy on the unlabeled points",
        row_log=bool(row_p.log and min(rows) > 0),
        col_log=bool(col_p.log and min(cols) > 0),
        baseline_name=base_label,
        marks=marks,
        collapsed=computed.collapsed_cells,
    )
    draw_chart(st, fig, key="window_chart")
    wins = np.nanmean(grid > base_grid + 1e-12)
    st.caption(
        f"Colour: accuracy minus {base_label}'s on the same split (blue: {spec.label} wins, red: "
        f"it loses, white: a tie). {spec.label} wins on {wins:.0%} of the grid; the black line "
        "runs along the sides of those cells. The baseline is fitted with the same shared "
        "settings in each cell; grey dots mark the grid values"
        + "".join(
            f"; {mark[0]} at {row_p.label} = {mark[2]:g}, {col_p.label} = {mark[1]:g}"
            for mark in marks
        )
        + "."
        + collapse_caption(computed, spec.label)
    )
    return fig


def window_view(page: EmbedPage) -> None:
    spec = page.spec
    axes = _axes(page)
    if axes is None:
        st.info(f"{spec.label} needs two numeric parameters for a window map.")
        return
    names, row_default, col_default = axes
    seed_from_url("row", row_default, options=names, label="Rows")
    seed_from_url("col", col_default, options=names, label="Columns")
    c1, c2, c3 = st.columns(3)
    row_name = c1.selectbox("Rows", names, key="row", format_func=lambda n: spec.param(n).label)
    col_name = c2.selectbox("Columns", names, key="col", format_func=lambda n: spec.param(n).label)
    seed_from_url("grid", 7, options=GRID_SIZES, label="Grid size")
    size = c3.select_slider("Grid size", GRID_SIZES, key="grid")
    if row_name == col_name:
        st.error("choose two different parameters for rows and columns")
        return
    current = _Current(page)
    paper = paper_setting(spec, page.request.data.name)
    if paper is not None and not {row_name, col_name} <= set(paper[1]):
        paper = None  # the paper does not set both axes
    from_paper = {} if paper is None else paper[1]
    rows = _grid(page, row_name, size, current(row_name), from_paper.get(row_name))
    cols = _grid(page, col_name, size, current(col_name), from_paper.get(col_name))
    marks = []  # (name, column value, row value, symbol)
    if paper is not None:
        where = f"the paper's setting ({paper[0]})"
        marks.append((where, from_paper[col_name], from_paper[row_name], "star"))
    if current(row_name) is not None and current(col_name) is not None:
        marks.append(("this view's setting", current(col_name), current(row_name), "circle-open"))
    with st.expander("Other parameters (fixed over the grid)", expanded=False):
        fixed = page.widgets(skip=(row_name, col_name))
    kept = {page.prefix + n: current(n) for n in (row_name, col_name) if current(n) is not None}
    page.publish(fixed, keys=["row", "col", "grid"], extra=kept)
    request = page.with_params(fixed)
    run_key = (request, row_name, rows, col_name, cols)
    st.caption(f"{len(rows) * len(cols)} fits, the other parameters as set above.")
    if st.button("Compute window map", type="primary", key="run_window"):
        with st.spinner("fitting the grid and the baseline on each cell"):
            computed = guarded(
                memo.window, request, (row_name, rows), (col_name, cols), context=spec.label
            )
        if computed is not None:
            st.session_state["_window"] = (run_key, computed)
    stored = st.session_state.get("_window")
    if stored is None or stored[0] != run_key:
        return
    fig = _show(page, stored[1], rows, cols, (row_name, col_name), marks)
    snippet = code_snippets.window_snippet(
        request, page.dataset, (row_name, rows), (col_name, cols)
    )
    code_snippets.show_code(snippet)
    guarded(
        _downloads, request, stored[1], ((row_name, rows), (col_name, cols)), fig, snippet,
        context="downloads",
    )  # fmt: skip


WINDOW_FIGURE = """from metriclab.plots import window_map

# the accuracy minus the baseline's over the grid, as the page draws it
fig = window_map(rows, cols, grid, reference, title="the method minus its baseline")
fig"""


def _downloads(request, computed, axes: tuple, fig, snippet: str) -> None:
    """The window map's downloads: the grid's values (CSV), the figure (SVG), the notebook."""
    ds, _ = memo.view_data(request.data)
    (row_name, _), (col_name, _) = axes
    stem = downloads.file_name(
        downloads.data_stem(request.data), request.method, "window", row_name, col_name
    )
    with downloads.download_area():
        left, right = st.columns(2)
        downloads.grid_button(
            left, *axes, (computed.grid, computed.baseline), stem=stem, key="dl_grid"
        )
        downloads.svg_button(right, fig, stem=stem, key="dl_window_svg", what="Map")
        title = f"{request.spec.label} on {ds.name}: window map of {row_name} × {col_name}"
        downloads.notebook_button(
            right, snippet, title=title, stem=stem, key="dl_window_notebook",
            figure_code=WINDOW_FIGURE,
        )  # fmt: skip
        st.caption(
            "Grid: one row per cell, the two parameters, the accuracy, the baseline's and their "
            "difference (the colour drawn). The notebook recomputes every cell and draws the map."
        )
