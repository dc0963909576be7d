"""The Embed page's linked views in a real browser (issue 37, item 1): a box drawn in view 1 selects
the same points in every view, the link records them (`sel=`), and the link reopened, in this
session and in another one, shows the same selection."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.test_browser_app import no_red_box, settled
from tests.test_browser_sessions import query

pytestmark = pytest.mark.browser

LINK = "/embed?ds=iris&mode=linked&methods=tdl,le,nca"
SHOTS = Path(os.environ.get("METRICLAB_SHOTS", "/work/notes/shots"))  # never in the repository

# The linked views' charts (not the "Add a new point" input panel folded below them).
CHARTS_JS = """[...document.querySelectorAll('.js-plotly-plot')].filter(g =>
    /^view \\d/.test(String(((g._fullLayout || {}).title || {}).text || '').replace(/<[^>]+>/g, '')))"""

# Per chart: the data set indices of every point drawn (class traces, edge trace) with where it is
# drawn, and those of the "selected (n)" trace.
VIEWS_JS = (
    """() => """
    + CHARTS_JS
    + """.map(g => {
    const index = t => Array.from(t.customdata || [], c => Array.isArray(c) ? c[0] : Number(c));
    const drawn = (g._fullData || []).filter(t => !String(t.name).startsWith('selected'));
    const points = drawn.flatMap(t => index(t).map((i, k) => [i, t.x[k], t.y[k]]));
    const picked = (g._fullData || []).filter(t => String(t.name).startsWith('selected'));
    return {points, selected: picked.flatMap(index), title: String(g._fullLayout.title.text).replace(/<[^>]+>/g, ''),
            dimmed: drawn.filter(t => t.customdata).every(t => t.marker.opacity < 0.5)};
})"""
)


# Per class pill above the views: its name, its dot's colour (the fill of its SVG) and drawn size
PILLS_JS = """() => [...document.querySelectorAll('.st-key-classes button[data-variant=pills]')].map(b => {
    const img = b.querySelector('img');
    const svg = img ? atob(img.src.split(',')[1]) : '';
    return {name: b.textContent.trim(), colour: (svg.match(/fill='([^']+)'/) || [])[1],
            dot: img ? img.getBoundingClientRect().height : 0,
            on: b.getAttribute('aria-pressed') === 'true'};
})"""


def views(page) -> list[dict]:
    return page.evaluate(VIEWS_JS)


def drag_box(page, chart: int, box: tuple[float, float, float, float]) -> None:
    """Drag a selection box (x0, y0, x1, y1 in data units) over chart number `chart`."""
    corners = page.evaluate(
        """([n, b]) => { const g = document.querySelectorAll('.js-plotly-plot')[n];
        const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis, r = g.getBoundingClientRect();
        const px = v => r.left + xa._offset + xa.l2p(v), py = v => r.top + ya._offset + ya.l2p(v);
        return [px(b[0]), py(b[1]), px(b[2]), py(b[3])]; }""",
        [chart, list(box)],
    )
    page.mouse.move(corners[0], corners[1])
    page.mouse.down()
    page.mouse.move((corners[0] + corners[2]) / 2, (corners[1] + corners[3]) / 2, steps=5)
    page.mouse.move(corners[2], corners[3], steps=5)
    page.mouse.up()


def wait_selected(page, count: int) -> None:
    """Wait until every chart draws a selection of `count` points and the app is idle."""
    page.wait_for_function(
        """n => { const gs = """
        + CHARTS_JS
        + """;
        return gs.length === 3 && gs.every(g => (g._fullData || []).some(t =>
            String(t.name).startsWith('selected') && (t.customdata || []).length === n)); }""",
        arg=count,
        timeout=120_000,
    )
    settled(page)


def test_a_box_in_view_one_selects_the_same_points_in_every_view_and_the_link_keeps_them(
    page, app_url
):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + LINK)
    settled(page)
    page.wait_for_function("() => " + CHARTS_JS + ".length === 3")
    first = views(page)
    assert [v["title"] for v in first] == [
        "view 1: TDL",
        "view 2: Laplacian Eigenmaps",
        "view 3: NCA",
    ]
    assert all(v["selected"] == [] for v in first)
    # a box over the points of view 1 right of its widest gap along x (its whole y range): the
    # box's edge in the gap, so that no point lies within a pixel of it. It is dragged from inside
    # the chart to past its top, as a person takes in the point drawn on the chart's top edge
    # (plotly holds the box at the edge)
    xs = sorted(p[1] for p in first[0]["points"])
    ys = [p[2] for p in first[0]["points"]]
    gap = max(range(len(xs) - 1), key=lambda i: xs[i + 1] - xs[i])
    low_x = (xs[gap] + xs[gap + 1]) / 2
    box = (xs[-1] + 0.02, min(ys) - 0.02, low_x, max(ys) + 0.02)
    inside = {p[0] for p in first[0]["points"] if p[1] > low_x}
    assert 10 <= len(inside) < 150
    drag_box(page, 0, box)
    wait_selected(page, len(inside))
    after = views(page)
    for view in after:  # the same points in every view, the others dimmed, none moved
        assert set(view["selected"]) == inside, view["title"]
        assert view["dimmed"], view["title"]
    for before, now in zip(first, after, strict=True):
        assert sorted(map(tuple, before["points"])) == sorted(map(tuple, now["points"]))
    page.wait_for_function("() => new URLSearchParams(location.search).has('sel')")
    from metriclab.ui.embed.linked import decode_selection

    assert set(decode_selection(query(page)["sel"], 150).tolist()) == inside
    assert page.get_by_text(f"{len(inside)} point(s) selected").count() == 1
    no_red_box(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "linked-selection.png"))
    # the link reloaded: the same selection, in every view
    page.reload()
    settled(page)
    wait_selected(page, len(inside))
    assert all(set(v["selected"]) == inside for v in views(page))
    # the link in another session
    other = page.context.browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    other.goto(page.url)
    settled(other)
    wait_selected(other, len(inside))
    assert all(set(v["selected"]) == inside for v in views(other))
    no_red_box(other)
    other.context.close()
    # cleared: no selection drawn, none in the link
    page.get_by_role("button", name="Clear selection").click()
    page.wait_for_function("() => !new URLSearchParams(location.search).has('sel')")
    settled(page)
    assert all(v["selected"] == [] and not v["dimmed"] for v in views(page))
    no_red_box(page)


def test_a_held_out_share_draws_the_mapped_points_in_every_view(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + LINK + "&test=0.3")
    settled(page)
    page.wait_for_function(
        "() => " + CHARTS_JS + ".filter(g => (g._fullData || []).some(t => "
        "String(t.name).startsWith('held out') && (t.customdata || []).length === 45)"
        ").length === 3",
        timeout=120_000,
    )
    assert page.get_by_text("1-NN, held out").count() == 3
    no_red_box(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "wire-linked-heldout.png"))


def test_a_sidebar_trip_and_back_keeps_the_linked_views_selection_and_held_out_share(page, app_url):
    """Issue 37: the look-closer views survive a trip through the sidebar (Data and back): the
    mode, the methods, the held-out share and the selection come back, drawn in every view."""
    from tests.test_browser_view import nav

    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + LINK + "&sel=0-9&test=0.3")
    settled(page)
    wait_selected(page, 10)
    nav(page, "Data")
    nav(page, "Embed")
    settled(page)
    wait_selected(page, 10)
    q = query(page)
    assert (q["mode"], q["methods"], q["sel"], q["test"]) == ("linked", "tdl,le,nca", "0-9", "0.3")
    held_out = page.evaluate(
        "() => "
        + CHARTS_JS
        + """.map(g => (g._fullData || []).filter(t => String(t.name).startsWith('held out'))
            .reduce((n, t) => n + (t.customdata || []).length, 0))"""
    )
    assert held_out == [45, 45, 45]  # 30 % of iris's 150, in every view
    no_red_box(page)


# Per chart: the plot's height, the legend's scrollbar (its height; 0 when none), the legend's
# entries and the distinct colours of the class traces.
LEGENDS_JS = (
    """() => """
    + CHARTS_JS
    + """.map(g => {
    const bar = g.querySelector('.legend .scrollbar');
    const classes = (g._fullData || []).filter(t => t.legendrank >= 1000 && t.legendrank < 2000
        && !/[(]labeled[)]$/.test(t.name) && t.marker && typeof t.marker.color === 'string'
        && t.customdata);
    return {plot: g.querySelector('.nsewdrag').getBoundingClientRect().height,
            scroll: bar ? bar.getBBox().height : 0,
            entries: g.querySelectorAll('.legend .traces').length,
            names: [...g.querySelectorAll('.legend .legendtext')].map(t => t.textContent),
            classes: classes.length, colours: new Set(classes.map(t => t.marker.color)).size};
})"""
)


@pytest.mark.parametrize("held_out", ["", "&test=0.3"])
def test_fifteen_classes_in_three_views_one_key_above_them_and_whole_plots(page, app_url, held_out):
    """Soybean's 15 classes in three linked views at 1280×800: Plotly squashed each plot to 112 px
    under a legend it scrolled (its last classes hidden), and five pairs of classes shared a colour
    (ten colours); then each view repeated the 15 classes in 13 rows under its plot, pushing the
    scores off the screen. Now the classes are keyed once, above the views, each in its own colour
    (15 colours, as the views draw them) with the other marks the views draw (labelled, held-out,
    edge points), and the views draw no legend: every plot keeps its height (a view with two
    entries of its own had its plot squashed to 184 px by rows estimated for another width). With a held-out share, a class
    whose points were all held out or on the chart's edge still has its key (charcoal-rot in TDL's
    view had lost its entry, its colour unexplained)."""
    from metriclab.datasets import load
    from metriclab.plots.base import class_color

    classes = [str(name) for name in load("soybean").target_names]
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + "/embed?ds=soybean&mode=linked&methods=tdl,le,nca" + held_out)
    settled(page)
    page.wait_for_function("() => " + CHARTS_JS + ".length === 3")
    key = page.locator("[data-testid='linked-legend']")
    assert key.count() == 1
    entries = key.evaluate("k => [...k.children].map(e => e.textContent.trim())")
    kinds = ["\u25c6 labeled points"]  # what the views draw besides the classes, once each
    if held_out:
        kinds = ["\u25c7 held out (mapped)", *kinds, "\u25b3 drawn at the chart's edge"]
    assert entries == kinds
    # the classes are keyed by the pills that choose which are drawn: each its dot, in its colour
    pills = page.evaluate(PILLS_JS)
    assert [p["name"] for p in pills] == classes
    colours = [p["colour"] for p in pills]
    assert colours == [class_color(c) for c in range(15)] and len(set(colours)) == 15
    assert all(p["dot"] > 0 for p in pills)  # the dot is drawn, not only named
    for view in page.evaluate(LEGENDS_JS):
        assert view["names"] == [] and view["plot"] >= 240, view  # keyed above; no rows taken
        if not held_out:
            assert view["classes"] == 15 and view["colours"] == 15, view
    no_red_box(page)


def test_a_class_hidden_by_its_pill_leaves_every_view_and_the_link_keeps_it(page, app_url):
    """A click on setosa's pill (iris's indices 0 to 49): no view draws a setosa point, neither in
    its class, edge and held-out traces nor in the selection's overlay; the other points stay
    where they were drawn and the frames do not move; the link records it and reopens it."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + LINK + "&test=0.3&sel=0-9,60-64")
    settled(page)
    wait_selected(page, 15)
    before = views(page)
    frames = (
        "() => " + CHARTS_JS + ".map(g => [g._fullLayout.xaxis.range, g._fullLayout.yaxis.range])"
    )
    frames_before = page.evaluate(frames)
    assert all(any(p[0] < 50 for p in v["points"]) for v in before)
    page.locator(".st-key-classes button[data-variant=pills]", has_text="setosa").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('classes') === '1,2'")
    wait_selected(page, 5)
    after = views(page)
    assert len(after) == 3
    for old, new in zip(before, after, strict=True):
        assert new["points"] and all(p[0] >= 50 for p in new["points"]), new["title"]
        kept = sorted(map(tuple, (p for p in old["points"] if p[0] >= 50)))
        assert sorted(map(tuple, new["points"])) == kept, new["title"]  # none moved or lost
        assert sorted(new["selected"]) == list(range(60, 65)), new["title"]
    assert page.evaluate(frames) == frames_before
    assert page.get_by_text("Hidden: setosa").count() == 1
    no_red_box(page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "linked-setosa-hidden.png"))
    page.reload()  # the link reopens with setosa hidden
    settled(page)
    wait_selected(page, 5)
    assert all(all(p[0] >= 50 for p in v["points"]) for v in views(page))
    assert [p["on"] for p in page.evaluate(PILLS_JS)] == [False, True, True]


@pytest.mark.parametrize(("ds", "height"), [("iris", 720), ("soybean", 800)])
def test_in_presentation_mode_the_three_views_are_whole_on_a_projectors_first_screen(
    page, app_url, ds, height
):
    """Presentation mode at 1280×800 (and 720): the three linked views come below the methods,
    the held-out slider and the class pills, and are whole on the first screen. Each view was
    drawn 560 px tall (the single chart's height): iris's views ran from 352 to 912 px, soybean's
    (15 pills) from 419 to 979, their lower half below the screen. The views with points drawn at
    the chart's edge fill their plot area (367×274 px): their frame, shaped for the normal view's
    (0.97:1), left 266 px of its width."""
    page.set_viewport_size({"width": 1280, "height": height})
    page.goto(app_url + f"/embed?ds={ds}&mode=linked&methods=tdl,le,nca&present=1")
    settled(page)
    page.wait_for_function("() => " + CHARTS_JS + ".length === 3")
    boxes = page.evaluate(
        "() => " + CHARTS_JS + ".map(g => { const r = g.getBoundingClientRect(), L = g._fullLayout;"
        " return {top: r.top, bottom: r.bottom, plot: L._size.h, w: L._size.w, h: L._size.h,"
        " x: L.xaxis._length, y: L.yaxis._length}; })"
    )
    for box in boxes:
        assert 0 <= box["top"] and box["bottom"] <= height, box  # whole on the first screen
        assert box["plot"] >= 240, box  # a plot, not a strip squeezed under its title
        # the frame (of the points drawn at its edge too) has the plot area's shape: it fills it
        assert box["x"] >= 0.9 * box["w"] and box["y"] >= 0.9 * box["h"], box
    no_red_box(page)


@pytest.mark.parametrize("methods", ["tdl,le,nca", "tdl,le,nca,pca"])
def test_a_views_toolbar_does_not_cover_its_title(page, app_url, methods):
    """Hovering a linked view shows plotly's toolbar over its title band. In a column of a
    1280-px window (263 px for three views) its ten buttons took two rows, 51 px, and the second
    row's button sat on the first letters of "view 1: TDL"; now one row, above the title."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + f"/embed?ds=iris&mode=linked&methods={methods}")
    settled(page)
    page.wait_for_function("() => " + CHARTS_JS + f".length === {methods.count(',') + 1}")
    for n in range(methods.count(",") + 1):
        chart = page.locator(".js-plotly-plot").nth(n)
        chart.hover()
        bar = chart.locator(".modebar")
        bar.wait_for(state="visible")
        buttons = bar.locator(".modebar-btn").evaluate_all(
            "bs => bs.map(b => Math.round(b.getBoundingClientRect().top))"
        )
        title = chart.locator(".gtitle").bounding_box()
        assert len(set(buttons)) == 1, buttons  # one row
        assert bar.bounding_box()["y"] + bar.bounding_box()["height"] <= title["y"] + 1, n
