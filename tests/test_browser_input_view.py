"""End-to-end in headless Chromium: the Embed page's input view labels points by a click and by a
box selection, the embedding beside it recomputes, and the link carries the labels to another
session."""

import re
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest

from metriclab.ui.embed.label_codes import decode_labels
from tests.test_browser_app import no_red_box, settled

pytestmark = pytest.mark.browser

# (x, y) on the page of the point with data index `index` in the panel of x axis `axis`
POINT_JS = """([index, axis]) => { const g = document.querySelector('.js-plotly-plot');
  const fl = g._fullLayout, r = g.getBoundingClientRect();
  for (const t of g._fullData) { if (!t.customdata || t.xaxis !== axis) continue;
    for (let i = 0; i < t.customdata.length; i++) if (Number(t.customdata[i][0]) === index) {
      const xa = fl[t.xaxis.replace('x', 'xaxis')], ya = fl[t.yaxis.replace('y', 'yaxis')];
      return [r.left + xa._offset + xa.l2p(t.x[i]), r.top + ya._offset + ya.l2p(t.y[i])]; } }
  return null; }"""
# the labeled points (diamond traces) of the input panel: [[index, class name], ...]
LABELED_JS = """() => document.querySelector('.js-plotly-plot')._fullData
  .filter(t => t.xaxis === 'x' && t.customdata && t.name.endsWith('(labeled)'))
  .flatMap(t => Array.from(t.customdata, c => [Number(c[0]), t.name.replace(' (labeled)', '')]))"""
POINTS_JS = """(axis) => document.querySelector('.js-plotly-plot')._fullData
  .filter(t => t.xaxis === axis && t.customdata)
  .flatMap(t => Array.from(t.x, (x, i) => [Number(t.customdata[i][0]), x, t.y[i]]))"""
# a panel's points as text; null while the chart is being replaced (a new figure remounts it)
PANEL_JS = """(axis) => { const g = document.querySelector('.js-plotly-plot');
  return g && g._fullData ? JSON.stringify(g._fullData.filter(t => t.xaxis === axis && t.customdata)
    .map(t => [Array.from(t.x), Array.from(t.y)])) : null; }"""


def labeled(page) -> dict:
    return {int(i): name for i, name in page.evaluate(LABELED_JS)}


def url_labels(page) -> np.ndarray | None:
    query = parse_qs(urlparse(page.url).query)
    return decode_labels(query["lbl"][0], 200, 2) if "lbl" in query else None


def distances(page, axis: str) -> np.ndarray:
    """Pairwise distances of a panel's points in index order (a rotation leaves them as they are)."""
    rows = np.array(sorted(page.evaluate(POINTS_JS, axis)), dtype=float)[:, 1:]
    return np.linalg.norm(rows[:, None] - rows[None], axis=2)


def lonely_point(exclude) -> int:
    """The two-moons point farthest from its nearest neighbour (a click cannot miss it)."""
    from metriclab import datasets

    X = datasets.load("two_moons").X
    D = np.linalg.norm(X[:, None] - X[None], axis=2) + np.eye(len(X)) * 1e9
    order = np.argsort(-D.min(axis=1))
    return int(next(i for i in order if i not in exclude))


def click_point(page, index: int, axis: str = "x") -> None:
    x, y = page.evaluate(POINT_JS, [index, axis])
    page.mouse.click(x, y)


def wait_changed(page, axis: str, before: str) -> None:
    page.wait_for_function(
        f"(b) => {{ const v = ({PANEL_JS})('{axis}'); return v !== null && v !== b; }}",
        arg=before,
        polling="raf",
    )
    settled(page)


def test_a_click_labels_a_point_and_the_link_carries_it(page, app_url):
    page.goto(f"{app_url}/embed?mode=input&method=tdl&ds=two_moons")
    settled(page)
    split = labeled(page)
    assert len(split) == 20
    target = lonely_point(split)
    page.get_by_text("class lower moon").click()
    settled(page)
    before = page.evaluate(PANEL_JS, "x2")
    click_point(page, target)
    wait_changed(page, "x2", before)  # the TDL panel was refitted
    now = labeled(page)
    assert now == {**split, target: "lower moon"}
    assert url_labels(page)[target] == 1
    assert page.get_by_text("21 / 179").count() == 1
    no_red_box(page)
    # the shared link, in another session: the same labels and the same TDL panel
    shared = page.url
    other = page.context.browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    other.goto(shared)
    settled(other)
    assert labeled(other) == now
    np.testing.assert_allclose(distances(other, "x2"), distances(page, "x2"), atol=1e-6)
    other.context.close()
    # the same point clicked again with "no label": back to the split's labels, link emptied
    page.get_by_text("no label (remove)").click()
    settled(page)
    before = page.evaluate(PANEL_JS, "x2")
    click_point(page, target)
    wait_changed(page, "x2", before)
    assert labeled(page) == split
    page.wait_for_function("() => !new URLSearchParams(location.search).has('lbl')")


def test_box_selection_labels_every_point_inside(page, app_url):
    page.goto(f"{app_url}/embed?mode=input&method=tdl&ds=two_moons&lbl=none")
    settled(page)
    assert labeled(page) == {}
    page.locator(".modebar-btn[data-title='Box Select']").first.click()
    # a box around the left end of the upper moon (x < -0.5 in the data's coordinates)
    box = page.evaluate(
        """() => { const g = document.querySelector('.js-plotly-plot');
        const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis, r = g.getBoundingClientRect();
        const px = v => r.left + xa._offset + xa.l2p(v), py = v => r.top + ya._offset + ya.l2p(v);
        return [px(-1.3), py(1.2), px(-0.5), py(-0.3)]; }"""
    )
    before = page.evaluate(PANEL_JS, "x2")
    page.mouse.move(box[0], box[1])
    page.mouse.down()
    page.mouse.move((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, steps=5)
    page.mouse.move(box[2], box[3], steps=5)
    page.mouse.up()
    wait_changed(page, "x2", before)
    got = labeled(page)
    from metriclab import datasets

    X = datasets.load("two_moons").X
    inside = set(np.flatnonzero((X[:, 0] > -1.3) & (X[:, 0] < -0.5) & (X[:, 1] > -0.3)))
    assert set(got) == inside and set(got.values()) == {"upper moon"}
    assert set(np.flatnonzero(url_labels(page) >= 0)) == inside
    no_red_box(page)


def test_overlays_and_buttons_in_the_browser(page, app_url):
    page.goto(f"{app_url}/embed?mode=input&method=lmnn&ds=iris&ov=impostors")
    settled(page)
    names = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._fullData.map(t => t.name)"
    )
    assert any(re.match(r"target neighbour \(\d+\)", n) for n in names)
    assert any(n.startswith("impostor") for n in names)
    page.goto(f"{app_url}/embed?mode=input&method=tdl&ds=two_moons")
    settled(page)
    for _ in range(2):  # pressed twice: two different draws, no error
        before = labeled(page)
        page.get_by_role("button", name="Random labels").click()
        settled(page)
        assert labeled(page) != before and len(labeled(page)) == 20
        no_red_box(page)
    page.get_by_role("button", name="Clear labels").click()
    settled(page)
    assert labeled(page) == {}
    page.wait_for_function("() => new URLSearchParams(location.search).get('lbl') === 'none'")


@pytest.mark.parametrize("method, ds", [("nca", "iris"), ("knca", "two_moons")])
def test_watch_it_learn_plays_in_the_browser_without_the_server(page, app_url, method, ds):
    sent = []  # what the browser sends the server (listening from the page's first socket)

    def listen(ws):
        ws.on("framesent", lambda payload: sent.append(payload))

    page.on("websocket", listen)
    page.goto(f"{app_url}/embed?mode=learn&method={method}&ds={ds}")
    settled(page)
    assert sent  # the listener hears the page's own messages (its first script run)
    frames = page.evaluate(
        "() => document.querySelector('.js-plotly-plot')._transitionData._frames.length"
    )
    assert frames >= 3
    current = "document.querySelector('.slider-group > text.slider-label').textContent"
    last = page.evaluate(f"() => {current}")
    assert last.startswith("iteration ")
    before = page.evaluate(PANEL_JS, "x")
    sent.clear()
    page.get_by_text("▶ play").click()
    page.wait_for_function(
        f"(b) => {{ const v = ({PANEL_JS})('x'); return v !== null && v !== b; }}",
        arg=before,
        polling="raf",
    )
    page.wait_for_function(  # played through to the last frame again
        f"(t) => {current} === t",
        arg=last,
        polling=100,
        timeout=60_000,
    )
    assert sent == []  # no message to the server: the frames are played in the browser
    no_red_box(page)
    page.remove_listener("websocket", listen)  # the page serves the module's next test
