"""A class behind HAProxy (issue 41): the balancer's configuration parses, two Streamlit processes
behind it serve a page (over the websocket, sticky), and a configured Dask scheduler receives
Compare's runs and the full-size graph builds. The balancer tests skip where haproxy is not
installed, unless REQUIRE_BALANCER (or REQUIRE_BROWSER, as in CI) asks for it."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import socket
import sys
import urllib.request
from pathlib import Path

import numpy as np
import pytest

from metriclab import deploy

BENCH = Path(__file__).resolve().parents[1] / "bench" / "stream_client.py"


@pytest.fixture
def haproxy():
    if deploy.haproxy_binary() is None:
        if os.environ.get("REQUIRE_BALANCER") or os.environ.get("REQUIRE_BROWSER"):
            pytest.fail("haproxy is required here but not installed (apt-get install haproxy)")
        pytest.skip("haproxy not installed (set REQUIRE_BALANCER=1 to make this a failure)")
    return deploy.haproxy_binary()


def _free_ports(count: int) -> int:
    """A first port with `count` consecutive free ports from it."""
    for _ in range(100):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            first = s.getsockname()[1]
        if first + count >= 65000:
            continue
        try:
            held = []
            for port in range(first, first + count):
                sock = socket.socket()
                held.append(sock)
                sock.bind(("127.0.0.1", port))
            return first
        except OSError:
            continue
        finally:
            for sock in held:
                sock.close()
    raise RuntimeError("no consecutive free ports")


@pytest.mark.parametrize("workers, hosts", [(2, ()), (1, ("10.0.0.2:8601", "10.0.0.3:8601"))])
def test_the_balancer_configuration_parses(haproxy, workers, hosts):
    servers = [f"127.0.0.1:{8601 + i}" for i in range(workers)] + list(hosts)
    text = deploy.haproxy_config(servers, 8501, stats_port=8404)
    ok, output = deploy.check_config(text)
    assert ok, output
    assert text.count("\n    server w") == len(servers)
    assert "cookie METRICLAB_WORKER insert" in text and "timeout tunnel" in text
    broken = text.replace("balance leastconn", "balance no_such_algorithm")
    assert not deploy.check_config(broken)[0]  # haproxy -c really checks
    with pytest.raises(ValueError):
        deploy.haproxy_config(["no-port"], 8501)
    with pytest.raises(ValueError):
        deploy.haproxy_config([], 8501)


def test_the_check_command(haproxy, capsys):
    assert deploy.main(["--workers", "2", "--hosts", "other:8601", "--check"]) == 0
    out = capsys.readouterr().out
    assert "server w3 other:8601" in out


def _stream_client():
    spec = importlib.util.spec_from_file_location("stream_client", BENCH)
    module = sys.modules.setdefault("stream_client", importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


def test_two_workers_serve_the_app_through_the_balancer(haproxy, tmp_path):
    stream_client = _stream_client()
    first = _free_ports(3)
    env = deploy.class_environment(cache=str(tmp_path / "arrays"))
    with deploy.start(2, first, first_worker_port=first + 1, bind="127.0.0.1", env=env) as class_:
        # the page itself, through the balancer, with the sticky cookie set on it
        with urllib.request.urlopen(class_.url + "/", timeout=30) as reply:
            page = reply.read().decode()
            cookie = reply.headers.get("Set-Cookie", "")
            worker = reply.headers["X-Metriclab-Worker"]
        assert "<html" in page.lower() and "METRICLAB_WORKER=" in cookie
        # the cookie keeps a client on its process
        request = urllib.request.Request(
            class_.url + "/_stcore/health", headers={"Cookie": cookie.split(";")[0]}
        )
        for _ in range(4):
            with urllib.request.urlopen(request, timeout=30) as reply:
                assert reply.headers["X-Metriclab-Worker"] == worker

        # two sessions over Streamlit's websocket, each drawn by its own process's run
        async def scenario():
            tabs = [
                await stream_client.StreamlitTab.open(
                    class_.url, "embed", {"ds": "two_moons", "method": "tdl", "seed": s}
                )
                for s in (0, 1)
            ]
            try:
                return [(t.charts.get("embedding"), t.http.cookies.get("METRICLAB_WORKER"))
                        for t in tabs]  # fmt: skip
            finally:
                for t in tabs:
                    await t.close()

        drawn = asyncio.run(scenario())
        for chart, sticky in drawn:
            points = stream_client.chart_points(chart)
            assert sum(len(x) for x, _ in points if None not in x) == 200
            assert sticky in ("w1", "w2")
        # leastconn: the second session went to the other process (the first held a socket)
        assert {sticky for _, sticky in drawn} == {"w1", "w2"}
        assert all(p.poll() is None for p in class_.workers + [class_.balancer])
    assert all(p.poll() is not None for p in class_.workers + [class_.balancer])


def test_a_configured_scheduler_runs_compare_and_the_graph_builds(monkeypatch, tmp_path):
    distributed = pytest.importorskip("distributed")
    import metriclab.evaluation.parallel as parallel
    from metriclab.evaluation import CompareRequest, compare
    from metriclab.graph_store import ArrayStore, shared_graph
    from metriclab.graphs import build_graph

    on_dask = []
    real = parallel._run_on_dask

    def spy(evaluate, tasks, scheduler, on_done):
        on_dask.append((len(tasks), scheduler))
        return real(evaluate, tasks, scheduler, on_done)

    monkeypatch.setattr(parallel, "_run_on_dask", spy)
    methods = [("pca", {"n_components": 1})]
    X = np.random.default_rng(0).normal(size=(300, 4))
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        monkeypatch.setenv("METRICLAB_DASK_SCHEDULER", cluster.scheduler_address)
        on_cluster = compare(CompareRequest("two_moons", methods, n_splits=2, fraction=0.2, seed=3))
        graph = shared_graph(X, 6, store=ArrayStore(tmp_path))
        built_there = "build_graph" in cluster.scheduler.task_prefixes
        monkeypatch.delenv("METRICLAB_DASK_SCHEDULER")
        local = compare(CompareRequest("two_moons", methods, n_splits=2, fraction=0.2, seed=3))
    # the four splits (PCA and the Euclidean baseline, 2 splits) went to the cluster, once
    assert on_dask == [(4, cluster.scheduler_address)]
    assert built_there  # and the full-size graph was built there
    W, width = build_graph(X, "knn", n_neighbors=6)
    assert (graph[0] != W).nnz == 0 and graph[1] == width
    np.testing.assert_array_equal(on_cluster["accuracy"], local["accuracy"])


def test_metriclab_class_is_the_deploy_command_line(haproxy, capsys):
    """`metriclab class` (from an installed package: tools/check_installed.py starts it) passes
    its options to metriclab.deploy, whose template is found through metriclab.resources."""
    from metriclab import resources
    from metriclab.__main__ import main

    assert deploy.TEMPLATE == resources.deploy_folder() / "haproxy.cfg.in"
    assert main(["class", "--workers", "1", "--hosts", "other:8601", "--check"]) == 0
    out = capsys.readouterr().out
    assert "server w1 127.0.0.1:8601" in out and "server w2 other:8601" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--workers", "-1", "--check"], "--workers must be 0 or more, got -1"),
        (
            ["--workers", "0"],
            "a class needs at least one worker (--workers N or --hosts HOST:PORT)",
        ),
        (["--workers", "0", "--no-balancer", "--hosts", "a:1"], "--no-balancer serves only"),
        (["--port", "70000"], "--port must be a port number in [1, 65535], got 70000"),
        (["--hosts", "nonsense"], "a worker is HOST:PORT, got 'nonsense'"),
    ],
)
def test_a_class_refuses_bad_options_in_one_line(argv, message, capsys):
    """Before any process starts: one line on stderr and exit status 2 (these gave a ValueError
    traceback, some of them only after the workers had started)."""
    from metriclab.__main__ import main

    assert main(["class", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"error: {message}") and len(captured.err.splitlines()) == 1
    assert not captured.out


def test_a_class_without_haproxy_says_so_before_starting(monkeypatch, capsys):
    monkeypatch.setattr(deploy, "haproxy_binary", lambda: None)
    monkeypatch.setattr(deploy, "start", lambda *a, **k: pytest.fail("a worker was started"))
    for argv in (["--workers", "1"], ["--workers", "1", "--check"]):
        assert deploy.main(argv) == 2
        err = capsys.readouterr().err
        assert err == "error: haproxy is not installed: apt-get install haproxy\n"


def test_a_worker_is_started_with_the_projects_streamlit_configuration():
    """The one launcher: every server (a class's worker, the tests' and the benches' start_app)
    gets the project's .streamlit/config.toml as flags, so it holds from any folder."""
    command = deploy.worker_command(8601)
    assert command[command.index("--runner.postScriptGC") + 1] == "false"
    assert command[command.index("--server.port") + 1] == "8601"
    assert command.count("--browser.gatherUsageStats") == 1  # ours given once, not twice
    # an option the server's environment sets (a bench comparing settings) is left to it
    varied = deploy.worker_command(8601, env={"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"})
    assert "--runner.postScriptGC" not in varied
