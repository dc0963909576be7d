"""Serve the app for tests and benchmarks: `streamlit run app.py` in a subprocess on 127.0.0.1 and
the system Chromium's path and flags for Playwright (never `playwright install`)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(port: int, timeout: float = 90.0, env: dict | None = None) -> subprocess.Popen:
    """`streamlit run app.py` on 127.0.0.1:port (`metriclab.deploy.worker_command`, the one
    launcher of the lab's server), returned once /_stcore/health answers ok.

    The server's log goes to a temporary file (`proc.log_path`), never to a pipe nobody reads
    (a full pipe would block the server)."""
    from metriclab.deploy import launch, wait_healthy, worker_command

    log = tempfile.NamedTemporaryFile(prefix="metriclab-app-", suffix=".log", delete=False)
    log.close()
    proc = launch(worker_command(port, env=env), Path(log.name), env, cwd=ROOT)
    try:
        wait_healthy(f"http://127.0.0.1:{port}", timeout, proc)
    except RuntimeError:
        proc.kill()
        raise
    return proc


def stop_app(proc: subprocess.Popen, keep_log: bool = False) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log_path = getattr(proc, "log_path", None)
    if log_path is not None and not keep_log:
        log_path.unlink(missing_ok=True)


# True when the app is idle: no script running, no placeholders, no stale (greyed) elements.
IDLE_JS = """() => !!document.querySelector('h1') && !document.querySelector(
    '[data-testid="stStatusWidgetRunningIcon"], [data-testid="stStatusWidgetRunningManIcon"],'
    + ' [data-testid^="stSkeleton"], [data-testid="stSpinner"], [data-stale="true"]')"""


def wait_idle(page, settle_ms: int = 400, timeout_ms: int = 300_000) -> None:
    """Wait until the app is idle and stays idle for `settle_ms` (a rerun may start right after)."""
    wait_all_idle([page], settle_ms, timeout_ms)


def wait_all_idle(pages, settle_ms: int = 400, timeout_ms: int = 300_000) -> None:
    """`wait_idle` for several pages (sessions) at once: each idle, then all still idle after one
    shared `settle_ms`."""
    for _ in range(20):
        for page in pages:
            page.wait_for_function(IDLE_JS, polling=100, timeout=timeout_ms)
        pages[0].wait_for_timeout(settle_ms)
        if all(page.evaluate(IDLE_JS) for page in pages):
            return


def click_until(page, target, done_js: str, tries: int = 3, each_ms: int = 20_000) -> None:
    """Click `target` (a Playwright locator) until `done_js` holds, at most `tries` times: on a busy
    machine a click that lands while a rerun redraws its button is lost (CI with two test
    processes: a preset's click never reached the server in 60 s). Only for a button whose action
    is the same when pressed twice."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    for attempt in range(tries):
        wait_idle(page)
        target.click()
        try:
            page.wait_for_function(done_js, timeout=each_ms)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
