"""`draw_chart`'s colour guard: a figure colour Streamlit's theme would replace ("#000001" ...
"#000040") is respelled in rgb(), found by a cheap read of the figure's JSON dicts."""

import numpy as np
import plotly.graph_objects as go
import pytest

from metriclab.ui.shared.charts import _collides, _read_collides, exact_colours

FIGURES = {
    "plain": lambda: go.Figure(go.Scatter(x=[0, 1], y=[1, 0], marker=dict(color="#1f77b4"))),
    "magma heat map": lambda: go.Figure(go.Heatmap(z=np.eye(3), colorscale="Magma")),
    "named scale": lambda: go.Figure(go.Heatmap(z=np.eye(3), colorscale="Viridis")),
    "marker line": lambda: go.Figure(
        go.Scatter(x=[0], y=[0], marker=dict(color="white", line=dict(color="#000004")))
    ),
    "a colour per point": lambda: go.Figure(
        go.Scatter(
            x=np.arange(100), y=np.arange(100), marker=dict(color=["#00000a"] + ["red"] * 99)
        )
    ),
    "many plain per point": lambda: go.Figure(
        go.Scatter(x=np.arange(100), y=np.arange(100), marker=dict(color=["red"] * 100))
    ),
    "layout paper": lambda: go.Figure(layout=dict(paper_bgcolor="#000040")),
    "layout colorway": lambda: go.Figure(layout=dict(colorway=["#000012", "#ff0000"])),
    "bar": lambda: go.Figure(go.Bar(x=[1], y=[2], marker=dict(color="#000041"))),
}


@pytest.mark.parametrize("name", list(FIGURES))
def test_the_quick_read_finds_what_plotly_lookup_finds(name):
    fig = FIGURES[name]()
    assert _read_collides(fig) == _collides(fig, write=False)


def test_a_colliding_colour_is_respelled_in_a_copy_and_a_clean_figure_is_passed_on():
    fig = FIGURES["magma heat map"]()
    out = exact_colours(fig)
    assert out is not fig
    assert not _read_collides(out)
    assert "rgb(0, 0, 4)" in str(out.data[0].colorscale)
    assert str(fig.data[0].colorscale[0][1]).lower() == "#000004"  # the given figure unchanged
    clean = FIGURES["plain"]()
    assert exact_colours(clean) is clean
    assert _read_collides(FIGURES["layout paper"]()) and _read_collides(FIGURES["marker line"]())
