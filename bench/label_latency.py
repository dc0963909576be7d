"""Click → new embedding on the Embed page's input view, in a real browser (headless Chromium),
beside the slider → chart latency of the live view measured in the same run.

For each data set: open the input view with TDL (TDL and LE panels beside the input), click
`--clicks` unlabeled points one after another (each click labels one more point, so TDL is refitted
every time) and time the mouse click to the TDL panel's new data in the DOM (polled every animation
frame). Then, as the peer, open the live view and time `--presses` arrow-key presses on TDL's λ
slider (bench/app_latency.py's measurement).

    .venv/bin/python bench/label_latency.py [--clicks 12] [--presses 12] [--sets two_moons iris]

Targets (issue 18): click → new embedding ≤ 500 ms; slider → chart ≤ 300 ms (DESIGN.md), on two
moons and Iris. The machine is shared: read the ratio, and the load average printed with it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.app_latency import (  # noqa: E402
    HAS_POINTS_JS,
    measure_presses,
    median_ms,
    page_url,
    server_times,
)
from metriclab.methods import REGISTRY  # noqa: E402
from metriclab.ui.dev.server import (  # noqa: E402
    CHROMIUM_ARGS,
    find_chromium,
    free_port,
    start_app,
    stop_app,
    wait_idle,
)

POINTS_JS = """(axis) => document.querySelector('.js-plotly-plot')._fullData
  .filter(t => t.xaxis === axis && t.customdata)
  .flatMap(t => Array.from(t.x, (x, i) => [Number(t.customdata[i][0]), x, t.y[i],
                                          t.name.endsWith('(labeled)') ? 1 : 0]))"""
PIXEL_JS = """([x, y]) => { const g = document.querySelector('.js-plotly-plot');
  const fl = g._fullLayout, r = g.getBoundingClientRect();
  return [r.left + fl.xaxis._offset + fl.xaxis.l2p(x), r.top + fl.yaxis._offset + fl.yaxis.l2p(y)]; }"""
PANEL_JS = """() => { const g = document.querySelector('.js-plotly-plot');
  return g && g._fullData ? JSON.stringify(g._fullData.filter(t => t.xaxis === 'x2' && t.customdata)
    .map(t => [Array.from(t.x), Array.from(t.y)])) : null; }"""


def click_targets(page, n: int) -> list[tuple[float, float]]:
    """View coordinates of the `n` unlabeled points farthest from their nearest neighbour."""
    rows = np.array(page.evaluate(POINTS_JS, "x"), dtype=float)
    xy = rows[:, 1:3]
    D = np.linalg.norm(xy[:, None] - xy[None], axis=2) + np.eye(len(xy)) * 1e9
    order = [i for i in np.argsort(-D.min(axis=1)) if rows[i, 3] == 0]
    return [tuple(xy[i]) for i in order[:n]]


def measure_clicks(page, clicks: int) -> list[float]:
    times = []
    for x, y in click_targets(page, clicks):
        px, py = page.evaluate(PIXEL_JS, [x, y])
        before = page.evaluate(PANEL_JS)
        start = time.perf_counter()
        page.mouse.click(px, py)
        try:
            page.wait_for_function(
                f"(b) => {{ const v = ({PANEL_JS})(); return v !== null && v !== b; }}",
                arg=before,
                polling="raf",
                timeout=15_000,
            )
            times.append(time.perf_counter() - start)
        except Exception:  # noqa: BLE001 - a click that never redrew counts as missing
            times.append(float("nan"))
        wait_idle(page, settle_ms=150)
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=12)
    parser.add_argument("--presses", type=int, default=12)
    parser.add_argument("--sets", nargs="*", default=["two_moons", "iris"])
    args = parser.parse_args(argv)
    executable = find_chromium()
    if executable is None or "tdl" not in REGISTRY:
        print("needs chromium and TDL", file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    proc = start_app(free_port(), env={"METRICLAB_TIMING": "1"})
    base = f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}"
    rows = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=executable, headless=True, args=CHROMIUM_ARGS
            )
            for dataset in args.sets:
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.set_default_timeout(120_000)
                page.goto(f"{base}/embed?mode=input&method=tdl&ds={dataset}")
                page.wait_for_function(HAS_POINTS_JS, polling="raf")
                wait_idle(page)
                text = proc.log_path.read_text(errors="replace")
                seen = text.count("metriclab-timing input_view")
                clicks = measure_clicks(page, args.clicks)
                text = proc.log_path.read_text(errors="replace")
                server = [
                    float(line.split()[-2]) / 1000
                    for line in text.splitlines()
                    if "metriclab-timing input_view" in line
                ][seen:]
                page.goto(page_url(base, dataset, "tdl"))
                page.wait_for_function(HAS_POINTS_JS, polling="raf")
                wait_idle(page)
                seen_live = len(server_times(proc))
                first, again = measure_presses(page, REGISTRY["tdl"], "lam", args.presses, None)
                live_server = [t / 1000 for t in server_times(proc)[seen_live:]]
                context.close()
                good_clicks = [c for c in clicks if c == c]
                good_slider = [s for s in first + again if s == s]
                ratio = (
                    statistics.median(good_clicks) / statistics.median(good_slider)
                    if good_clicks and good_slider
                    else float("nan")
                )
                rows.append(
                    (
                        dataset,
                        median_ms(clicks),
                        median_ms(server),
                        median_ms(first + again),
                        median_ms(live_server),
                        f"{ratio:.2f}",
                        str(len(clicks)),
                    )
                )
                print(f"{dataset}: click {rows[-1][1]} ms", file=sys.stderr, flush=True)
            browser.close()
    finally:
        stop_app(proc)
    load = os.getloadavg()
    print(
        "| data set | click → TDL panel, median ms | server share | λ slider → chart (live) "
        "| server share | click / slider | clicks |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print(f"\nLoad average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
