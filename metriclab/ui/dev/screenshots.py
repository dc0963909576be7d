"""Screenshots of every page in headless Chromium, for docs/screenshots/ and the README.

.venv/bin/python -m metriclab.ui.dev.screenshots [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from metriclab.ui.dev.server import (
    CHROMIUM_ARGS,
    ROOT,
    find_chromium,
    free_port,
    start_app,
    stop_app,
    wait_idle,
)

TWO_MOONS_TDL = (
    "ds=harder_moons&method=tdl&lab=per_class&per=5&p.tdl.lam=16&p.tdl.width=0.25"
    "&p.tdl.n_neighbors=10&p.tdl.k=5&p.tdl.laplacian=symmetric"
)
IONOSPHERE_TDL = (
    "ds=ionosphere&method=tdl&lab=fraction&frac=0.1&pp=minmax&p.tdl.n_components=10"
    "&p.tdl.lam=1024&p.tdl.width=0.25&p.tdl.n_neighbors=10&p.tdl.k=5&p.tdl.laplacian=unnormalized"
)
# (file name, URL path and query, (role, name) of elements to click first — role "text": an
# expander's summary; role "chart": bring the first chart into view — viewport height[, width])
SHOTS = [
    ("embed.png", f"/embed?{TWO_MOONS_TDL}&p.tdl.n_components=2", [], 1100),
    ("embed-window.png", f"/embed?{TWO_MOONS_TDL}&p.tdl.n_components=1&mode=window&grid=7", [("button", "Compute window map")], 1100),
    ("embed-scrub.png", f"/embed?{TWO_MOONS_TDL}&p.tdl.n_components=2&mode=scrub&scrub=lam", [], 1100),
    ("embed-input-label.png", f"/embed?{TWO_MOONS_TDL}&p.tdl.n_components=2&mode=input&ov=graph&lbl=0~1k.1r.21.2y.3d.4m_1~2n.3e.3j.4c.4v", [], 1000),
    ("embed-input-balls.png", "/embed?ds=iris&method=nca&mode=input&ov=balls", [], 1000),
    ("embed-input-lmnn.png", "/embed?ds=iris&method=lmnn&mode=input&ov=impostors", [], 1000),
    ("embed-input-images.png", "/embed?ds=digits&cap=300&method=nca&mode=input&pt=5", [], 1300),
    ("embed-learn.png", "/embed?ds=two_moons&method=lmnn&mode=learn", [], 1000),
    ("embed-learn-knca.png", "/embed?ds=two_moons&method=knca&mode=learn", [], 1000),
    ("data.png", "/data?ds=digits", [], 1300),
    ("dissimilarity.png", "/dissimilarity?ds=two_rings&dmethod=zhang_mds", [], 1400),
    ("compare.png", "/compare?cds=iris,wine,sonar&cm=pca,nca,tdl,zhang_mds&splits=5", [("button", "Run")], 1300),
    ("tangent.png", "/tangent?tds=usps&pool=1000&q=7", [("button", "Compute error rates")], 1300),
    ("embed-code.png", "/embed?ds=iris&method=nca&frac=0.2&pp=standardise", [("text", "Show the code")], 1000),
    ("present.png", f"/embed?{TWO_MOONS_TDL}&p.tdl.n_components=2&present=1", [], 1000),
    ("reproduce.png", "/reproduce?show=tables&exp=tdl-uci", [("tab", "Fast run (live)"), ("button", "Run fast version")], 1300),
    ("claims.png", "/reproduce?paper=tdl", [], 1300),
    ("lesson.png", "/lessons?lesson=tdl&step=3", [], 1100),
    # a lecture's screen (issue 36): 1280×800
    ("present-lesson.png", "/lessons?lesson=tdl&step=2&present=1", [("button", "Show the view")], 800, 1280),
    ("embed-ionosphere.png", f"/embed?{IONOSPHERE_TDL}", [("chart", "")], 800, 1280),
    ("embed-mnist.png", "/embed?ds=mnist&method=tdl", [("chart", "")], 800, 1280),
    # look closer (issue 37): linked views with a selection; held-out digits of MNIST, mapped
    ("embed-linked.png", "/embed?ds=two_moons&mode=linked&methods=tdl,le,nca&sel=0-29&test=0.3", [("chart", "")], 800, 1280),
    ("embed-held-out.png", "/embed?ds=mnist&cap=2000&method=tdl&test=0.3", [("chart", "")], 800, 1280),
]  # fmt: skip


def take(out: Path, only: set[str] | None = None) -> list[Path]:
    executable = find_chromium()
    if executable is None:
        raise SystemExit("no chromium found")
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    proc = start_app(free_port())
    base = f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}"
    written = []
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=executable, headless=True, args=CHROMIUM_ARGS
            )
            for name, path, clicks, height, *width in SHOTS:
                if only and name not in only:
                    continue
                size = {"width": width[0] if width else 1400, "height": height}
                context = browser.new_context(viewport=size)
                page = context.new_page()
                page.set_default_timeout(300_000)
                page.goto(base + path)
                page.wait_for_selector("h1", state="attached")  # hidden in presentation mode
                wait_idle(page, settle_ms=1000)
                for role, label in clicks:
                    if role == "chart":  # the first chart in view, as a person scrolls to it
                        page.wait_for_selector(".js-plotly-plot")
                        page.locator(".js-plotly-plot").first.evaluate(
                            "e => e.scrollIntoView({block: 'center'})"
                        )
                        page.wait_for_timeout(1000)
                        continue
                    if role == "text":  # an expander's summary: open it and bring it into view
                        page.get_by_text(label, exact=True).click()
                        page.wait_for_timeout(1000)
                        expander = page.get_by_test_id("stExpander").filter(has_text=label)
                        expander.evaluate("e => e.scrollIntoView({block: 'end'})")
                        continue
                    page.get_by_role(role, name=label, exact=True).click()
                    page.wait_for_timeout(1000)
                    wait_idle(page, settle_ms=1000)
                page.wait_for_timeout(1500)  # let plotly finish drawing
                target = out / name
                page.screenshot(path=str(target))
                written.append(target)
                print(target, file=sys.stderr)
                context.close()
            browser.close()
    finally:
        stop_app(proc)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("names", nargs="*", help="only these files (e.g. embed.png)")
    args = parser.parse_args(argv)
    take(args.out, set(args.names) or None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
