"""Browser fixtures: the app served by `streamlit run` in a subprocess and Debian's chromium driven by
Playwright. Browser tests skip only when no chromium is found and REQUIRE_BROWSER is unset."""

from __future__ import annotations

import os
import sys

import pytest

from metriclab.ui.dev.server import CHROMIUM_ARGS, find_chromium, free_port, start_app, stop_app


@pytest.fixture(autouse=True)
def _keep_main_module():
    """Streamlit's AppTest leaves the page it ran as sys.modules['__main__']; a process started
    later with the 'spawn' method (a Dask nanny, a loky worker) would then re-run that page as
    its main script, so every test gets the runner's __main__ back."""
    main = sys.modules.get("__main__")
    yield
    if main is not None:
        sys.modules["__main__"] = main


@pytest.fixture
def global_random_seed():
    """scikit-learn's fixture of the same name at its default (SKLEARN_TESTS_GLOBAL_RANDOM_SEED
    unset: 42), for the tests adapted from scikit-learn."""
    return 42


@pytest.fixture(scope="session")
def app_url():
    """The app served for the browser tests, one server per test process (each xdist worker): a
    module's own server cost a start and its own cold caches (the browser stays per module, so
    that Playwright's event loop does not live on beside the other tests)."""
    proc = start_app(free_port())
    port = proc.args[proc.args.index("--server.port") + 1]
    yield f"http://127.0.0.1:{port}"
    stop_app(proc)


@pytest.fixture(scope="module")
def browser():
    executable = find_chromium()
    if executable is None:
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("REQUIRE_BROWSER is set but no chromium was found")
        pytest.skip("no chromium found (set REQUIRE_BROWSER=1 to make this a failure)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


VIEWPORT = {"width": 1400, "height": 1000}


@pytest.fixture(scope="module")
def _tab(browser):
    """The browser context and page that a module's tests take in turn (`page`)."""
    held: dict = {}
    yield held
    if held.get("context") is not None:
        held["context"].close()


@pytest.fixture
def page(browser, _tab):
    """A page of a browser context of its own, as a new one would be: no cookies, storage, other
    tabs or app session of an earlier test, the viewport 1400×1000, a 60 s timeout. One context and
    page serve a module's tests in turn, left on about:blank in between: a new page's renderer
    compiles the app's scripts again, 2 s of CPU per test on the Embed page (1.7 s on a reused
    one, 3.9 s in a new context). A test may close it (`page.context.close()`):
    the next one gets a new context."""
    tab = _tab.get("page")
    if tab is None or tab.is_closed():
        context = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
        tab = context.new_page()
        _tab.update(context=context, page=tab)
    tab.set_default_timeout(60_000)
    yield tab
    try:
        _leave(tab)
    except Exception:  # a page the test left unusable: the next test gets a new context
        _tab["context"].close()
        _tab.clear()


def _leave(tab) -> None:
    """The page as a new context's: its other tabs closed, storage and cookies cleared, on
    about:blank (which ends its app session) at the fixture's viewport."""
    if tab.is_closed():
        return
    for other in tab.context.pages:
        if other is not tab:
            other.close()
    tab.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
    tab.goto("about:blank")
    tab.context.clear_cookies()
    tab.set_viewport_size(VIEWPORT)
