"""In a real browser (issue 17): a hostile or out-of-range link opens the page with a notice and a
rewritten URL; two browser contexts (two people) do not see each other's uploads."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlparse

import pytest

from metriclab.ui.dev.server import wait_idle
from metriclab.ui.embed.presets import default_method

pytestmark = pytest.mark.browser


def query(page) -> dict[str, str]:
    return {k: v[0] for k, v in parse_qs(urlparse(page.url).query).items()}


def open_page(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("[data-testid='stApp']")
    page.wait_for_selector("h1")
    wait_idle(page)


def test_a_hostile_link_opens_the_page_with_notices_and_a_rewritten_url(page, app_url):
    long = "x" * 10_000
    open_page(
        page,
        f"{app_url}/embed?method=__import__&lab=per_class&per=99999&seed=1e999"
        f"&ds=..%2F..%2Fetc%2Fpasswd&p.tdl.lam=1e309&junk={long}",
    )
    page.wait_for_selector(".js-plotly-plot")
    assert page.get_by_test_id("stException").count() == 0
    assert page.get_by_text("Traceback").count() == 0
    notices = page.get_by_test_id("stAlertContentWarning").all_inner_texts()
    text = " ".join(notices)
    for label in ("Method", "Labels per class", "Split seed", "Data set"):
        assert f"Link: {label} —" in text, text  # named as the page names them (bold in markdown)
    assert "maximum 50" in text and "/etc/passwd" in text
    page.wait_for_function("() => new URLSearchParams(location.search).get('per') === '50'")
    q = query(page)
    assert q["method"] == default_method() and q["ds"] == "two_moons" and q["seed"] == "0"
    page.screenshot(path="/tmp/metriclab-hostile-link.png")


def test_two_browser_contexts_do_not_share_uploads(browser, app_url):
    a = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    b = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
    try:
        open_page(a, f"{app_url}/data")
        rows = "\n".join(f"{i % 5},{i % 3},{'xy'[i % 2]}" for i in range(30))
        a.locator("input[type=file]").set_input_files(
            files=[
                {
                    "name": "secret-a.csv",
                    "mimeType": "text/csv",
                    "buffer": f"p,q,c\n{rows}\n".encode(),
                }
            ]
        )
        a.get_by_text("Loaded secret-a.csv").wait_for()
        a.wait_for_function(
            "() => (new URLSearchParams(location.search).get('ds') || '').startsWith('upload:')"
        )
        link = a.url
        open_page(b, f"{app_url}/data")
        b.get_by_test_id("stSelectbox").filter(has_text="Data set").click()
        options = b.get_by_role("option").all_inner_texts()
        assert options and not any("secret-a.csv" in o for o in options)
        b.keyboard.press("Escape")
        open_page(b, link.replace(urlparse(link).netloc, urlparse(app_url).netloc))
        b.get_by_text(re.compile("private to the session")).first.wait_for()
        assert b.get_by_text("secret-a.csv").count() == 0
        assert query(b)["ds"] == "two_moons"
    finally:
        a.context.close()
        b.context.close()


def test_an_upload_names_its_file_as_its_source(page, app_url):
    """Issue 36 item 9: the Data page said "Source: upload: upload" for an uploaded CSV."""
    open_page(page, f"{app_url}/data")
    rows = "\n".join(f"{i % 5},{i % 3},{'xy'[i % 2]}" for i in range(30))
    page.locator("input[type=file]").set_input_files(
        files=[
            {"name": "lab-notes.csv", "mimeType": "text/csv", "buffer": f"p,q,c\n{rows}\n".encode()}
        ]
    )
    page.get_by_text("Loaded lab-notes.csv").wait_for()
    # the rerun that loads it replaces the previous data set's line: wait for the new one (the
    # old "Source: synthetic: ..." can still be read for a moment after "Loaded" shows)
    source = page.get_by_text(re.compile(r"^Source:.*lab-notes\.csv")).first
    source.wait_for()
    assert "upload: upload" not in source.inner_text()
