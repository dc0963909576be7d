"""A class on one machine or several: Streamlit processes behind HAProxy.

One Streamlit process uses about one core (its script runs hold the GIL), so a class is served by
several processes behind a sticky load balancer, HAProxy from Debian's packages (`apt-get install
haproxy`), configured from `deploy/haproxy.cfg.in` (shipped in the wheel as
`metriclab/_deploy/haproxy.cfg.in`, so the same command works from an installed package):

    make class WORKERS=2                       # this machine: 2 processes, the balancer on :8501
    metriclab class --workers 2 --port 8501    # the same from an installed package
    python -m metriclab.deploy --workers 2 --port 8501

Beyond one machine, the same recipe with the balancer in front of several hosts:

    # on each worker host (the graph cache on a folder every host mounts):
    python -m metriclab.deploy --workers 2 --no-balancer --worker-address 0.0.0.0 \\
        --cache /shared/metriclab-arrays [--scheduler tcp://dask-host:8786]
    # on the front host (it may run workers of its own too):
    python -m metriclab.deploy --workers 0 --hosts host1:8601 host1:8602 host2:8601 host2:8602

Every process it starts gets `METRICLAB_GRAPH_CACHE` (`--cache`: where the full-size graphs are
kept, `metriclab.graph_store`; default the user's cache folder, shared by the processes of the
machine) and, with `--scheduler`, `METRICLAB_DASK_SCHEDULER` (Compare's runs and the full-size
graph fits go to that Dask cluster, `metriclab.cluster`). `--check` writes the balancer's configuration, has `haproxy -c`
check it and exits. Ctrl-C (or SIGTERM) stops the balancer and every process it started.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from metriclab import resources

TEMPLATE = resources.deploy_folder() / "haproxy.cfg.in"
FIRST_WORKER_PORT = 8601
MAXCONN = 2000
HEALTH_TIMEOUT_S = 120.0


def haproxy_binary() -> str | None:
    return shutil.which("haproxy") or (
        "/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None
    )


def haproxy_config(
    servers: list[str],
    port: int,
    bind: str = "0.0.0.0",
    maxconn: int = MAXCONN,
    stats_port: int | None = None,
    template: Path = TEMPLATE,
) -> str:
    """The balancer's configuration for `servers` ("host:port" each), listening on bind:port."""
    if not servers:
        raise ValueError("a class needs at least one worker (--workers N or --hosts HOST:PORT)")
    for server in servers:
        host, _, number = server.rpartition(":")
        if not host or not number.isdigit():
            raise ValueError(f"a worker is HOST:PORT, got {server!r}")
    lines = [
        f"    server w{i} {server} check cookie w{i}" for i, server in enumerate(servers, start=1)
    ]
    stats = (
        ""
        if stats_port is None
        else f"\nlisten stats\n    bind 127.0.0.1:{stats_port}\n    stats enable\n    stats uri /\n"
    )
    return template.read_text().format(
        bind=bind, port=int(port), maxconn=int(maxconn), servers="\n".join(lines), stats=stats
    )


def check_config(text: str) -> tuple[bool, str]:
    """`haproxy -c` on the configuration: (valid, haproxy's output)."""
    binary = haproxy_binary()
    if binary is None:
        raise FileNotFoundError("haproxy is not installed: apt-get install haproxy")
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(text)
    try:
        done = subprocess.run(
            [binary, "-c", "-f", f.name], capture_output=True, text=True, timeout=30
        )
    finally:
        os.unlink(f.name)
    return done.returncode == 0, (done.stdout + done.stderr).strip()


def worker_command(
    port: int, address: str = "127.0.0.1", script: Path | None = None, env: dict | None = None
) -> list[str]:
    """`streamlit run` of the lab's app (`script`, default `resources.app_script()`) on
    address:port, through `metriclab.ui.shared.serve` (no request to another host; the process
    warmed before its first visitor, `metriclab.warm_up`), headless, with the project's Streamlit
    configuration as flags (usage statistics off, no Deploy button, no garbage collection after
    each run: `resources.streamlit_options`), so a worker started from any folder, or from an
    installed wheel, is configured alike; an option set by a STREAMLIT_* variable of its
    environment (this process's plus `env`) is left to that variable. The one launcher of the lab's server: the class's workers, the tests' and the
    benches' servers."""
    ours = [
        "--server.headless", "true", "--server.address", address, "--server.port", str(port),
        "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
        "--client.toolbarMode", "viewer",
    ]  # fmt: skip
    script = resources.app_script() if script is None else script
    project = resources.streamlit_options(ours, {**os.environ, **(env or {})})
    return [sys.executable, "-m", "metriclab.ui.shared.serve", "run", str(script), *project, *ours]


def class_environment(cache: str | None = None, scheduler: str | None = None) -> dict:
    env = {}
    if cache:
        env["METRICLAB_GRAPH_CACHE"] = str(Path(cache).expanduser())
    if scheduler:
        env["METRICLAB_DASK_SCHEDULER"] = scheduler
    return env


def wait_healthy(url: str, timeout: float = HEALTH_TIMEOUT_S, process=None) -> None:
    """Until GET url/_stcore/health answers ok (a Streamlit server, or the balancer in front of
    several). RuntimeError, with the end of `process.log_path` where it has one, when `process`
    exits first or nothing answers within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(
                f"{' '.join(map(str, process.args[:5]))} ... exited early{_log_tail(process)}"
            )
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"{url} did not answer within {timeout:.0f} s{_log_tail(process)}")


def _log_tail(process) -> str:
    path = getattr(process, "log_path", None)
    if path is None or not Path(path).exists():
        return ""
    return ":\n" + Path(path).read_text(errors="replace")[-2000:]


def launch(
    command: list[str], log: Path, env: dict | None = None, cwd: Path | None = None
) -> subprocess.Popen:
    """`command` in the background, its output into the file `log` (never a pipe nobody reads: a
    full pipe would block a server), with `env` added to this process's environment; the log's
    path is the process's `log_path`."""
    with open(log, "wb") as out:  # the child keeps its own descriptor
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
            cwd=cwd,
        )  # fmt: skip
    process.log_path = Path(log)
    return process


@dataclass
class Deployment:
    """The processes of a class started by `start`: local workers and the balancer."""

    port: int
    workers: list[subprocess.Popen] = field(default_factory=list)
    worker_ports: list[int] = field(default_factory=list)
    balancer: subprocess.Popen | None = None
    folder: Path | None = None  # the configuration and the processes' logs

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def logs(self) -> str:
        if self.folder is None:
            return ""
        return "\n".join(
            f"== {p.name}\n{p.read_text(errors='replace')[-3000:]}"
            for p in sorted(self.folder.glob("*.log"))
        )

    def stop(self) -> None:
        for process in ([self.balancer] if self.balancer else []) + self.workers:
            if process.poll() is None:
                process.terminate()
        for process in ([self.balancer] if self.balancer else []) + self.workers:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def start(
    workers: int = 2,
    port: int = 8501,
    hosts: tuple[str, ...] = (),
    first_worker_port: int = FIRST_WORKER_PORT,
    bind: str = "0.0.0.0",
    worker_address: str = "127.0.0.1",
    balancer: bool = True,
    env: dict | None = None,
    stats_port: int | None = None,
) -> Deployment:
    """Start `workers` local Streamlit processes (ports first_worker_port, +1, ...) and, unless
    `balancer` is False, HAProxy on bind:port in front of them and of `hosts`; returns once
    every local worker and the balancer answer. On failure everything started is stopped."""
    if workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    folder = Path(tempfile.mkdtemp(prefix="metriclab-class-"))
    deployment = Deployment(port=port, folder=folder)
    try:
        for i in range(workers):
            worker_port = first_worker_port + i
            deployment.worker_ports.append(worker_port)
            deployment.workers.append(
                launch(
                    worker_command(worker_port, worker_address, env=env),
                    folder / f"worker-{worker_port}.log",
                    env or {},
                )
            )
        for worker_port, process in zip(deployment.worker_ports, deployment.workers, strict=True):
            wait_healthy(f"http://127.0.0.1:{worker_port}", process=process)
        if balancer:
            binary = haproxy_binary()
            if binary is None:
                raise FileNotFoundError("haproxy is not installed: apt-get install haproxy")
            servers = [f"127.0.0.1:{p}" for p in deployment.worker_ports] + list(hosts)
            config = folder / "haproxy.cfg"
            config.write_text(haproxy_config(servers, port, bind, stats_port=stats_port))
            deployment.balancer = launch(
                [binary, "-db", "-f", str(config)], folder / "haproxy.log", {}
            )
            wait_healthy(deployment.url, process=deployment.balancer)
    except BaseException:
        logs = deployment.logs()
        deployment.stop()
        if logs:
            print(logs, file=sys.stderr)
        raise
    return deployment


def _checked_config(args, servers: list[str]) -> str:
    """The balancer's configuration for the command line's `args`, after the checks that need no
    process: a worker count below 0, nothing to serve, a malformed HOST:PORT, a port out of range
    or a missing haproxy raise ValueError or FileNotFoundError with the reason."""
    if args.workers < 0:
        raise ValueError(f"--workers must be 0 or more, got {args.workers}")
    ports = {"--port": args.port, "--first-worker-port": args.first_worker_port}
    if args.stats_port is not None:
        ports["--stats-port"] = args.stats_port
    for option, number in ports.items():
        if not 1 <= number <= 65535:
            raise ValueError(f"{option} must be a port number in [1, 65535], got {number}")
    if args.no_balancer and args.workers == 0:
        raise ValueError("--no-balancer serves only this host's workers: give --workers N (N >= 1)")
    text = haproxy_config(servers, args.port, args.bind, stats_port=args.stats_port)
    if (args.check or not args.no_balancer) and haproxy_binary() is None:
        raise FileNotFoundError("haproxy is not installed: apt-get install haproxy")
    return text


def main(argv: list[str] | None = None, prog: str = "python -m metriclab.deploy") -> int:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="Streamlit processes on this host")
    parser.add_argument("--port", type=int, default=8501, help="the balancer's port")
    parser.add_argument("--bind", default="0.0.0.0", help="the balancer's address")
    parser.add_argument(
        "--first-worker-port",
        type=int,
        default=FIRST_WORKER_PORT,
        help="the first local worker's port; the next ones follow (default: %(default)s)",
    )
    parser.add_argument(
        "--worker-address",
        default="127.0.0.1",
        help="address the local workers listen on (0.0.0.0 for a balancer on another host)",
    )
    parser.add_argument(
        "--hosts", nargs="*", default=[], metavar="HOST:PORT", help="workers on other hosts"
    )
    parser.add_argument("--no-balancer", action="store_true", help="only this host's workers")
    parser.add_argument("--cache", help="folder of the full-size graph cache (shared by hosts)")
    parser.add_argument(
        "--scheduler", help="Dask scheduler address for Compare's runs and the full-size fits"
    )
    parser.add_argument("--stats-port", type=int, help="HAProxy's statistics page on 127.0.0.1")
    parser.add_argument("--check", action="store_true", help="check the configuration and exit")
    args = parser.parse_args(argv)
    servers = [
        f"127.0.0.1:{args.first_worker_port + i}" for i in range(max(args.workers, 0))
    ] + list(args.hosts)
    try:  # what can be checked before a process starts: one line, never a traceback
        text = _checked_config(args, servers)
    except (ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.check:
        ok, output = check_config(text)
        print(text)
        print(output or "configuration valid", file=sys.stderr)
        return 0 if ok else 1
    env = class_environment(args.cache, args.scheduler)
    stopping = []  # SIGTERM from here on stops the class cleanly (exit 0), even while it starts
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(1))
    deployment = start(
        args.workers,
        args.port,
        tuple(args.hosts),
        args.first_worker_port,
        args.bind,
        args.worker_address,
        balancer=not args.no_balancer,
        env=env,
        stats_port=args.stats_port,
    )
    where = (
        deployment.url.replace("127.0.0.1", args.bind if args.bind != "0.0.0.0" else "localhost")
        if not args.no_balancer
        else ", ".join(f"{args.worker_address}:{p}" for p in deployment.worker_ports)
    )
    print(
        f"metriclab class: {args.workers} local worker(s)"
        + (f" + {len(args.hosts)} remote" if args.hosts else "")
        + f", open {where} (Ctrl-C stops)",
        flush=True,
    )
    with deployment, contextlib.suppress(KeyboardInterrupt):
        watched = deployment.workers + ([deployment.balancer] if deployment.balancer else [])
        while not stopping:
            dead = [p for p in watched if p.poll() is not None]
            if dead:
                print(deployment.logs(), file=sys.stderr)
                print(f"a process of the class exited ({dead[0].args[0]}); stopping", flush=True)
                return 1
            time.sleep(1.0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
