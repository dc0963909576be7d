"""All of MNIST on the Embed page, timed at the server over the app's websocket (issue 42: "all of
MNIST first view ≤ 3 s in the app, a λ move ≤ 0.5 s" where a GPU exists): no browser, so it runs on
a machine with no display and measures what the server does before a browser draws.

One server process (`streamlit run app.py`, a fresh graph store), one websocket client
(bench/stream_client.py):

1. the first session opens /embed?ds=mnist&method=tdl in a cold process: graph, label cost, fit,
   chart; timed to the embedding chart's message and to the end of the run;
2. λ moves (the slider a step at a time): timed to the new chart's message;
3. a second session with another split (`seed=1`: new labels, new cost, new eigensolve, the graph
   kept): its first view in a warm process, the case of a student who opens the page after
   another;
4. the sentence the page shows under the chart ("fit in … ms on the GPU") as the device said, and
   the times at which the first view's progress bar named its stages (graph, eigensolve, …);
5. a restart on the same machine (the graph and label cost in the store, CuPy's kernels compiled
   on disk): a new server process whose first visitor comes at once, and one whose first visitor
   comes after the process's warm-up line (`metriclab.warm_up`: a lecture's server started
   before the class). The first process is opened after its warm-up line too, which is timed;
   with `--at-once` its visitor comes as soon as the port opens, during the warm-up (on a fresh
   machine, where CuPy compiles its kernels, the case of a student who is there first).

`--profile FILE`: py-spy (on the PATH) samples the server during the first session's λ moves; its
raw stacks go to FILE, and the script thread's time per move is summed by the page's steps, the
estimator's fit apart from the host work around it (what a λ move spends besides the fit).

    .venv/bin/python bench/full_size_ws.py [--moves 4] [--dataset mnist] [--no-restart]
        [--profile stacks.txt] [--at-once]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app_load import SLIDER_KEY, next_value  # noqa: E402
from stream_client import StreamlitTab  # noqa: E402

from metriclab.ui.dev.server import free_port, start_app, stop_app  # noqa: E402

FIT_SENTENCE = re.compile(r"fit in [0-9,]+ ms( on the [A-Z]+)?")
FIT_MS = re.compile(r"fit in ([0-9,]+) ms")
WARM_LINE = re.compile(r"metriclab: (warmed up \(.*\)|GPU warm-up failed .*)")


def said(run) -> str:
    """The page's "fit in … ms on the …" sentence of this run, or ''."""
    found = [FIT_SENTENCE.search(t) for t in run.texts]
    return next((m.group(0) for m in found if m), "")


PROFILE_RATE = 100  # samples a second


def start_profile(pid: int, path: str) -> subprocess.Popen:
    """py-spy recording process `pid` into `path` (raw stacks) until `stop_profile`."""
    spy = shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy on the PATH (pip install py-spy)")
    command = [spy, "record", "-p", str(pid), "-r", str(PROFILE_RATE), "-f", "raw", "-o", path]
    with open(f"{path}.log", "w") as log:  # py-spy's own words, e.g. a refused ptrace
        return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)


def stop_profile(spy: subprocess.Popen, path: str, moves: int) -> None:
    if spy.poll() is None:
        spy.send_signal(signal.SIGINT)  # py-spy writes its file when interrupted
    spy.wait(timeout=60)
    if not Path(path).exists():  # the timings above stand; the rest of the bench goes on
        print(f"  py-spy wrote no profile (exit status {spy.returncode}; see {path}.log)")
        return
    print(f"  profile of the λ moves ({path}), ms per move in the script thread:", flush=True)
    for step, ms in profile_steps(Path(path).read_text().splitlines(), moves):
        print(f"    {ms:7.1f}  {step}", flush=True)


def profile_steps(lines: list[str], moves: int, shown: int = 15) -> list[tuple[str, float]]:
    """(page step, ms per move) from py-spy's raw lines ("frame;frame;... count"): the script
    thread's samples named by their metriclab functions, cut at the estimator's fit (a method's
    `fit` in metriclab/methods) so that everything else is the host work around it."""
    steps: Counter = Counter()
    for line in lines:
        stack, _, count = line.rpartition(" ")
        if "ScriptRunner" not in stack or not count.isdigit():
            continue
        named = []
        for frame in stack.split(";"):
            if "metriclab/" not in frame:
                continue
            function = frame.split(" (")[0]
            named.append(function)
            if "metriclab/methods/" in frame and function.endswith(".fit"):
                break
        steps[" > ".join(named[-4:]) or "(Streamlit)"] += int(count)
    scale = 1000.0 / PROFILE_RATE / max(moves, 1)
    return [(step, n * scale) for step, n in steps.most_common(shown)]


async def session(
    base: str, query: dict, moves: int, label: str, profile: tuple | None = None
) -> None:
    started = time.perf_counter()
    tab = await StreamlitTab.open(base, "embed", query, timeout=900)
    run_end = time.perf_counter() - started
    first = tab.first_run
    if "embedding" not in first.charts:
        raise SystemExit(f"{label}: no embedding chart ({query}): {first.errors}")
    chart_at = first.charts["embedding"][0] - first.started
    errors = "; ".join(first.errors) or "none"
    print(f"{label}: first view chart {chart_at:.2f} s, run finished {run_end:.2f} s "
          f"({said(first) or 'no fit sentence'}; errors: {errors})", flush=True)  # fmt: skip
    stages = [(at - first.started, text) for at, text in first.progress]
    print("  stages: " + "; ".join(f"{at:.2f} s {text}" for at, text in stages), flush=True)
    step = 1
    around = []  # (chart − fit, run's end − chart) of each move, in seconds
    spy = None if profile is None else start_profile(*profile)
    for _ in range(moves):
        value, step = next_value(tab, step)
        run = await tab.set_select_slider(SLIDER_KEY, value, timeout=600)
        if "embedding" not in run.charts or run.errors:
            print(f"  λ → {value}: no chart ({'; '.join(run.errors)})", flush=True)
            continue
        at = run.charts["embedding"][0] - run.started
        end = run.finished_at - run.started
        print(f"  λ → {value}: chart {at:.2f} s, run finished {end:.2f} s ({said(run)})",
              flush=True)  # fmt: skip
        fit = FIT_MS.search(said(run))
        if fit:
            around.append((at - int(fit.group(1).replace(",", "")) / 1000, end - at))
    if around:  # what the page does besides the fit, before its chart and after it
        before, after = (sorted(column) for column in zip(*around, strict=True))
        print(f"  over {len(around)} moves: chart − fit median {1000 * before[len(before) // 2]:.0f}"
              f" ms ({1000 * before[0]:.0f}–{1000 * before[-1]:.0f}), run's end after the chart"
              f" median {after[len(after) // 2]:.2f} s ({after[0]:.2f}–{after[-1]:.2f})",
              flush=True)  # fmt: skip
    if spy is not None:
        stop_profile(spy, profile[1], moves)
    await tab.close()


def warmed(proc, timeout: float = 180.0) -> str:
    """Wait for the server's warm-up line (`metriclab.warm_up`) in its log; the line, or why not."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        log = Path(proc.log_path).read_text(errors="replace")
        found = WARM_LINE.search(log)
        if found:
            return found.group(0)
        time.sleep(0.1)
    return f"no warm-up line within {timeout:.0f} s"


def serve(port: int, env: dict, wait_warm: bool, label: str):
    t0 = time.perf_counter()
    proc = start_app(port, timeout=180, env=env)
    print(f"{label}: server up in {time.perf_counter() - t0:.1f} s", flush=True)
    if wait_warm:
        line = warmed(proc)
        print(f"  {line} ({time.perf_counter() - t0:.1f} s after start)", flush=True)
    return proc


def stop(proc) -> None:
    stop_app(proc, keep_log=True)
    log = Path(proc.log_path).read_text(errors="replace")
    tail = "\n".join(line for line in log.splitlines()[-15:] if line.strip())
    print("server log (tail):\n" + tail if "Traceback" in log else "server log: clean", flush=True)


async def main(
    dataset: str, moves: int, restarts: bool, profile: str | None = None, at_once: bool = False
) -> None:
    port = free_port()
    query = {"ds": dataset, "method": "tdl"}
    with tempfile.TemporaryDirectory() as store:
        env = dict(os.environ, METRICLAB_GRAPH_CACHE=store)
        label = "new process, empty graph store" + (", visitor at once" if at_once else "")
        started = time.perf_counter()
        proc = serve(port, env, not at_once, label)
        try:
            await session(
                f"http://127.0.0.1:{port}", query, moves, "cold process, first session",
                None if profile is None else (proc.pid, profile),
            )  # fmt: skip
            if at_once:  # when the warm-up the visitor came into ended
                line = warmed(proc)
                print(f"  {line} ({time.perf_counter() - started:.1f} s after start)", flush=True)
            await session(
                f"http://127.0.0.1:{port}", {**query, "seed": "1"}, moves,
                "warm process, another split",
            )  # fmt: skip
        finally:
            stop(proc)
        if not restarts:
            return
        # a restart on the same machine: graph and label cost in the store, CuPy's kernels on disk
        for wait_warm, label in ((False, "visitor at once"), (True, "visitor after the warm-up")):
            proc = serve(port, env, wait_warm, f"restarted process, stored graph, {label}")
            try:
                await session(f"http://127.0.0.1:{port}", query, 2, f"restart, {label}")
            finally:
                stop(proc)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="mnist")
    parser.add_argument("--moves", type=int, default=4)
    parser.add_argument(
        "--no-restart", action="store_true", help="skip the restarted processes on the same store"
    )
    parser.add_argument("--profile", help="py-spy's raw stacks of the first session's λ moves")
    parser.add_argument(
        "--at-once",
        action="store_true",
        help="the first process's visitor comes at once, during its warm-up (a fresh machine's)",
    )
    args = parser.parse_args()
    asyncio.run(main(args.dataset, args.moves, not args.no_restart, args.profile, args.at_once))
