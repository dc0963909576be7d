"""Many users at once: N concurrent clients against the app on 127.0.0.1: one server process, or
(`--workers W`) W processes behind HAProxy as `make class WORKERS=W` serves a class.

Each client opens the Embed page (TDL; two moons or Iris; its own split seed, so the fits differ
between clients), then repeatedly moves the λ slider one step and measures the wall time from the
move to the new embedding chart, with a think time of 1–3 s between moves (seeded). Every third
client first uploads a CSV of its own on the Data page (and, in the soak, uploads another one every
minute). Errors: a red error box or a traceback, a redraw that never came (15 s), a chart whose
data did not change, a failed page load or upload. A sampler thread reads the server's resident
memory (RSS) every second (every 5 s in the soak).

Two kinds of client (`--client`):

- `ws` (default): `bench/stream_client.py`, Streamlit's own protocol over the app's websocket, no
  renderer: a move sends the widget state a browser sends and is timed until the message with the
  new chart arrives (and, separately, until the server's "script finished"). It measures the
  server, not a browser's rendering, so 30 of them fit on the same 2 cores.
- `browser`: N contexts of one headless Chromium (Playwright); a move is an arrow key on the
  slider, timed until the chart's new data is in the DOM. Its latencies include rendering in
  Chromium on the same cores as the server: an upper bound.

    .venv/bin/python bench/app_load.py                  # ws clients, N = 1, 10, 30, 60 s each
    .venv/bin/python bench/app_load.py --client browser --clients 1   # the browser at N = 1
    .venv/bin/python bench/app_load.py --clients 30 --seconds 600 --soak   # 10-minute soak
    .venv/bin/python bench/app_load.py --workers 2 --clients 30 60 150      # a class, 2 processes
    .venv/bin/python bench/app_load.py --soak --seconds 600 --clients 30 --with-mnist \
        --heavy-pause 5 [--workers 2]   # the soak: + one session on all of MNIST, a λ move / ~5 s

With `--workers W` the clients connect through the balancer (`metriclab.deploy`: sticky cookie,
websocket), every process shares one disk cache of the full-size graphs, and the report gives each
process's sessions, slider moves, peak RSS and CPU seconds (a client's process is the balancer's
cookie it was given).

Bounded: at most 150 clients and 15 minutes per run, server and clients on 127.0.0.1 only. Report
the machine's load beside the numbers (other work on the machine slows the server).
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

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stream_client import ProtocolError, StreamlitTab, chart_points  # noqa: E402
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

from metriclab.methods import REGISTRY  # noqa: E402
from metriclab.ui.dev.server import (  # noqa: E402
    CHROMIUM_ARGS,
    find_chromium,
    free_port,
    start_app,
    stop_app,
)
from metriclab.ui.shared.widgets import format_value, param_options  # noqa: E402

MAX_CLIENTS = 150
MAX_SECONDS = 900
LAM = REGISTRY["tdl"].param("lam")
SLIDER_LABEL = LAM.label
LAM_TEXTS = [format_value(v) for v in param_options(LAM)]  # the slider's positions as shown
SLIDER_POSITIONS = len(LAM_TEXTS)
REDRAW_TIMEOUT_MS = 15_000
SLIDER_KEY = "p.tdl.lam"
SIGNATURE_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return g && g.data ? JSON.stringify(g.data.map(t => [t.x, t.y])) : ''; }"""
HAS_POINTS_JS = """() => { const g = document.querySelector('.js-plotly-plot');
    return !!(g && g._fullData && g._fullData.some(t => t.x && t.x.length > 0)); }"""
ERROR_JS = """() => document.querySelectorAll(
    '[data-testid="stException"], [data-testid="stAlertContentError"]').length"""


def usage(pid: int) -> tuple[int, float]:
    """Resident memory (bytes) and CPU time (user + system seconds) of the server process and its
    children."""
    import psutil

    try:
        proc = psutil.Process(pid)
        procs = [proc, *proc.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0, 0.0
    rss, cpu = 0, 0.0
    for p in procs:
        try:
            rss += p.memory_info().rss
            times = p.cpu_times()
            cpu += times.user + times.system
        except psutil.NoSuchProcess:
            pass
    return rss, cpu


class MemorySampler(threading.Thread):
    """Samples (seconds since start, RSS, 1-minute load average, server CPU seconds), summed over
    the server processes, and each process's (RSS, CPU seconds) in `per_process`."""

    def __init__(self, pids: int | list[int], every_s: float = 1.0):
        super().__init__(daemon=True)
        self.pids = [pids] if isinstance(pids, int) else list(pids)
        self.every_s = every_s
        self.samples: list[tuple[float, int, float, float]] = []
        self.per_process: dict[int, list[tuple[int, float]]] = {pid: [] for pid in self.pids}
        self.machine: list[tuple[float, float]] = []  # `machine_cpu()` at each sample
        self.stopped = threading.Event()
        self.start_time = time.monotonic()

    def run(self) -> None:
        while not self.stopped.is_set():
            now = time.monotonic() - self.start_time
            each = [usage(pid) for pid in self.pids]
            for pid, value in zip(self.pids, each, strict=True):
                self.per_process[pid].append(value)
            rss, cpu = sum(r for r, _ in each), sum(c for _, c in each)
            self.samples.append((now, rss, os.getloadavg()[0], cpu))
            self.machine.append(machine_cpu())
            self.stopped.wait(self.every_s)

    def peak(self, since: float = 0.0) -> int:
        return max((r for t, r, _, _ in self.samples if t >= since), default=0)

    def cpu_at(self, t: float) -> float:
        """Server CPU seconds at `t` seconds since start (interpolated between samples)."""
        times = [sample[0] for sample in self.samples]
        return float(np.interp(t, times, [sample[3] for sample in self.samples]))

    def machine_busy(self, t0: float, t1: float) -> float:
        """The share of the machine's CPU time that was busy between `t0` and `t1` (seconds since
        start; the samples nearest inside)."""
        inside = [i for i, sample in enumerate(self.samples) if t0 <= sample[0] <= t1]
        if len(inside) < 2:
            return float("nan")
        return busy_share(self.machine[inside[0]], self.machine[inside[-1]])


def upload_csv(rng: random.Random, rows: int = 300) -> bytes:
    """A small labelled CSV, different for every call (so every upload is a new data set)."""
    lines = ["a,b,c,label"]
    for _ in range(rows):
        label = rng.randrange(3)
        lines.append(",".join(f"{label + rng.gauss(0, 0.7):.4f}" for _ in range(3)) + f",{label}")
    return ("\n".join(lines) + "\n").encode()


class Client:
    """What every client does and records; the subclasses speak to the app."""

    def __init__(self, index: int, base: str, seconds: float, soak: bool):
        self.index, self.base, self.seconds, self.soak = index, base, seconds, soak
        self.deadline = float("inf")
        self.rng = random.Random(index)
        self.latencies: list[float] = []  # move -> new chart (ws: its message; browser: its DOM)
        self.wire: list[float] = []  # move's message sent -> chart's message received
        self.run_ends: list[float] = []  # move's message sent -> "script finished" received
        self.press_to_request: list[float] = []  # browser: key press -> its message sent
        self.moved_at: list[float] = []  # time.monotonic() at the end of each timed move
        self.errors: list[str] = []
        self.uploads = 0
        self.worker = ""  # behind the balancer: the process its sticky cookie names

    @property
    def embed_query(self) -> dict:
        ds = "two_moons" if self.index % 2 == 0 else "iris"
        return {"ds": ds, "method": "tdl", "seed": self.index % 10}

    @property
    def embed_url(self) -> str:
        return f"{self.base}/embed?" + "&".join(f"{k}={v}" for k, v in self.embed_query.items())

    def csv_upload(self) -> tuple[str, bytes]:
        return f"client{self.index}-{self.uploads}.csv", upload_csv(self.rng)

    def error(self, exc: BaseException) -> None:
        self.errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:120]}")


def next_value(tab: StreamlitTab, step: int) -> tuple[str, int]:
    """The λ slider's next option `step` places on, turning back at either end (and the step)."""
    options = tab.options(SLIDER_KEY)
    position = options.index(tab.value(SLIDER_KEY))
    if not 0 <= position + step < len(options):
        step = -step
    return options[position + step], step


class WsClient(Client):
    """Streamlit's websocket protocol without a renderer (bench/stream_client.py); one session, in
    which it uploads on the Data page and moves the slider on the Embed page."""

    async def upload(self, tab: StreamlitTab) -> None:
        await tab.goto("data")
        name, data = self.csv_upload()
        run = await tab.upload("upload", name, data)
        if (4, f"Loaded {name}") not in run.alerts:  # 4: st.success
            raise ProtocolError(f"upload of {name} not confirmed: {run.alerts or run.errors}")
        self.uploads += 1

    async def open_embed(self, tab: StreamlitTab) -> None:
        run = await tab.goto("embed", self.embed_query)
        if run.errors or "embedding" not in run.charts:
            raise ProtocolError(f"Embed page without its chart: {run.errors[:1]}")

    async def move(self, tab: StreamlitTab, step: int) -> int:
        value, step = next_value(tab, step)
        before = chart_points(tab.charts["embedding"])
        run = await tab.set_select_slider(SLIDER_KEY, value, timeout=120)
        chart = run.charts.get("embedding")
        if run.errors:
            self.errors.append("error box on the page")
        elif chart is None or chart_points(chart[1]) == before:
            self.errors.append("the chart did not change")
        elif chart[0] - run.started > REDRAW_TIMEOUT_MS / 1000:
            self.errors.append("no redraw within 15 s")
        else:
            self.latencies.append(chart[0] - run.started)
            self.wire.append(chart[0] - run.started)
            self.run_ends.append(run.finished_at - run.started)
            self.moved_at.append(time.monotonic())
        return step

    async def run(self, _browser=None) -> None:
        tab = None
        try:
            tab = await StreamlitTab.open(self.base, "embed", self.embed_query)
            self.worker = tab.http.cookies.get("METRICLAB_WORKER", "")
            if self.index % 3 == 0:
                await self.upload(tab)
                await self.open_embed(tab)
            self.deadline = time.monotonic() + self.seconds  # warm-up (first load) not measured
            step, last_upload = 1, time.monotonic()
            while time.monotonic() < self.deadline:
                if self.soak and self.index % 3 == 0 and time.monotonic() - last_upload > 60:
                    await self.upload(tab)
                    await self.open_embed(tab)
                    last_upload = time.monotonic()
                step = await self.move(tab, step)
                await asyncio.sleep(self.rng.uniform(1.0, 3.0))
        except Exception as exc:  # noqa: BLE001 - counted, reported
            self.error(exc)
        finally:
            if tab is not None:
                await tab.close()


class MnistClient(WsClient):
    """One more session that keeps the server's full-size slot busy: TDL on all 70,000 MNIST
    digits (or another full-size set: `dataset`), a λ move `pause` seconds after each fit. Its
    times are reported apart; the small-set clients' numbers are the ones the bound is on."""

    dataset = "mnist"
    pause = 0.0

    @property
    def embed_query(self) -> dict:
        return {"ds": self.dataset, "method": "tdl"}

    async def run(self, _browser=None) -> None:
        tab = None
        try:
            tab = await StreamlitTab.open(self.base, "embed", self.embed_query, timeout=600)
            self.deadline = time.monotonic() + self.seconds
            step = 1
            while time.monotonic() < self.deadline:
                value, step = next_value(tab, step)
                run = await tab.set_select_slider(SLIDER_KEY, value, timeout=600)
                if run.errors or "embedding" not in run.charts:
                    self.errors.append(f"{self.dataset}: no chart")
                else:
                    self.latencies.append(run.charts["embedding"][0] - run.started)
                await asyncio.sleep(min(self.pause, max(0.0, self.deadline - time.monotonic())))
        except Exception as exc:  # noqa: BLE001 - counted, reported
            self.error(exc)
        finally:
            if tab is not None:
                await tab.close()


class BrowserClient(Client):
    """A Chromium context (Playwright): key presses on the slider, redraws read from the DOM. It
    also times the page's own websocket frames (rerun request sent -> chart message received), the
    span the ws client measures, to validate it; the rest is the browser's (debounce, render)."""

    sent_at: float | None = None
    pressed_at: float | None = None

    def watch(self, ws) -> None:
        def sent(payload) -> None:
            back = BackMsg()
            back.ParseFromString(payload)
            if back.WhichOneof("type") == "rerun_script" and back.rerun_script.fragment_id:
                self.sent_at = time.perf_counter()  # a widget in the live-view fragment moved
                if self.pressed_at is not None:
                    self.press_to_request.append(self.sent_at - self.pressed_at)
                    self.pressed_at = None

        def received(payload) -> None:
            if self.sent_at is None or isinstance(payload, str):
                return
            now, msg = time.perf_counter(), ForwardMsg()
            msg.ParseFromString(payload)
            if msg.WhichOneof("type") == "script_finished":
                self.run_ends.append(now - self.sent_at)
                self.sent_at = None
            elif msg.delta.new_element.plotly_chart.id.endswith("-embedding"):
                self.wire.append(now - self.sent_at)

        ws.on("framesent", sent)
        ws.on("framereceived", received)

    async def upload(self, page) -> None:
        await page.goto(f"{self.base}/data")
        await page.wait_for_selector("input[type=file]", state="attached")
        name, data = self.csv_upload()
        await page.locator("input[type=file]").set_input_files(
            files=[{"name": name, "mimeType": "text/csv", "buffer": data}]
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
        page.on("websocket", self.watch)
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
                start = self.pressed_at = time.perf_counter()
                await page.keyboard.press("ArrowRight" if step > 0 else "ArrowLeft")
                try:
                    await page.wait_for_function(
                        f"(b) => ({SIGNATURE_JS})() !== b",
                        arg=before,
                        polling=50,
                        timeout=REDRAW_TIMEOUT_MS,
                    )
                    self.latencies.append(time.perf_counter() - start)
                    self.moved_at.append(time.monotonic())
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
            self.error(exc)
        finally:
            await context.close()


async def start_clients(clients: list[Client], browser=None) -> None:
    tasks = []
    for client in clients:  # staggered arrivals over the first few seconds
        tasks.append(asyncio.create_task(client.run(browser)))
        await asyncio.sleep(0.3)
    await asyncio.gather(*tasks)


async def run_clients(
    n: int, base: str, seconds: float, soak: bool, kind: str, mnist: MnistClient | None = None
):
    if kind == "ws":
        clients = [WsClient(i, base, seconds, soak) for i in range(n)]
        heavy = [] if mnist is None else [asyncio.create_task(mnist.run())]
        if heavy:
            await asyncio.sleep(5)  # the MNIST fit has started before the small-set clients
        await start_clients(clients)
        await asyncio.gather(*heavy)
        return clients
    from playwright.async_api import async_playwright

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=find_chromium(), headless=True, args=CHROMIUM_ARGS
        )
        clients = [BrowserClient(i, base, seconds, soak) for i in range(n)]
        await start_clients(clients, browser)
        await browser.close()
    return clients


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def start_class(workers: int, env: dict):
    """`workers` server processes behind HAProxy (metriclab.deploy) on free local ports."""
    from metriclab import deploy

    for _ in range(20):
        first = free_port()
        if first + workers < 65000:
            try:
                return deploy.start(
                    workers, first, first_worker_port=first + 1, bind="127.0.0.1", env=env
                )
            except RuntimeError:  # a port taken meanwhile: try others
                continue
    raise RuntimeError("could not start the class on free ports")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU jiffies of the whole machine, from /proc/stat (nan where absent)."""
    try:
        fields = [float(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    except OSError:
        return float("nan"), float("nan")
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0.0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def busy_share(before: tuple[float, float], after: tuple[float, float]) -> float:
    """The share of the machine's CPU time that was busy between two `machine_cpu` readings."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total if total > 0 else float("nan")


def one_run(
    n: int,
    seconds: float,
    soak: bool,
    kind: str,
    env: dict | None = None,
    mnist: bool = False,
    workers: int | None = None,
    heavy_set: str = "mnist",
    heavy_pause: float = 0.0,
) -> dict:
    env = {"METRICLAB_TIMING": "1", **(env or {})}
    if workers:
        deployment = start_class(workers, env)
        base, pids = deployment.url, [p.pid for p in deployment.workers]
        names = [f"w{i}" for i in range(1, workers + 1)]
    else:
        proc = start_app(free_port(), env=env)
        base = f"http://127.0.0.1:{proc.args[proc.args.index('--server.port') + 1]}"
        pids, names = [proc.pid], [""]
    sampler = MemorySampler(pids, every_s=1.0 if not soak else 5.0)
    sampler.start()
    load_before = os.getloadavg()[0]
    heavy = MnistClient(n, base, seconds, soak) if mnist else None
    if heavy is not None:
        heavy.dataset, heavy.pause = heavy_set, heavy_pause
    own_before = time.process_time()
    try:
        clients = asyncio.run(run_clients(n, base, seconds, soak, kind, heavy))
    finally:
        clients_cpu = time.process_time() - own_before
        sampler.stopped.set()
        sampler.join()
        if workers:
            log = "\n".join(
                p.read_text(errors="replace") for p in deployment.folder.glob("worker-*.log")
            )
            deployment.stop()
        else:
            log = proc.log_path.read_text(errors="replace")
            stop_app(proc)
    processes = []
    for pid, name in zip(pids, names, strict=True):
        mine = [c for c in clients if c.worker == name]
        values = sampler.per_process[pid]
        processes.append(
            {
                "name": name or "server",
                "sessions": len(mine),
                "moves": sum(len(c.latencies) for c in mine),
                "p95_s": percentile([v for c in mine for v in c.latencies], 0.95),
                "peak_rss": max((r for r, _ in values), default=0),
                "cpu_s": (values[-1][1] - values[0][1]) if values else float("nan"),
            }
        )
    server = [float(m) / 1000 for m in re.findall(r"metriclab-timing live_view ([0-9.]+) ms", log)]
    # Server CPU per move, over the span in which every client was past its first page load.
    measuring = [c for c in clients if c.deadline < float("inf")]
    t0 = max((c.deadline - c.seconds for c in measuring), default=0) - sampler.start_time
    t1 = min((c.deadline for c in measuring), default=0) - sampler.start_time
    moves_in = sum(t0 <= t - sampler.start_time <= t1 for c in clients for t in c.moved_at)
    cpu_per_move = (sampler.cpu_at(t1) - sampler.cpu_at(t0)) / moves_in if moves_in else np.nan
    latencies = [v for c in clients for v in c.latencies]
    run_ends = [v for c in clients for v in c.run_ends]
    wire = [v for c in clients for v in c.wire]
    press = [v for c in clients for v in c.press_to_request]
    errors = [e for c in clients for e in c.errors]
    return {
        "n": n,
        "client": kind,
        "seconds": seconds,
        "moves": len(latencies),
        "median_s": statistics.median(latencies) if latencies else float("nan"),
        "p95_s": percentile(latencies, 0.95),
        "press_median_s": statistics.median(press) if press else float("nan"),
        "wire_median_s": statistics.median(wire) if wire else float("nan"),
        "wire_p95_s": percentile(wire, 0.95),
        "end_median_s": statistics.median(run_ends) if run_ends else float("nan"),
        "end_p95_s": percentile(run_ends, 0.95),
        "server_median_s": statistics.median(server) if server else float("nan"),
        "server_p95_s": percentile(server, 0.95),
        "errors": errors,
        "uploads": sum(c.uploads for c in clients),
        "peak_rss": sampler.peak(),
        "samples": sampler.samples,
        "loads": [load_before] + [load for _, _, load, _ in sampler.samples],
        "cpu_per_move_s": cpu_per_move,
        "clients_cpu_s": clients_cpu,
        "machine_busy": sampler.machine_busy(t0, t1),
        "processes": processes,
        "workers": workers or 1,
        "heavy_set": heavy_set,
        "rss_per_process": [
            [sampler.per_process[pid][i][0] for pid in pids] for i in range(len(sampler.samples))
        ],
        "mnist_moves": [] if heavy is None else heavy.latencies,
        "mnist_errors": [] if heavy is None else heavy.errors,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, nargs="*", default=[1, 10, 30])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--client", choices=["ws", "browser"], default="ws")
    parser.add_argument("--soak", action="store_true", help="sample RSS over time, re-upload")
    parser.add_argument(
        "--server-env",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="extra environment for the server (e.g. a Streamlit option to compare)",
    )
    parser.add_argument(
        "--with-mnist",
        action="store_true",
        help="one more (ws) session fitting TDL on all of MNIST throughout, reported apart",
    )
    parser.add_argument(
        "--heavy-set",
        default="mnist",
        help="the full-size data set of --with-mnist's session (e.g. usps on a busy machine)",
    )
    parser.add_argument(
        "--heavy-pause",
        type=float,
        default=0.0,
        help="seconds the full-size session waits between its λ moves (the soak: 5)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        help="W server processes behind HAProxy (make class WORKERS=W); 0: one process, direct",
    )
    args = parser.parse_args(argv)
    if args.workers and args.client != "ws":
        parser.error("--workers runs with the ws clients")
    if args.with_mnist and args.client != "ws":
        parser.error("--with-mnist runs with the ws clients")
    if any(not 1 <= n <= MAX_CLIENTS for n in args.clients):
        parser.error(f"clients must be between 1 and {MAX_CLIENTS}")
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"seconds must be in (0, {MAX_SECONDS}]")
    if any("=" not in item for item in args.server_env):
        parser.error("--server-env takes NAME=VALUE")
    env = dict(item.split("=", 1) for item in args.server_env)
    if args.client == "browser" and find_chromium() is None:
        print("no chromium found; install Debian's chromium", file=sys.stderr)
        return 1
    results = []
    for n in args.clients:
        print(f"running N={n} {args.client} for {args.seconds:.0f} s ...", file=sys.stderr)
        results.append(
            one_run(
                n,
                args.seconds,
                args.soak,
                args.client,
                env,
                args.with_mnist,
                args.workers,
                args.heavy_set,
                args.heavy_pause,
            )  # fmt: skip
        )
        r = results[-1]
        print(
            f"N={n}: {r['moves']} moves, median {r['median_s']:.3f} s, p95 {r['p95_s']:.3f} s, "
            f"{len(r['errors'])} errors, peak RSS {r['peak_rss'] / 2**20:.0f} MB",
            file=sys.stderr,
            flush=True,
        )
    where = f"{args.workers} processes behind HAProxy" if args.workers else "one server process"
    print(f"client: {args.client}; {where}; server environment: {env or 'default'}\n")
    print("| clients | seconds | slider moves | median s | p95 s "
          "| request → chart message median / p95 s | request → run end median / p95 s "
          "| server run median / p95 s | server CPU ms per move | errors | uploads "
          "| server peak RSS MB | clients' CPU s (whole run) | machine busy (measured span) "
          "| load avg 1-min (start, min–max) |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in results:
        low, high = min(r["loads"]), max(r["loads"])
        print(
            f"| {r['n']} | {r['seconds']:.0f} | {r['moves']} | {r['median_s']:.3f} "
            f"| {r['p95_s']:.3f} | {r['wire_median_s']:.3f} / {r['wire_p95_s']:.3f} "
            f"| {r['end_median_s']:.3f} / {r['end_p95_s']:.3f} "
            f"| {r['server_median_s']:.3f} / {r['server_p95_s']:.3f} "
            f"| {1000 * r['cpu_per_move_s']:.0f} | {len(r['errors'])} | {r['uploads']} "
            f"| {r['peak_rss'] / 2**20:.0f} | {r['clients_cpu_s']:.1f} "
            f"| {r['machine_busy']:.0%} | {r['loads'][0]:.1f}, {low:.1f}–{high:.1f} |"
        )
    print("\nPer process (its sessions by the balancer's sticky cookie):\n")
    print("| clients | process | sessions | slider moves | p95 s | peak RSS MB | CPU s |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        for p in r["processes"]:
            print(
                f"| {r['n']} | {p['name']} | {p['sessions']} | {p['moves']} | {p['p95_s']:.3f} "
                f"| {p['peak_rss'] / 2**20:.0f} | {p['cpu_s']:.1f} |"
            )
    for r in results:
        if r["client"] == "browser":
            rest = r["median_s"] - r["press_median_s"] - r["wire_median_s"]
            print(
                f"\nN={r['n']} browser, medians: key press → request {r['press_median_s']:.3f} s, "
                f"request → chart message {r['wire_median_s']:.3f} s, the rest (rendering, "
                f"until the new data are in the DOM) {rest:.3f} s"
            )
    for r in results if args.with_mnist else []:
        moves = ", ".join(f"{v:.1f}" for v in r["mnist_moves"])
        errors = "; ".join(sorted(set(r["mnist_errors"])))
        print(
            f"\nN={r['n']}, meanwhile one session on all of {r['heavy_set']} (TDL): λ moves "
            f"{moves or '—'} s" + (f"; errors: {errors}" if errors else "")
        )
    for r in results:
        if r["errors"]:
            kinds = sorted(set(r["errors"]))
            print(f"\nN={r['n']} errors: " + "; ".join(kinds[:5]))
    if args.soak:
        for r in results:
            names = [p["name"] for p in r["processes"]]
            print(f"\nRSS over time, N={r['n']} (MB per process, every 30 s):\n")
            print(f"| t (s) | {' | '.join(names)} | all | load avg 1-min |")
            print("|---:|" + "---:|" * (len(names) + 2))
            next_t = 0.0
            for (t, rss, load, _), each in zip(r["samples"], r["rss_per_process"], strict=True):
                if t >= next_t:
                    cells = " | ".join(f"{v / 2**20:.0f}" for v in each)
                    print(f"| {t:.0f} | {cells} | {rss / 2**20:.0f} | {load:.1f} |")
                    next_t += 30
    return 0


if __name__ == "__main__":
    sys.exit(main())
