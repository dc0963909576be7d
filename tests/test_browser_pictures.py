"""Every picture tells the truth, at a lecture's screen size (issue 36), in a real browser: one test
per item of the issue, each failing on the code before it."""

from __future__ import annotations

import re

import pytest

from metriclab.ui.dev.server import wait_idle
from tests.test_browser_sessions import open_page

pytestmark = pytest.mark.browser

# The first chart's traces as drawn (name, x, y, customdata, marker) and its axis ranges.
CHART_JS = """(index) => { const g = document.querySelectorAll('.js-plotly-plot')[index || 0];
  const L = g._fullLayout;  // the traces as plotly decoded them (the sent arrays are base64)
  return {traces: g._fullData.map((t, i) => ({i, name: t.name || '', type: t.type,
            x: t.x ? Array.from(t.x) : [], y: t.y ? Array.from(t.y) : [],
            custom: t.customdata ? Array.from(t.customdata) : [],
            size: t.marker ? t.marker.size : null, opacity: t.marker ? t.marker.opacity : null,
            legendgroup: t.legendgroup || '', symbol: t.marker ? t.marker.symbol : null})),
          x: L.xaxis.range.slice(), y: L.yaxis.range.slice(),
          title: L.title && L.title.text || ''}; }"""


# A heatmap's size and its axes' ranges as drawn.
MATRIX_JS = """(index) => { const g = document.querySelectorAll('.js-plotly-plot')[index];
  const t = g._fullData.find(t => t.type === 'heatmap'), L = g._fullLayout;
  return {n: t.z.length, x: L.xaxis.range.slice(), y: L.yaxis.range.slice()}; }"""


def chart(page, index: int = 0) -> dict:
    page.wait_for_selector(".js-plotly-plot")
    return page.evaluate(CHART_JS, index)


def open_presenting(page, url: str) -> None:
    """Open a link in presentation mode: the page's title is hidden there, so wait for the way
    back (the condition the test needs), not for a visible h1."""
    page.goto(url)
    page.get_by_role("button", name="Exit presentation").wait_for(state="visible")
    wait_idle(page)


def points(trace) -> list[tuple[float, float]]:
    return [
        (x, y)
        for x, y in zip(trace["x"], trace["y"], strict=False)
        if x is not None and y is not None
    ]


def on_the_edge(placed: list[tuple[float, float]], drawn: dict) -> bool:
    """Whether every point lies on the frame plotly drew (to a millionth of its span)."""
    (x0, x1), (y0, y1) = drawn["x"], drawn["y"]
    near = lambda v, a, b: min(abs(v - a), abs(v - b)) <= 1e-6 * (b - a)  # noqa: E731
    return bool(placed) and all(near(x, x0, x1) or near(y, y0, y1) for x, y in placed)


# 1. no ordinary point is moved silently ------------------------------------------------------------


def test_a_coordinate_carried_by_few_points_is_said_and_the_bulk_is_shown(page, app_url):
    open_page(page, f"{app_url}/lessons?lesson=tdl&step=8")
    page.wait_for_selector(".js-plotly-plot")
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "far outside" not in text  # the rule that called points at -0.001 outliers
    said = re.search(r"(\d+) point\(s\) carry (\d+(?:\.\d+)?)% of axis (\d)", text)
    assert said, text[-3000:]
    drawn = chart(page)
    (edge,) = [t for t in drawn["traces"] if t["name"].startswith("drawn at the chart's edge")]
    moved = int(re.search(r"\((\d+)\)", edge["name"]).group(1))
    assert moved == len(points(edge)) and 1 <= moved <= 10, edge["name"]
    (x0, x1), (y0, y1) = drawn["x"], drawn["y"]
    assert on_the_edge(points(edge), drawn)  # where the chart's edge is drawn, not inside it
    placed = [
        p for t in drawn["traces"] if t["i"] != edge["i"] and t["x"] for p in points(t)
    ]  # every other point is where the embedding puts it, inside the view
    assert len(placed) == 351 - moved
    assert all(x0 < x < x1 and y0 < y < y1 for x, y in placed)
    spans = [
        (max(v) - min(v)) / (hi - lo)
        for v, (lo, hi) in (([x for x, _ in placed], (x0, x1)), ([y for _, y in placed], (y0, y1)))
    ]
    assert max(spans) > 0.5, spans  # the bulk fills the picture (equal scales: along one axis)
    # the zoom can be undone: then every point is drawn at its place and none is moved
    page.get_by_role("paragraph").filter(has_text=re.compile(r"^Zoom to the bulk$")).click()
    wait_idle(page)
    drawn = chart(page)
    assert not any(t["name"].startswith("drawn at the chart's edge") for t in drawn["traces"])
    everything = [p for t in drawn["traces"] if t["x"] for p in points(t)]
    assert len(everything) == 351
    (x0, x1), (y0, y1) = drawn["x"], drawn["y"]
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in everything)


def test_a_point_drawn_at_the_charts_edge_is_on_the_edge_in_every_view(page, app_url):
    """Laplacian Eigenmaps on iris: point 41 carries axis 2 and the other 149 lie in a band 0.15
    high. Plotly widened the band's frame to fill the chart at equal scales, so the triangle "drawn
    at the chart's edge" was drawn 0.02 above the bulk in a chart reaching 0.6, where no point lies:
    in the live view, in presentation mode and in each linked view that carries it."""
    for url, charts in (
        ("/embed?ds=iris&method=le", [0]),
        ("/embed?ds=iris&method=le&present=1", [0]),
        ("/embed?ds=iris&mode=linked&methods=tdl,le,nca", [0, 1]),
    ):
        if "present=1" in url:
            open_presenting(page, app_url + url)
        else:
            open_page(page, app_url + url)
        for index in charts:
            drawn = chart(page, index)
            (edge,) = [t for t in drawn["traces"] if t["name"].startswith("drawn at the chart's")]
            assert on_the_edge(points(edge), drawn), (url, index, points(edge), drawn["y"])


def test_a_bulk_at_one_position_is_not_framed_as_if_it_had_structure(page, app_url):
    """Laplacian Eigenmaps on yeast: 33 points carry both axes and the other 1,451 sit at one
    position (a spread of 5e-12). The zoom framed that spread (ticks at -0.0998278401 ...), drawing
    rounding as if it were structure; now every point is drawn where it lies and the note says
    where the others sit."""
    open_page(page, f"{app_url}/embed?ds=yeast&method=le")
    page.wait_for_selector(".js-plotly-plot")
    drawn = chart(page)
    assert not any(t["name"].startswith("drawn at the chart's edge") for t in drawn["traces"])
    everything = [p for t in drawn["traces"] if t["x"] for p in points(t)]
    (x0, x1), (y0, y1) = drawn["x"], drawn["y"]
    assert x1 - x0 > 1 and y1 - y0 > 1, drawn["x"]  # the embedding's scale, not 1e-11
    assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y in everything)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "the other 1,451 sit at one position" in text, text[-3000:]
    assert "the view is not narrowed to them" in text


# The main chart's legend: its scrollbar's height (0 when none), its entries, and the lowest
# entry's bottom against the figure's.
LEGEND_JS = """() => { const g = document.querySelector('.js-plotly-plot');
  const bar = g.querySelector('.legend .scrollbar'), items = [...g.querySelectorAll('.legend .traces')];
  return {scroll: bar ? bar.getBBox().height : 0, entries: items.length,
          lowest: Math.max(...items.map(e => e.getBoundingClientRect().bottom)),
          bottom: g.getBoundingClientRect().bottom}; }"""


@pytest.mark.parametrize(
    "link, entries",
    [("/embed?ds=digits&method=tdl", 11), ("/embed?ds=soybean&method=tdl&present=1", 16)],
)
def test_the_main_charts_legend_is_whole(page, app_url, link, entries):
    """Ten digits and the labelled points' key beside the plot: Plotly caps such a legend at the
    plot's height and scrolled it by a few px (a scrollbar on the Embed page of digits, USPS and
    yeast); 15 classes on a projector go under the plot in rows. No scrollbar, every entry inside
    the figure."""
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(app_url + link)
    page.wait_for_selector(".js-plotly-plot")
    wait_idle(page)
    legend = page.evaluate(LEGEND_JS)
    assert legend["scroll"] == 0 and legend["entries"] == entries, legend
    assert legend["lowest"] <= legend["bottom"], legend


# 2. each scrub frame shows the spread its accuracy is computed on --------------------------------


FRAME_JS = """async (name) => { const g = document.querySelector('.js-plotly-plot');
  await Plotly.animate(g, [name], {mode: 'immediate', frame: {duration: 0, redraw: true},
                                   transition: {duration: 0}});
  const L = g._fullLayout;
  const xs = g._fullData.filter(t => !/labeled|edge/.test(t.name || '') && t.x)
                   .flatMap(t => Array.from(t.x)).filter(v => v !== null);
  return {range: L.xaxis.range.slice(), lo: Math.min(...xs), hi: Math.max(...xs),
          title: L.title && L.title.text || ''}; }"""


def test_every_scrub_frame_shows_the_spread_of_its_unlabeled_points(page, app_url):
    open_page(page, f"{app_url}/embed?ds=harder_moons&method=tdl&mode=scrub&p.tdl.n_components=1")
    page.wait_for_selector(".js-plotly-plot")
    names = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._transitionData._frames.map(f => f.name)"
    )
    assert len(names) > 10
    for name in names:
        frame = page.evaluate(FRAME_JS, name)
        span = frame["range"][1] - frame["range"][0]
        assert frame["hi"] - frame["lo"] > 0.5 * span, (name, frame)  # not one dot
        assert "axis" in frame["title"], frame["title"]  # the frame's own scale is said
    # the title whole at 1280 px: "TDL (transductive distance learning) on harder_moons: drag the
    # slider to scrub λ (graph penalty)" ran past the chart's right edge
    page.set_viewport_size({"width": 1280, "height": 800})
    wait_idle(page)
    title, chart = page.evaluate(
        """() => { const g = document.querySelector('.js-plotly-plot');
        const t = g.querySelector('.gtitle').getBoundingClientRect();
        return [t.right, g.getBoundingClientRect().right]; }"""
    )
    assert title <= chart, (title, chart)


def test_a_scrub_frame_draws_the_scale_its_title_gives(page, app_url):
    """LE on iris scrubbed through its graph neighbours: one unlabelled point carries axis 2. The
    frame held it, so the other 134 unlabelled points were drawn as two dots, and plotly widened
    the frame at equal scales: the title said "axis 2 from -9.18 to 0.959", the chart drew -9.51
    to 1.29. Now the frame is the bulk's, drawn as its title says, the carrier on its edge."""
    open_page(page, f"{app_url}/embed?ds=iris&method=le&mode=scrub&scrub=n_neighbors")
    drawn = chart(page)
    said = re.findall(r"axis (\d) from (-?[\d.e+-]+) to (-?[\d.e+-]+)", drawn["title"])
    assert len(said) == 2, drawn["title"]
    for axis, low, high in said:
        lo, hi = drawn["x" if axis == "1" else "y"]
        assert f"{lo:.3g}" == low and f"{hi:.3g}" == high, (axis, low, high, lo, hi)
    assert "less 1 that carry a coordinate" in drawn["title"]
    (edge,) = [t for t in drawn["traces"] if t["name"].startswith("drawn at the chart's edge")]
    assert on_the_edge(points(edge), drawn)


# 3. all of MNIST is readable ---------------------------------------------------------------------


def test_labelled_points_of_a_dense_set_do_not_hide_the_rest(page, app_url):
    open_page(page, f"{app_url}/embed?ds=mnist_5000&method=pca&frac=0.1")
    drawn = chart(page)
    scatter = [t for t in drawn["traces"] if t["x"] and t["name"] != "labeled points"]
    labelled = [t for t in scatter if "(labeled)" in t["name"]]
    unlabelled = [t for t in scatter if "(labeled)" not in t["name"]]
    assert labelled and unlabelled
    assert max(t["i"] for t in labelled) < min(t["i"] for t in unlabelled)  # drawn beneath
    assert all(t["size"] <= min(u["size"] for u in unlabelled) + 1 for t in labelled)
    assert all(u["opacity"] < 0.75 for u in unlabelled)  # dense regions stay legible
    assert len({t["legendgroup"] for t in labelled}) == 1  # one legend entry hides them all


# 4. the neighbour panels are readable --------------------------------------------------------------


CLICK_JS = """() => { const g = document.querySelector('.js-plotly-plot');
  const L = g._fullLayout, t = g._fullData.find(t => !/labeled/.test(t.name || '') && t.x);
  const box = g.querySelector('.nsewdrag').getBoundingClientRect();
  return {x: box.left + L.xaxis.l2p(t.x[0]), y: box.top + L.yaxis.l2p(t.y[0])}; }"""

TICKS_JS = """(label) => { const g = [...document.querySelectorAll('.js-plotly-plot')]
    .find(g => ((g._fullLayout.title || {}).text || '').includes(label));
  const title = g.querySelector('.gtitle').getBoundingClientRect();
  return [...g.querySelectorAll('.xtick text')].map(t => { const b = t.getBoundingClientRect();
    return {text: t.textContent, html: t.innerHTML, transform: t.getAttribute('transform') || '',
            size: parseFloat(getComputedStyle(t).fontSize), top: b.top, bottom: b.bottom,
            titleBottom: title.bottom, left: b.left, right: b.right}; }); }"""


def test_the_neighbour_panels_are_readable_and_tell_the_distances_apart(page, app_url):
    open_page(page, f"{app_url}/embed?ds=mnist_5000&method=pca&cap=1000")
    page.wait_for_selector(".js-plotly-plot")
    spot = page.evaluate(CLICK_JS)
    page.mouse.click(spot["x"], spot["y"])
    page.get_by_text("nearest under the embedding").first.wait_for()
    wait_idle(page)
    for label in ("nearest under the embedding", "nearest under Euclidean input"):
        ticks = page.evaluate(TICKS_JS, label)
        assert len(ticks) == 6
        for tick in ticks:
            assert "rotate" not in tick["transform"], tick
            assert tick["size"] >= 12, tick
            assert tick["top"] >= tick["titleBottom"] - 1, tick  # below the panel's title
        for a, b in zip(ticks, ticks[1:], strict=False):
            assert a["right"] <= b["left"] + 1, (a, b)  # side by side, not over each other
        distances = [re.search(r"d\s*=\s*([\d.,e+]+)", t["text"]) for t in ticks[1:]]
        values = [d.group(1) for d in distances if d]
        assert len(values) == 5 and len(set(values)) == 5, values


# 5. presentation mode fits the projector ----------------------------------------------------------


@pytest.mark.parametrize("size", [(1280, 720), (1280, 800), (1920, 1080)])
def test_presentation_shows_the_main_chart_whole_at_projector_sizes(browser, app_url, size):
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        for path in (
            "/lessons?lesson=tdl&step=2&present=1",
            "/embed?ds=harder_moons&method=tdl&p.tdl.n_components=1&present=1",
            "/embed?ds=harder_moons&method=tdl&p.tdl.n_components=2&present=1",
        ):
            open_presenting(page, app_url + path)
            if "lessons" in path:  # the question first: the view waits for the class's answer
                assert page.locator(".js-plotly-plot").count() == 0
                page.get_by_role("button", name="Show the view").click()
            page.wait_for_selector(".js-plotly-plot")
            box = page.locator(".js-plotly-plot").first.bounding_box()
            assert page.evaluate("() => window.scrollY") == 0
            assert box["y"] >= 0 and box["y"] + box["height"] <= height, (path, size, box)
            assert box["height"] >= 350, (path, size, box)  # larger than off a projector
            if "lessons" in path:
                answer = page.get_by_test_id("stExpander").filter(
                    has_text="What to expect, and why"
                )
                assert answer.locator("details").get_attribute("open") is None  # closed
                page.get_by_text("What to expect, and why").click()
                assert answer.locator("details").get_attribute("open") is not None
    finally:
        context.close()


def test_on_a_projector_dissimilarity_and_data_open_on_their_pictures(browser, app_url):
    """Found at 1280×800: in presentation mode the Dissimilarity page's first screen was its
    parameter grid (opened), the kernel and dissimilarity matrices below the fold; the Data
    page's scatter ran 30-60 px past the screen under its size tiles. Both pictures are whole on
    the first screen now."""
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        open_presenting(page, app_url + "/dissimilarity?ds=wine&dmethod=zhang_mds&present=1")
        page.wait_for_selector(".js-plotly-plot")
        grid = page.get_by_test_id("stExpander").filter(has_text="parameters")
        assert grid.locator("details").get_attribute("open") is None  # closed
        assert page.evaluate("() => window.scrollY") == 0
        for chart in page.locator(".js-plotly-plot").all()[:2]:  # the two matrices
            box = chart.bounding_box()
            assert box["y"] >= 0 and box["y"] + box["height"] <= 800, box
        # each matrix's axes end at its last point: the x axis ran on past it (square cells
        # widened the range: a 118-point matrix on an axis to 160)
        for index in range(2):
            drawn = page.evaluate(MATRIX_JS, index)
            assert drawn["x"] == pytest.approx([-0.5, drawn["n"] - 0.5], abs=1e-6), drawn
            assert sorted(drawn["y"]) == pytest.approx([-0.5, drawn["n"] - 0.5], abs=1e-6), drawn
        # the Data page: the scatter first, the size tiles under it (they pushed its axis off)
        open_presenting(page, app_url + "/data?ds=usps&present=1")
        scatter = page.locator(".js-plotly-plot").first.bounding_box()
        assert scatter["y"] >= 0 and scatter["y"] + scatter["height"] <= 800, scatter
        tile = page.get_by_test_id("stMetric").first.bounding_box()
        assert tile["y"] > scatter["y"] + scatter["height"] - 1
    finally:
        context.close()


# 6. the window map answers its own question ---------------------------------------------------------


def test_the_window_map_marks_the_papers_and_the_current_setting(page, app_url):
    open_page(page, f"{app_url}/lessons?lesson=tdl&step=6")
    page.get_by_role("button", name="Compute window map").click()
    page.wait_for_selector(".js-plotly-plot")
    wait_idle(page)
    drawn = chart(page)
    grid = next(t for t in drawn["traces"] if t["name"] == "grid values")
    assert 0.25 in grid["x"] and 16 in grid["y"]  # the paper's values are grid values
    paper = next(t for t in drawn["traces"] if t["name"].startswith("the paper's setting"))
    current = next(t for t in drawn["traces"] if t["name"].startswith("this view's setting"))
    assert points(paper) == [(0.25, 16)] and points(current) == [(0.25, 16)]


# 9. words beside the numbers -------------------------------------------------------------------------


def test_the_sentence_gives_each_references_own_score(page, app_url):
    open_page(page, f"{app_url}/lessons?lesson=tdl&step=1")
    page.wait_for_selector(".js-plotly-plot")
    markdown = page.get_by_test_id("stMarkdownContainer")
    sentence = markdown.filter(has_text="On this split").last.inner_text()
    tiles = dict(
        zip(
            page.get_by_test_id("stMetricLabel").all_inner_texts(),
            page.get_by_test_id("stMetricValue").all_inner_texts(),
            strict=False,
        )
    )
    pca = next(value for label, value in tiles.items() if label.startswith("PCA to 1-D"))
    assert f"PCA to 1-D ({pca}" in sentence, (sentence, tiles)


def test_a_one_dimensional_embedding_shows_enough_eigenvalues_to_see_a_gap(page, app_url):
    open_page(page, f"{app_url}/embed?ds=harder_moons&method=tdl&p.tdl.n_components=1")
    page.wait_for_selector(".st-key-spectrum .js-plotly-plot")
    bars = page.evaluate(
        "() => document.querySelector('.st-key-spectrum .js-plotly-plot')._fullData[0]._length"
    )
    assert bars >= 5


def test_the_chart_toolbar_covers_no_chart_title(page, app_url):
    open_page(page, f"{app_url}/embed?ds=harder_moons&method=tdl&p.tdl.n_components=2")
    chart_el = page.locator(".js-plotly-plot").first
    chart_el.hover()
    page.locator(".modebar").first.wait_for(state="visible")
    title = page.locator(".js-plotly-plot .gtitle").first.bounding_box()
    bars = [page.locator(".modebar").first.bounding_box()]
    toolbar = page.get_by_test_id("stElementToolbar")
    bars += [b for b in (toolbar.nth(i).bounding_box() for i in range(toolbar.count())) if b]
    for bar in bars:
        apart = (
            title["x"] + title["width"] <= bar["x"]
            or bar["x"] + bar["width"] <= title["x"]
            or title["y"] + title["height"] <= bar["y"]
            or bar["y"] + bar["height"] <= title["y"]
        )
        assert apart, (title, bar)


# tiles whose label or value the tile cuts (an ellipsis hides the end of the name or number)
TILE_CUT_JS = """() => [...document.querySelectorAll(
      '[data-testid="stMetricLabel"], [data-testid="stMetricValue"]')]
    .filter(m => [m, ...m.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
    .map(m => m.innerText)"""


def test_every_score_tile_is_whole_on_a_projector(page, app_url):
    """At 1280×800 the Embed page's four tiles had a quarter each: "Laplacian Eigenmaps" was cut
    to "Laplacian Eigenm…" while "1-NN accuracy" had room to spare; sized by the label alone, the
    tile "NCA" cut its value "0.948" to "0…". Now each is as wide as its label or its value (the
    input view's tiles: in the test of its panels)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    for link, named in (("embed", "Laplacian Eigenmaps"), ("embed?ds=iris&method=knca", "NCA")):
        open_page(page, f"{app_url}/{link}")
        page.get_by_text("labeled / unlabeled").first.wait_for()
        wait_idle(page)
        labels = page.get_by_test_id("stMetricLabel").all_inner_texts()
        assert named in labels, (link, labels)
        assert page.evaluate(TILE_CUT_JS) == [], link


# Each panel of the input view: its axis ranges, plot-area height, and its traces' points.
PANELS_JS = """() => { const g = document.querySelector('.js-plotly-plot'), L = g._fullLayout;
  const out = {};
  for (const t of g._fullData) {
    const k = t.xaxis || 'x', s = k.slice(1), xa = L['xaxis' + s], ya = L['yaxis' + s];
    out[k] = out[k] || {x: xa.range.slice(), y: ya.range.slice(), h: ya._length, traces: []};
    out[k].traces.push({name: t.name || '', x: t.x ? Array.from(t.x) : [],
                        y: t.y ? Array.from(t.y) : []});
  }
  return out; }"""


def test_the_input_views_panels_frame_the_bulk_and_mark_the_few_on_their_edge(page, app_url):
    """TDL and Laplacian Eigenmaps on Iris, beside the input: point 41 lies at 8.6 on axis 2 and
    the other 149 within 0.15 of 0; the panels' frames held 8.6, so the 149 were a line at 0 with
    one dot far above, the classes' layout unreadable. Now each panel frames the 149, draws the
    one on its edge as a marked trace, and is tall enough to read."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_page(page, f"{app_url}/embed?ds=iris&method=tdl&mode=input")
    page.wait_for_selector(".js-plotly-plot")
    panels = page.evaluate(PANELS_JS)
    framed = 0
    for axis, panel in panels.items():
        edge = [t for t in panel["traces"] if t["name"] == "drawn at a panel's edge"]
        placed = [p for t in panel["traces"] if t not in edge for p in points(t)]
        if not edge:
            continue
        framed += 1
        assert on_the_edge(points(edge[0]), panel), (axis, panel["y"])
        assert len(placed) + len(points(edge[0])) == 150
        (x0, x1), (y0, y1) = panel["x"], panel["y"]
        assert all(x0 < x < x1 and y0 < y < y1 for x, y in placed)
        spans = [
            (max(v) - min(v)) / (hi - lo)
            for v, (lo, hi) in (
                ([x for x, _ in placed], (x0, x1)),
                ([y for _, y in placed], (y0, y1)),
            )
        ]
        assert max(spans) > 0.5, (axis, spans)  # the bulk fills the frame along one axis
        assert y1 - y0 <= (x1 - x0) / 0.6 * 1.01, (axis, panel)  # not 8.6 high for 0.15 of bulk
        assert panel["h"] >= 100, panel["h"]  # a panel, not a sliver
    assert framed == 2, list(panels)
    text = page.locator("[data-testid='stMain']").inner_text()
    assert "TDL: 1 point(s) carry a coordinate" in text
    # its tiles whole: "Laplacian Eigenmaps 1-NN accuracy" was cut at a third of the row
    labels = page.get_by_test_id("stMetricLabel").all_inner_texts()
    assert "Laplacian Eigenmaps 1-NN accuracy" in labels, labels
    assert page.evaluate(TILE_CUT_JS) == []
