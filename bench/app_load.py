"""Many users at once: N concurrent headless Chromium sessions against one app server on 127.0.0.1.

Each client opens the Embed page (TDL; two moons or Iris; its own split seed, so the fits differ
between clients), then repeatedly presses an arrow key on the λ slider and measures the wall time
from the key press to the embedding chart's new data in its DOM, with a think time of 1–3 s between
moves (seeded). Every third client first uploads a CSV of its own on the Data page (and, in the
soak, uploads another one every minute). Errors: a red error box or a traceback on a page, a
redraw that never came (15 s), a failed navigation or upload. A sampler thread reads the server's
resident memory (RSS) every second.

    .venv/bin/python bench/app_load.py                  # N = 1, 10, 30 for 60 s each
    .venv/bin/python bench/app_load.py --clients 30 --seconds 600 --soak   # 10-minute soak

Bounded: at most 60 clients and 15 minutes per run, server and browser on 127.0.0.1 only. The
clients' browser runs on the same 2-core machine as the server, so latencies include its
rendering: they are an upper bound for the server alone. Report the machine's load beside the
numbers (other work on the machine slows both).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metriclab.methods import REGISTRY  # noqa: E402
from metriclab.ui.server import (  # noqa: E402
    CHROMIUM_ARGS,
    find_chromium,
    free_port,
    start_app,
    stop_app,
)
from metriclab.ui.widgets import format_value, param_options  # noqa: E402

MAX_CLIENTS = 60
MAX_SECONDS = 900
LAM = REGISTRY["tdl"].param("lam")
SLIDER_LABEL = LAM.label
LAM_TEXTS = [format_value(v) for v in param_options(LAM)]  # the slider's positions as shown
SLIDER_POSITIONS = len(LAM_TEXTS)
REDRAW_TIMEOUT_MS = 15_000
SIGNATURE_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return g && g.data ? JSON.stringify(g.data.map(t => [t.x, t.y])) : ''; }"""
HAS_POINTS_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return !!(g && g._fullData && g._fullData.some(t => t.x && t.x.length > 0)); }"""
ERROR_JS = """() => document.querySelectorAll(
    '[data-testid="stException"], [data-testid="stAlertContentError"]').length"""


def rss_bytes(pid: int) -> int:
    """Resident memory of the server process and its children."""
    import psutil

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0
    total = 0
    for p in procs:
        try:
            total += p.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


class MemorySampler(threading.Thread):
    def __init__(self, pid: int, every_s: float = 1.0):
        super().__init__(daemon=True)
        self.pid, self.every_s = pid, every_s
        self.samples: list[tuple[float, int]] = []
        self.stopped = threading.Event()
        self.start_time = time.monotonic()

    def run(self) -> None:
        while not self.stopped.is_set():
            self.samples.append((time.monotonic() - self.start_time, rss_bytes(self.pid)))
            self.stopped.wait(self.every_s)

    def peak(self, since: float = 0.0) -> int:
        return max((r for t, r in self.samples if t >= since), default=0)


def upload_csv(rng: random.Random, rows: int = 300) -> bytes:
    """A small labelled CSV, different for every call (so every upload is a new data set)."""
    lines = ["a,b,c,label"]
    for _ in range(rows):
        label = rng.randrange(3)
        lines.append(",".join(f"{label + rng.gauss(0, 0.7):.4f}" for _ in range(3)) + f",{label}")
    return ("\n".join(lines) + "\n").encode()


class Client:
    def __init__(self, index: int, base: str, seconds: float, soak: bool):
        self.index, self.base, self.seconds, self.soak = index, base, seconds, soak
        self.deadline = float("inf")
        self.rng = random.Random(index)
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.uploads = 0

    @property
    def embed_url(self) -> str:
        ds = "two_moons" if self.index % 2 == 0 else "iris"
        return f"{self.base}/embed?ds={ds}&method=tdl&seed={self.index % 10}"

    async def upload(self, page) -> None:
        await page.goto(f"{self.base}/data")
        await page.wait_for_selector("input[type=file]", state="attached")
        name = f"client{self.index}-{self.uploads}.csv"
        await page.locator("input[type=file]").set_input_files(
            files=[{"name": name, "mimeType": "text/csv", "buffer": upload_csv(self.rng)}]
        )
        await page.get_by_text(f"Loaded {name}").first.wait_for(timeout=60_000)
        self.uploads += 1

    async def open_embed(self, page) -> int:
        await page.goto(self.embed_url)
        await page.wait_for_function(HAS_POINTS_JS, polling=100, timeout=120_000)
        slider = page.get_by_role("slider", name=SLIDER_LABEL)
        await slider.focus()
        return LAM_TEXTS.index(await slider.get_attribute("aria-valuetext"))

    async def run(self, browser) -> None:
        context = await browser.new_context(viewport={"width": 1300, "height": 900})
        page = await context.new_page()
        page.set_default_timeout(120_000)
        try:
            if self.index % 3 == 0:
                await self.upload(page)
            position = await self.open_embed(page)
            self.deadline = time.monotonic() + self.seconds  # warm-up (first load) not measured
            step = 1
            last_upload = time.monotonic()
            while time.monotonic() < self.deadline:
                if self.soak and self.index % 3 == 0 and time.monotonic() - last_upload > 60:
                    await self.upload(page)
                    position = await self.open_embed(page)
                    last_upload = time.monotonic()
                if not 0 <= position + step < SLIDER_POSITIONS:
                    step = -step
                before = await page.evaluate(SIGNATURE_JS)
                await page.get_by_role("slider", name=SLIDER_LABEL).focus()
                start = time.perf_counter()
                await page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
                try:
                    await page.wait_for_function(
                        f"(b) => ({SIGNATURE_JS})() !== b",
                        arg=before,
                        polling=50,
                        timeout=REDRAW_TIMEOUT_MS,
                    )
                    self.latencies.append(time.perf_counter() - start)
                except Exception:  # noqa: BLE001 - a move that never redrew is an error
                    self.errors.append("no redraw within 15 s")
                position = LAM_TEXTS.index(
                    await page.get_by_role("slider", name=SLIDER_LABEL).get_attribute(
                        "aria-valuetext"
                    )
                )
                if await page.evaluate(ERROR_JS):
                    self.errors.append("error box on the page")
                    position = await self.open_embed(page)
                await asyncio.sleep(self.rng.uniform(1.0, 3.0))
        except Exception as exc:  # noqa: BLE001 - counted, reported
            self.errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}")
        finally:
            await context.close()


async def run_clients(n: int, base: str, seconds: float, soak: bool, executable: str):
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        clients = [Client(i, base, seconds, soak) for i in range(n)]
        tasks = []
        for client in clients:  # staggered arrivals over the first few seconds
            tasks.append(asyncio.create_task(client.run(browser)))
            await asyncio.sleep(0.3)
        await asyncio.gather(*tasks)
        await browser.close()
    return clients


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def one_run(n: int, seconds: float, soak: bool, executable: str) -> dict:
    proc = start_app(free_port(), env={"METRICLAB_TIMING": "1"})
    base = f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}"
    sampler = MemorySampler(proc.pid, every_s=1.0 if not soak else 5.0)
    sampler.start()
    load_before = os.getloadavg()[0]
    try:
        clients = asyncio.run(run_clients(n, base, seconds, soak, executable))
    finally:
        sampler.stopped.set()
        sampler.join()
        log = proc.log_path.read_text(errors="replace")
        stop_app(proc)
    server = [float(m) / 1000 for m in re.findall(r"metriclab-timing live_view ([0-9.]+) ms", log)]
    latencies = [v for c in clients for v in c.latencies]
    errors = [e for c in clients for e in c.errors]
    return {
        "n": n,
        "seconds": seconds,
        "moves": len(latencies),
        "median_s": statistics.median(latencies) if latencies else float("nan"),
        "p95_s": percentile(latencies, 0.95),
        "server_median_s": statistics.median(server) if server else float("nan"),
        "server_p95_s": percentile(server, 0.95),
        "errors": errors,
        "uploads": sum(c.uploads for c in clients),
        "peak_rss": sampler.peak(),
        "samples": sampler.samples,
        "load": (load_before, os.getloadavg()[0]),
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="*", default=[1, 10, 30])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--soak", action="store_true", help="sample RSS over time, re-upload")
    args = parser.parse_args(argv)
    if any(not 1 <= n <= MAX_CLIENTS for n in args.clients):
        parser.error(f"clients must be between 1 and {MAX_CLIENTS}")
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"seconds must be in (0, {MAX_SECONDS}]")
    executable = find_chromium()
    if executable is None:
        print("no chromium found; install Debian's chromium", file=sys.stderr)
        return 1
    results = []
    for n in args.clients:
        print(f"running N={n} for {args.seconds:.0f} s ...", file=sys.stderr, flush=True)
        results.append(one_run(n, args.seconds, args.soak, executable))
        r = results[-1]
        print(
            f"N={n}: {r['moves']} moves, median {r['median_s']:.3f} s, p95 {r['p95_s']:.3f} s, "
            f"{len(r['errors'])} errors, peak RSS {r['peak_rss'] / 2**20:.0f} MB",
            file=sys.stderr,
            flush=True,
        )
    print("| clients | seconds | slider moves | median s | p95 s | server run median / p95 s "
          "| errors | uploads | server peak RSS MB | load avg (before → after) |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        print(
            f"| {r['n']} | {r['seconds']:.0f} | {r['moves']} | {r['median_s']:.3f} "
            f"| {r['p95_s']:.3f} | {r['server_median_s']:.3f} / {r['server_p95_s']:.3f} "
            f"| {len(r['errors'])} | {r['uploads']} "
            f"| {r['peak_rss'] / 2**20:.0f} | {r['load'][0]:.1f} → {r['load'][1]:.1f} |"
        )
    for r in results:
        if r["errors"]:
            kinds = sorted(set(r["errors"]))
            print(f"\nN={r['n']} errors: " + "; ".join(kinds[:5]))
    if args.soak:
        for r in results:
            print(f"\nRSS over time, N={r['n']} (MB, every 30 s):\n")
            print("| t (s) | RSS MB |\n|---:|---:|")
            next_t = 0.0
            for t, rss in r["samples"]:
                if t >= next_t:
                    print(f"| {t:.0f} | {rss / 2**20:.0f} |")
                    next_t += 30
    return 0


if __name__ == "__main__":
    sys.exit(main())
