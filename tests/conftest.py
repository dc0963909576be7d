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


@pytest.fixture(scope="module")
def app_url():
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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 1000}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()
