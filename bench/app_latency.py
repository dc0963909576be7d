"""App latency in a real browser (headless Chromium through Playwright) against a running server.

For each (data set, method): open the Embed page, focus one parameter slider and press an arrow key
20 times (turning at the ends of the slider); each time measure the wall time from the key press to
the embedding chart's new data in the DOM (polled every animation frame). Also the cold page load:
a fresh browser context opening the page until the embedding chart holds its points.

    .venv/bin/python bench/app_latency.py [--presses 20] [--loads 5] [--markdown]

Targets (DESIGN.md): slider → redrawn chart under 300 ms median for two moons (200 points) and Iris
with TDL, LE, NCA and Zhang MDS; cold page load under 3 s. The machine is shared: report medians.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metriclab.methods import REGISTRY  # noqa: E402
from metriclab.ui.dev.server import (  # noqa: E402
    CHROMIUM_ARGS,
    find_chromium,
    free_port,
    start_app,
    stop_app,
    wait_idle,
)
from metriclab.ui.shared.widgets import param_options  # noqa: E402

# The slider moved for each method: one whose every step changes the embedding.
SLIDER = {"tdl": "lam", "le": "n_neighbors", "nca": "n_components", "zhang_mds": "alpha1"}
CASES = [(ds, m) for ds in ("two_moons", "iris") for m in ("tdl", "le", "nca", "zhang_mds")]
# NCA's output dimension only changes the picture up to the input dimension.
MAX_POSITION = {("two_moons", "nca"): 1, ("iris", "nca"): 3}

SIGNATURE_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return g && g.data ? JSON.stringify(g.data.map(t => [t.x, t.y])) : ''; }"""
HAS_POINTS_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return !!(g && g._fullData && g._fullData.some(t => t.x && t.x.length > 0)); }"""


def slider_positions(spec, name: str) -> tuple[int, int]:
    """(number of slider positions, index of the default)."""
    p = spec.param(name)
    options = param_options(p)
    if options is not None:
        return len(options), options.index(p.default)
    return int(p.high - p.low + 1), int(p.default - p.low)


def page_url(base: str, dataset: str, method: str) -> str:
    return f"{base}/embed?ds={dataset}&method={method}"


def measure_presses(page, spec, name: str, presses: int, max_position: int | None):
    n_positions, position = slider_positions(spec, name)
    if max_position is not None:
        n_positions = min(n_positions, max_position + 1)
    slider = page.get_by_role("slider", name=spec.param(name).label)
    slider.focus()
    step = 1 if position < n_positions - 1 else -1
    visited = {position}
    first, again = [], []
    for _ in range(presses):
        if not 0 <= position + step < n_positions:
            step = -step
        before = page.evaluate(SIGNATURE_JS)
        start = time.perf_counter()
        page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
        try:
            page.wait_for_function(
                f"(b) => ({SIGNATURE_JS})() !== b", arg=before, polling="raf", timeout=15_000
            )
            elapsed = time.perf_counter() - start
        except Exception:  # noqa: BLE001 - a press that never redrew counts as missing
            elapsed = float("nan")
        position += step
        (again if position in visited else first).append(elapsed)
        visited.add(position)
        wait_idle(page, settle_ms=150)
    return first, again


def server_times(proc) -> list[float]:
    """Server-side time of every live-view rerun so far (ms), from the server's log."""
    text = proc.log_path.read_text(errors="replace")
    return [float(m) for m in re.findall(r"metriclab-timing live_view ([0-9.]+) ms", text)]


def median_ms(values) -> str:
    good = [v for v in values if v == v]
    if not good:
        return "—"
    missing = len(values) - len(good)
    text = f"{1000 * statistics.median(good):.0f}"
    return text + (f" ({missing} missed)" if missing else "")


def cold_loads(browser, base: str, loads: int) -> list[float]:
    times = []
    for _ in range(loads):
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        start = time.perf_counter()
        page.goto(page_url(base, "two_moons", "tdl" if "tdl" in REGISTRY else "pca"))
        page.wait_for_function(HAS_POINTS_JS, polling="raf", timeout=120_000)
        times.append(time.perf_counter() - start)
        context.close()
    return times


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presses", type=int, default=20)
    parser.add_argument("--loads", type=int, default=5)
    parser.add_argument(
        "--cases", nargs="*", help="only these data:method pairs, e.g. two_moons:tdl iris:nca"
    )
    args = parser.parse_args(argv)
    cases = [tuple(c.split(":", 1)) for c in args.cases] if args.cases else CASES
    executable = find_chromium()
    if executable is None:
        print("no chromium found; install Debian's chromium", file=sys.stderr)
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
            loads = cold_loads(browser, base, args.loads + 1) if args.loads else [0.0]
            first_ever, loads = loads[0], loads[1:]
            for dataset, method in cases:
                if method not in REGISTRY:
                    rows.append((dataset, method, "—", "not registered", "", "", "", ""))
                    continue
                spec = REGISTRY[method]
                name = SLIDER[method]
                context = browser.new_context(viewport={"width": 1400, "height": 1000})
                page = context.new_page()
                page.set_default_timeout(120_000)
                page.goto(page_url(base, dataset, method))
                page.wait_for_function(HAS_POINTS_JS, polling="raf")
                wait_idle(page)
                seen = len(server_times(proc))
                first, again = measure_presses(
                    page, spec, name, args.presses, MAX_POSITION.get((dataset, method))
                )
                server = [t / 1000 for t in server_times(proc)[seen:]]
                context.close()
                rows.append(
                    (
                        dataset,
                        spec.label,
                        spec.param(name).label,
                        median_ms(first + again),
                        median_ms(first),
                        median_ms(again),
                        median_ms(server),
                        str(len(first) + len(again)),
                    )
                )
                print(f"{dataset} {method}: {rows[-1][3]} ms", file=sys.stderr, flush=True)
            browser.close()
    finally:
        stop_app(proc)

    print(
        "| data set | method | slider | median ms (all) | first visit | revisit (cached) "
        "| server share ms | presses |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    print()
    if not loads:
        return 0
    print(
        f"Cold page load (fresh browser context, server warm): median "
        f"{statistics.median(loads):.2f} s over {len(loads)}; first load after server start "
        f"(Python imports, first fit): {first_ever:.2f} s."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
