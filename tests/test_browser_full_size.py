"""The papers' full-size data in a real browser (issue 26): every USPS digit drawn with WebGL and a
clicked digit's image beside its neighbours (default suite); all 70,000 MNIST digits (slow)."""

from __future__ import annotations

import pytest

from tests.test_browser_sessions import open_page

pytestmark = pytest.mark.browser

# per trace of the embedding chart: (type, points, labelled marker?)
TRACES_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return (g && g._fullData || []).map(t => [t.type, t.x ? t.x.length : 0, t.marker.symbol]); }"""
# the page pixel of a point of trace `i` (plotly's axis maps), to click it as a person does
POINT_JS = """(i) => { const g = document.querySelector('.js-plotly-plot'), t = g._fullData[i];
    const xa = g._fullLayout.xaxis, ya = g._fullLayout.yaxis, r = g.getBoundingClientRect();
    const k = t.x.length >> 1;
    return [r.left + xa._offset + xa.l2p(t.x[k]), r.top + ya._offset + ya.l2p(t.y[k])]; }"""


# metric tiles whose value the tile cuts (an ellipsis hides the end of the number)
METRIC_CUT_JS = """() => [...document.querySelectorAll('[data-testid="stMetricValue"]')]
    .filter(m => [m, ...m.querySelectorAll('*')].some(e => e.scrollWidth > e.clientWidth + 1))
    .map(m => m.innerText)"""


def drawn(page, expect: int, timeout_ms: int) -> list:
    page.wait_for_function(
        f"() => ({TRACES_JS})().reduce((n, t) => n + t[1], 0) >= {expect}",
        polling=500,
        timeout=timeout_ms,
    )
    return page.evaluate(TRACES_JS)


def test_every_usps_digit_is_drawn_with_webgl_and_a_click_shows_the_digit(page, app_url):
    page.set_viewport_size({"width": 1280, "height": 800})  # a projector's
    open_page(page, f"{app_url}/embed?ds=usps&method=le")
    traces = drawn(page, 9298, 240_000)
    points = [t for t in traces if t[0] == "scattergl"]
    assert sum(n for _, n, _ in points) == 9298  # every digit, none sampled away
    assert all(n == 1 for kind, n, _ in traces if kind != "scattergl")  # the legend's key only
    assert any(symbol == "diamond" for _, n, symbol in traces if n)  # the labelled digits marked
    assert page.get_by_test_id("stException").count() == 0
    assert page.locator("[data-testid='stAlertContentError']").count() == 0
    # every score whole at a projector's size: "929 / 8.4k" was cut to "929 / …" there
    page.get_by_text("labeled / unlabeled").first.wait_for(timeout=120_000)
    assert page.get_by_test_id("stMetricValue").count() >= 2
    assert page.evaluate(METRIC_CUT_JS) == []
    first = next(i for i, (_, n, _) in enumerate(traces) if n)
    # the chart whole in the window (the score lines above it push it below a 1280×800 window)
    page.evaluate(
        "() => document.querySelector('.js-plotly-plot').scrollIntoView({block: 'center'})"
    )
    x, y = page.evaluate(POINT_JS, first)
    page.mouse.click(x, y)
    titles = (
        "() => [...document.querySelectorAll('.js-plotly-plot .gtitle')].map(t => t.textContent)"
    )
    # the digit beside its five nearest under the embedding and under the Euclidean input metric
    page.wait_for_function(
        f"() => ['nearest under the embedding', 'nearest under Euclidean input']"
        f".every(w => ({titles})().some(t => t.startsWith(w)))",
        timeout=60_000,
    )


@pytest.mark.slow
def test_all_of_mnist_with_tdl_names_its_stages_and_draws_70000_digits(page, app_url):
    page.goto(f"{app_url}/embed?ds=mnist&method=tdl")
    seen = set()
    for _ in range(600):  # the progress bar names the stage while the fit runs
        seen.update(page.locator("[data-testid='stProgress']").all_inner_texts())
        if sum(n for _, n, _ in page.evaluate(TRACES_JS)) >= 70_000:
            break
        page.wait_for_timeout(250)
    traces = drawn(page, 70_000, 10_000)
    assert sum(n for kind, n, _ in traces if kind == "scattergl") == 70_000
    assert any(text.startswith("graph:") for text in seen), seen
    assert any(text.startswith("eigensolve:") for text in seen), seen
