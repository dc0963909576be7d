"""Serve the app for tests and benchmarks: `streamlit run app.py` in a subprocess on 127.0.0.1 and
the system Chromium's path and flags for Playwright (never `playwright install`)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
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
    """`streamlit run app.py` on 127.0.0.1:port, returned once /_stcore/health answers ok.

    The server's log goes to a temporary file (`proc.log_path`), never to a pipe nobody reads
    (a full pipe would block the server)."""
    command = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"),
        "--server.headless", "true", "--server.address", "127.0.0.1",
        "--server.port", str(port), "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none", "--client.toolbarMode", "viewer",
    ]  # fmt: skip
    log = tempfile.NamedTemporaryFile(prefix="metriclab-app-", suffix=".log", delete=False)
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, **(env or {})},
    )
    log.close()
    proc.log_path = Path(log.name)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early: {proc.log_path.read_text()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise RuntimeError(f"streamlit did not answer on port {port} within {timeout} s")


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
    for _ in range(20):
        page.wait_for_function(IDLE_JS, polling=100, timeout=timeout_ms)
        page.wait_for_timeout(settle_ms)
        if page.evaluate(IDLE_JS):
            return
