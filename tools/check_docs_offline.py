"""Check that the built documentation site works offline (issue 38): no page loads a script, a
stylesheet, a font, an image or a frame from another host, no stylesheet imports one, and (with
--browser) the site opened from disk in headless Chromium with every network request refused shows
its equations typeset and its tables as tables.

    python tools/check_docs_offline.py [docs/_build/html] [--browser]

`make docs` runs it after the build; it exits non-zero naming each offending page and address.
"""

from __future__ import annotations

import argparse
import re
import sys
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# what a page loads by itself (a plain <a href> to another site is a link, not a load)
LOADED = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
}
LOADED_LINKS = {"stylesheet", "preload", "modulepreload", "icon", "prefetch", "manifest", "import"}
ALL_TYPESET_JS = """() => Array.from(document.querySelectorAll('.math'))
    .every(e => e.querySelector('mjx-container') !== null)"""
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])\s*((?:https?:)?//[^'")\s]+)""", re.I)


def is_external(address: str) -> bool:
    address = address.strip().lower()
    return address.startswith(("http://", "https://", "//"))


class _Loads(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        names = LOADED.get(tag, ())
        if tag == "link":
            rel = set((values.get("rel") or "").lower().split())
            names = ("href",) if rel & LOADED_LINKS else ()
        for name in names:
            for address in re.split(r",\s*", values.get(name) or ""):
                address = address.strip().split(" ")[0]
                if address and is_external(address):
                    self.external.append(f"<{tag} {name}={address}>")
        style = values.get("style") or ""
        self.external += [f"style url({u})" for u in CSS_URL.findall(style)]

    def handle_data(self, data):  # inline <style> blocks
        if self.lasttag == "style":
            self.external += [f"<style> url({u})" for u in CSS_URL.findall(data)]


def external_loads(site: Path) -> dict[str, list[str]]:
    """Page (or stylesheet) -> what it loads from another host; empty when the site is offline."""
    found: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        parser = _Loads()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        if parser.external:
            found[page.relative_to(site).as_posix()] = parser.external
    for css in sorted(site.rglob("*.css")):
        urls = CSS_URL.findall(css.read_text(encoding="utf-8", errors="replace"))
        if urls:
            found[css.relative_to(site).as_posix()] = [f"url({u})" for u in urls]
    return found


def browser_check(site: Path, pages: list[str]) -> list[str]:
    """Open `pages` from disk with every http(s) request refused: equations typeset by the
    site's own MathJax, no request attempted to another host."""
    sys.path.insert(0, str(ROOT))
    from metriclab.ui.dev.server import CHROMIUM_ARGS, find_chromium

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sync_playwright = None
    chromium = find_chromium()
    if chromium is None or sync_playwright is None:
        print("docs offline: --browser skipped (no Chromium or no Playwright here)")
        return []
    problems = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        for name in pages:
            page = browser.new_page()
            refused: list[str] = []

            def refuse(r, refused=refused):
                refused.append(r.request.url)
                r.abort()

            page.route(re.compile(r"^(https?|wss?)://"), refuse)  # the site's files are file://
            page.goto((site / name).as_uri())
            equations = page.locator(".math").count()
            if equations:  # MathJax puts an mjx-container in place of each one's TeX
                try:
                    page.wait_for_function(ALL_TYPESET_JS, polling=200, timeout=60_000)
                except Exception:  # noqa: BLE001 - reported below with the counts
                    pass
                shown = page.locator(".math:has(mjx-container)").count()
                if shown < equations:
                    problems.append(f"{name}: {shown} of {equations} equations typeset")
            if refused:
                problems.append(f"{name}: asked another host for {refused}")
            page.close()
        browser.close()
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", nargs="?", default=str(ROOT / "docs" / "_build" / "html"))
    parser.add_argument("--browser", action="store_true", help="also open pages in Chromium")
    args = parser.parse_args(argv)
    site = Path(args.site).resolve()
    if not (site / "index.html").is_file():
        print(f"error: no built site in {site} (run make docs)", file=sys.stderr)
        return 2
    found = external_loads(site)
    for page, addresses in found.items():
        print(f"{page}: loads from another host: {', '.join(addresses)}", file=sys.stderr)
    problems = []
    if args.browser:
        pages = ["index.html", "reproduction.html"] + sorted(
            p.relative_to(site).as_posix() for p in (site / "user_guide").glob("*.html")
        )
        problems = browser_check(site, pages)
        for problem in problems:
            print(problem, file=sys.stderr)
    pages = len(list(site.rglob("*.html")))
    if found or problems:
        return 1
    print(
        f"docs offline: {pages} pages load nothing from another host"
        + (" and show their equations with every request refused" if args.browser else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
