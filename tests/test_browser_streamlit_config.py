"""A classroom server sends nothing anywhere (issue 38, item 8): Streamlit's usage statistics are
off and the Deploy button is hidden, for `make run` and for `metriclab app` run from another
folder, as the browser receives them (the NewSession message on the app's websocket, the page's
toolbar, and every request the page makes). tools/check_installed.py checks the same on the
installed wheel."""

from __future__ import annotations

import re
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

from metriclab.deploy import launch, wait_healthy
from metriclab.ui.dev.privacy import served_privacy
from metriclab.ui.dev.server import free_port, stop_app

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]


def _serve(command: list[str], cwd: Path, home: Path):
    """Start a server as a user would (no privacy flags of ours), with an empty home folder so
    that no ~/.streamlit/config.toml of this machine takes part."""
    port = free_port()
    command = [*command, "--server.port", str(port), "--server.address", "127.0.0.1",
               "--server.fileWatcherType", "none"]  # fmt: skip
    env = {"HOME": str(home), "PYTHONPATH": str(ROOT)}
    log = tempfile.NamedTemporaryFile(prefix="metriclab-app-", suffix=".log", delete=False)
    log.close()
    proc = launch(command, Path(log.name), env, cwd=cwd)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", 180.0, proc)
    except RuntimeError:
        stop_app(proc, keep_log=True)
        raise
    return proc, f"http://127.0.0.1:{port}/"


def _answers(url: str, until_silent_s: float) -> bool:
    """Whether `url` still answers its health check after waiting up to `until_silent_s` for it
    to stop (a server shutting down closes its socket within a second or two)."""
    deadline = time.monotonic() + until_silent_s
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"{url}_stcore/health", timeout=2).close()
        except OSError:
            return False
        time.sleep(0.2)
    return True


def test_make_run_is_streamlit_run_from_the_checkout():
    """`make run` serves app.py from the checkout's top folder (`streamlit run` through
    metriclab.ui.shared.serve), so Streamlit reads the project's .streamlit/config.toml (the server test
    below starts it the same way)."""
    recipe = re.search(r"^run:.*\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe and recipe.group(1).strip() == "$(PY) -m metriclab.ui.shared.serve run app.py"


@pytest.mark.parametrize("how", ["make run", "metriclab app from another folder"])
def test_no_usage_statistics_and_no_deploy_button(how, page, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    if how == "make run":
        proc, url = _serve(
            [sys.executable, "-m", "metriclab.ui.shared.serve", "run", "app.py"], ROOT, home
        )
    else:
        elsewhere = tmp_path / "elsewhere"
        elsewhere.mkdir()
        proc, url = _serve([sys.executable, "-m", "metriclab", "app"], elsewhere, home)
    try:
        served = served_privacy(page, url)
    finally:
        stop_app(proc)
    # stopping `metriclab app` (SIGTERM) stops its Streamlit server too: nothing answers there
    assert not _answers(url, until_silent_s=30.0), f"a server still answers on {url}"
    assert served.gather_usage_stats is False
    assert served.toolbar_mode == "VIEWER"
    assert served.deploy_buttons == 0
    assert served.outside_requests == []
    assert served.problems() == []
